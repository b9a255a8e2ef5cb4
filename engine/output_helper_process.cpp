// The crash-safe writer: a helper process, forked when the output is created, owns the HDF5 file and receives the
// rows over a Unix socket; if the simulation process dies, even by SIGKILL, it keeps every complete sample, marks
// the file "killed" and closes it (docs/output-format.md, "Crash safety").
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "engine/hdf5_file.h"
#include "engine/output_backend.h"

namespace vcsim {
namespace {

// ---------------------------------------------------------------------------------------------
// Helper-process protocol: [type:1][length:4][payload], over a Unix stream socket.
enum : char { kSample = 'S', kFlush = 'F', kText = 'T', kNumber = 'N', kClose = 'C', kAck = 'A' };

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}
bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}
void put_message(std::vector<char>& out, char type, const char* payload, uint32_t len) {
  out.push_back(type);
  const char* l = reinterpret_cast<const char*>(&len);
  out.insert(out.end(), l, l + 4);
  out.insert(out.end(), payload, payload + len);
}

// Leaves only stdin/stdout/stderr and the socket (moved to fd 3) open in the helper, so it holds
// no copy of other writers' sockets (which would hide their parent's death from their helper).
int keep_only_socket(int sock) {
  if (sock != 3) {
    ::dup2(sock, 3);
    ::close(sock);
  }
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 4u, ~0u, 0u) == 0) return 3;  // Linux >= 5.9
#endif
  long maxfd = sysconf(_SC_OPEN_MAX);
  if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
  for (int fd = 4; fd < maxfd; ++fd) ::close(fd);
  return 3;
}

// Body of the helper process: never returns.
[[noreturn]] void helper_main(int sock, const std::string& path, const OutputLayout& layout,
                              std::vector<OutputColumn> cols, int chunk_rows) {
  // Ctrl-C and kill of the process group reach the helper too; it finishes when the simulation
  // process closes the socket (normally or by dying), so it ignores these signals.
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::signal(s, SIG_IGN);
  sock = keep_only_socket(sock);
  auto ack = [&](const std::string& msg) {
    std::vector<char> out;
    put_message(out, kAck, msg.data(), uint32_t(msg.size()));
    write_all(sock, out.data(), out.size());
  };
  std::unique_ptr<Hdf5File> file;
  try {
    file = std::make_unique<Hdf5File>(path, layout, std::move(cols), chunk_rows);
  } catch (const std::exception& e) {
    ack(std::string("E") + e.what());
    _exit(1);
  }
  ack("");
  std::string error;  // first error; reported on every later flush/close
  std::vector<char> payload;
  const size_t max_buffered_rows = std::max<size_t>(1, (64u << 20) / (8 * file->row_width()));
  for (;;) {
    char header[5];
    bool ok = read_all(sock, header, 5);
    uint32_t len = 0;
    if (ok) {
      std::memcpy(&len, header + 1, 4);
      payload.resize(len);
      ok = read_all(sock, payload.data(), len);  // a partial last message is dropped
    }
    if (!ok) {
      // The simulation process went away without close(): keep every complete sample.
      try {
        if (error.empty()) file->close("killed");
      } catch (...) {
      }
      _exit(2);
    }
    try {
      switch (header[0]) {
        case kSample:
          if (error.empty() && len == 8 * file->row_width()) {
            file->append_row(reinterpret_cast<const double*>(payload.data()));
            if (file->buffered_rows() >= max_buffered_rows) file->flush();
          }
          break;
        case kText: {
          const char* p = payload.data();
          const size_t nlen = strnlen(p, len);
          if (error.empty()) file->set_text(std::string(p, nlen), std::string(p + nlen + 1, len - nlen - 1));
          break;
        }
        case kNumber: {
          const char* p = payload.data();
          const size_t nlen = strnlen(p, len);
          double v;
          std::memcpy(&v, p + nlen + 1, 8);
          if (error.empty()) file->set_number(std::string(p, nlen), v);
          break;
        }
        case kFlush:
          if (error.empty()) file->flush();
          ack(error.empty() ? "" : "E" + error);
          break;
        case kClose:
          if (error.empty()) file->close("completed");
          ack(error.empty() ? "" : "E" + error);
          _exit(error.empty() ? 0 : 1);
        default:
          break;
      }
    } catch (const std::exception& e) {
      if (error.empty()) error = e.what();
    }
  }
}

class HelperBackend : public OutputBackend {
 public:
  HelperBackend(const std::string& path, const OutputLayout& layout, std::vector<OutputColumn> cols, int chunk_rows)
      : path_(path) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw std::runtime_error("HDF5 output '" + path + "': socketpair failed: " + std::strerror(errno));
    std::fflush(nullptr);  // do not let the child re-emit buffered stdio output
    pid_ = ::fork();
    if (pid_ < 0) {
      ::close(sv[0]);
      ::close(sv[1]);
      throw std::runtime_error("HDF5 output '" + path + "': fork failed: " + std::strerror(errno));
    }
    if (pid_ == 0) helper_main(sv[1], path, layout, std::move(cols), chunk_rows);
    ::close(sv[1]);
    sock_ = sv[0];
    wait_ack("create");
  }
  ~HelperBackend() override {
    if (sock_ >= 0) ::close(sock_);
    reap();
  }
  void append(const std::vector<double>& row) override {
    put_message(out_, kSample, reinterpret_cast<const char*>(row.data()), uint32_t(8 * row.size()));
    if (out_.size() >= (1u << 16)) send_pending();
  }
  void flush() override {
    put_message(out_, kFlush, nullptr, 0);
    send_pending();
    wait_ack("flush");
  }
  void set_text(const std::string& n, const std::string& v) override {
    std::string p = n + '\0' + v;
    put_message(out_, kText, p.data(), uint32_t(p.size()));
  }
  void set_number(const std::string& n, double v) override {
    std::string p = n + '\0';
    p.append(reinterpret_cast<const char*>(&v), 8);
    put_message(out_, kNumber, p.data(), uint32_t(p.size()));
  }
  void close() override {
    put_message(out_, kClose, nullptr, 0);
    send_pending();
    wait_ack("close");
    ::close(sock_);
    sock_ = -1;
    reap();
  }

 private:
  void send_pending() {
    if (!write_all(sock_, out_.data(), out_.size()))
      throw std::runtime_error("HDF5 output '" + path_ + "': the writer process is gone");
    out_.clear();
  }
  void wait_ack(const char* what) {
    char header[5];
    uint32_t len = 0;
    std::string msg;
    bool ok = read_all(sock_, header, 5) && header[0] == kAck;
    if (ok) {
      std::memcpy(&len, header + 1, 4);
      msg.resize(len);
      ok = read_all(sock_, msg.data(), len);
    }
    if (!ok) {
      if (sock_ >= 0) ::close(sock_);
      sock_ = -1;
      reap();
      throw std::runtime_error("HDF5 output '" + path_ + "': the writer process died during " + what);
    }
    if (!msg.empty()) {
      if (std::string(what) == "create") {
        ::close(sock_);
        sock_ = -1;
        reap();
      }
      throw std::runtime_error(msg.substr(1));
    }
  }
  void reap() {
    if (pid_ > 0) {
      int st;
      while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
  }

  std::string path_;
  pid_t pid_ = -1;
  int sock_ = -1;
  std::vector<char> out_;
};

}  // namespace

std::unique_ptr<OutputBackend> make_helper_backend(const std::string& path, const OutputLayout& layout,
                                                           std::vector<OutputColumn> cols, int chunk_rows) {
  return std::make_unique<HelperBackend>(path, layout, std::move(cols), chunk_rows);
}

}  // namespace vcsim
