// HDF5 output writer. Layout and crash-safety argument: docs/output-format.md.
#include "engine/output_hdf5.h"

#include <hdf5.h>
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
#include <set>
#include <stdexcept>

namespace vcsim {
namespace {

constexpr int kFormatVersion = 1;

// One HDF5 dataset fed by `width` consecutive values of a flat sample row.
struct Column {
  std::string path;
  size_t offset = 0;
  int width = 1;
  bool rank2 = true;     // [N, width]; false: [N]
  bool is_uint8 = false;  // in_contact flags
  std::string units, description;
  std::vector<std::pair<std::string, std::string>> extra_attributes;
};

void check_name(const std::string& what, const std::string& name) {
  if (name.empty() || name == "." || name.find('/') != std::string::npos)
    throw std::runtime_error("output layout: " + what + " name '" + name +
                             "' is not usable as an HDF5 group/dataset name (expected a non-empty "
                             "name without '/', not '.')");
}

// The flat row order: time | per body: position(3) orientation w,x,y,z(4) velocity(3)
// angular_velocity(3) | energy kinetic, potential, contact, total | per pair: in_contact,
// force(3), point(3), torque_about_point(3), torque_about_body_i(3), channels.
std::vector<Column> make_columns(const OutputLayout& layout) {
  std::vector<Column> cols;
  size_t off = 0;
  auto add = [&](std::string path, int width, bool rank2, std::string units, std::string desc) {
    Column c;
    c.path = std::move(path);
    c.offset = off;
    c.width = width;
    c.rank2 = rank2;
    c.units = std::move(units);
    c.description = std::move(desc);
    off += width;
    cols.push_back(std::move(c));
    return &cols.back();
  };
  add("/time", 1, false, "s", "simulated time of each sample");
  if (layout.step_size)
    add("/step_size", 1, false, "s", "the adaptive integrator's accepted step that contains the sample's time");
  std::set<std::string> seen;
  for (const auto& b : layout.body_names) {
    check_name("body", b);
    if (!seen.insert(b).second) throw std::runtime_error("output layout: duplicate body name '" + b + "'");
    const std::string g = "/bodies/" + b + "/";
    add(g + "position", 3, true, "m", "centre of mass position, world frame")
        ->extra_attributes.push_back({"frame", "world"});
    auto* q = add(g + "orientation", 4, true, "1",
                  "unit quaternion (w, x, y, z) mapping body-frame vectors to the world frame");
    q->extra_attributes.push_back({"order", "w,x,y,z"});
    q->extra_attributes.push_back({"frame", "world"});
    add(g + "velocity", 3, true, "m/s", "centre of mass velocity, world frame")
        ->extra_attributes.push_back({"frame", "world"});
    add(g + "angular_velocity", 3, true, "rad/s", "angular velocity, world frame")
        ->extra_attributes.push_back({"frame", "world"});
  }
  add("/energy/kinetic", 1, false, "J", "total kinetic energy of the free bodies");
  add("/energy/potential", 1, false, "J", "gravitational potential energy");
  add("/energy/contact", 1, false, "J", "elastic energy stored in contacts");
  add("/energy/total", 1, false, "J", "kinetic + potential + contact");
  seen.clear();
  static const std::set<std::string> fixed = {"in_contact", "force", "point", "torque_about_point",
                                              "torque_about_body_i"};
  for (const auto& p : layout.pairs) {
    check_name("contact pair", p.name);
    if (!seen.insert(p.name).second)
      throw std::runtime_error("output layout: duplicate contact pair name '" + p.name + "'");
    const std::string g = "/contacts/" + p.name + "/";
    add(g + "in_contact", 1, false, "1", "1 when the bodies overlap, else 0")->is_uint8 = true;
    add(g + "force", 3, true, "N", "contact force on body i, world frame");
    add(g + "point", 3, true, "m", "point of application of the force, world frame");
    add(g + "torque_about_point", 3, true, "N*m", "moment on body i about `point`, world frame");
    add(g + "torque_about_body_i", 3, true, "N*m",
        "moment on body i about its centre of mass, world frame");
    std::set<std::string> ch_seen;
    for (const auto& ch : p.channels) {
      check_name("channel of pair '" + p.name + "'", ch.name);
      if (fixed.count(ch.name) || !ch_seen.insert(ch.name).second)
        throw std::runtime_error("output layout: channel name '" + ch.name + "' of pair '" + p.name +
                                 "' clashes with another dataset of the pair");
      if (ch.width < 1)
        throw std::runtime_error("output layout: channel '" + ch.name + "' of pair '" + p.name +
                                 "' has width " + std::to_string(ch.width) + ", expected >= 1");
      add(g + ch.name, ch.width, true, ch.units, ch.description);
    }
  }
  seen.clear();
  for (const auto& imp : layout.impulses) {
    check_name("impulse", imp.name);
    if (!seen.insert(imp.name).second) throw std::runtime_error("output layout: duplicate impulse name '" + imp.name + "'");
    const std::string g = "/impulses/" + imp.name + "/";
    add(g + "count", 1, false, "1", "number of firings up to this sample");
    add(g + "last_time", 1, false, "s", "time of the latest firing (NaN before the first)");
    add(g + "linear", 3, true, "N*s", "cumulative linear impulse applied to the body, world frame");
    add(g + "angular", 3, true, "N*m*s", "cumulative angular impulse applied to the body, world frame");
  }
  return cols;
}

// ---------------------------------------------------------------------------------------------
// The HDF5 file itself (used in-process or inside the helper process).

// Silences HDF5's automatic error printing while we turn failures into exceptions.
class ErrorSilencer {
 public:
  ErrorSilencer() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~ErrorSilencer() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

herr_t walk_cb(unsigned n, const H5E_error2_t* err, void* out) {
  auto* s = static_cast<std::string*>(out);
  if (n == 0 && err->desc) *s = err->desc;  // innermost error: the most specific cause
  return 0;
}

[[noreturn]] void h5fail(const std::string& what, const std::string& file) {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &detail);
  H5Eclear2(H5E_DEFAULT);
  throw std::runtime_error("HDF5 output '" + file + "': " + what + (detail.empty() ? "" : ": " + detail));
}

class Hdf5File {
 public:
  Hdf5File(const std::string& path, const OutputLayout& layout, std::vector<Column> cols, int chunk_rows)
      : path_(path), cols_(std::move(cols)) {
    ErrorSilencer quiet;
    for (const auto& c : cols_) row_width_ += c.width;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    // Keep dirty metadata in memory until H5Fflush: the file on disk then only changes inside
    // flush(), never in the middle of a sample (HDF5 user guide, "Metadata caching", evictions).
    H5AC_cache_config_t mdc;
    mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    H5Pget_mdc_config(fapl, &mdc);
    mdc.evictions_enabled = false;
    mdc.incr_mode = H5C_incr__off;
    mdc.flash_incr_mode = H5C_flash_incr__off;
    mdc.decr_mode = H5C_decr__off;
    H5Pset_mdc_config(fapl, &mdc);
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    // Default (earliest) library format: superblock v0 has no "open for writing" flag, so
    // h5py opens a file left behind by a killed writer without h5clear.
    // Built under a temporary name and renamed into place once complete, so a kill during
    // creation never leaves a half-made file at `path` (nor a stale one from an earlier run).
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    file_ = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (file_ < 0) h5fail("cannot create the file (check the directory exists and is writable)", path);
    ::unlink(path.c_str());
    try {
      populate(layout, chunk_rows);
    } catch (...) {
      release();
      ::unlink(tmp.c_str());
      throw;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      release();
      ::unlink(tmp.c_str());
      throw std::runtime_error("HDF5 output '" + path + "': cannot rename " + tmp + " into place: " + why);
    }
  }

  // Groups, datasets and attributes of a new file (see docs/output-format.md).
  void populate(const OutputLayout& layout, int chunk_rows) {
    const std::string& path = path_;

    text_type_ = H5Tcopy(H5T_C_S1);
    H5Tset_size(text_type_, H5T_VARIABLE);
    H5Tset_cset(text_type_, H5T_CSET_UTF8);  // h5py reads variable-length UTF-8 as str

    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    for (const char* g : {"/bodies", "/energy", "/contacts"}) {
      hid_t gid = H5Gcreate2(file_, g, lcpl, H5P_DEFAULT, H5P_DEFAULT);
      if (gid < 0) h5fail(std::string("cannot create group ") + g, path);
      H5Gclose(gid);
    }
    for (const auto& c : cols_) {
      hsize_t dims[2] = {0, hsize_t(c.width)};
      hsize_t maxdims[2] = {H5S_UNLIMITED, hsize_t(c.width)};
      hsize_t chunk[2] = {hsize_t(chunk_rows), hsize_t(c.width)};
      const int rank = c.rank2 ? 2 : 1;
      hid_t space = H5Screate_simple(rank, dims, maxdims);
      hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
      H5Pset_chunk(dcpl, rank, chunk);  // no compression: chunks are rewritten in place
      hid_t type = c.is_uint8 ? H5T_STD_U8LE : H5T_IEEE_F64LE;
      hid_t d = H5Dcreate2(file_, c.path.c_str(), type, space, lcpl, dcpl, H5P_DEFAULT);
      H5Pclose(dcpl);
      H5Sclose(space);
      if (d < 0) h5fail("cannot create dataset " + c.path, path);
      write_text(d, "units", c.units);
      write_text(d, "description", c.description);
      for (const auto& [k, v] : c.extra_attributes) write_text(d, k, v);
      datasets_.push_back(d);
    }
    H5Pclose(lcpl);
    for (const auto& p : layout.pairs) {
      hid_t g = H5Gopen2(file_, ("/contacts/" + p.name).c_str(), H5P_DEFAULT);
      write_text(g, "body_i", p.body_i);
      write_text(g, "body_j", p.body_j);
      write_text(g, "frame", "world; forces and moments act on body_i, body_j receives the opposite");
      H5Gclose(g);
    }
    for (const auto& imp : layout.impulses) {
      hid_t g = H5Gopen2(file_, ("/impulses/" + imp.name).c_str(), H5P_DEFAULT);
      write_text(g, "body", imp.body);
      write_text(g, "trigger", imp.trigger);
      H5Gclose(g);
    }
    write_text(file_, "format", "vcsim-output");
    write_number(file_, "format_version", kFormatVersion);
    write_text(file_, "scenario_name", layout.scenario_name);
    write_text(file_, "quaternion_order", "w,x,y,z");
    for (const auto& [k, v] : layout.text_attributes) write_text(file_, k, v);
    for (const auto& [k, v] : layout.number_attributes) write_number(file_, k, v);
    write_text(file_, "status", "running");
    write_samples(0);
    if (H5Fflush(file_, H5F_SCOPE_LOCAL) < 0) h5fail("flush failed", path_);
  }

  ~Hdf5File() {
    if (file_ >= 0) {
      ErrorSilencer quiet;
      release();
    }
  }

  size_t row_width() const { return row_width_; }
  size_t buffered_rows() const { return buffer_.size() / row_width_; }

  void append_row(const double* row) { buffer_.insert(buffer_.end(), row, row + row_width_); }

  void flush() {
    ErrorSilencer quiet;
    const hsize_t k = buffered_rows();
    if (k > 0) {
      const hsize_t n_new = rows_ + k;
      // Extend every dataset first, then write the rows, then the `samples` count: with
      // evictions disabled none of this reaches the disk before H5Fflush below.
      for (size_t i = 0; i < cols_.size(); ++i) {
        hsize_t dims[2] = {n_new, hsize_t(cols_[i].width)};
        if (H5Dset_extent(datasets_[i], dims) < 0) h5fail("cannot extend " + cols_[i].path, path_);
      }
      std::vector<double> block;
      std::vector<uint8_t> flags;
      for (size_t i = 0; i < cols_.size(); ++i) {
        const Column& c = cols_[i];
        block.resize(k * c.width);
        for (hsize_t r = 0; r < k; ++r)
          std::copy_n(&buffer_[r * row_width_ + c.offset], c.width, &block[r * c.width]);
        const int rank = c.rank2 ? 2 : 1;
        hsize_t start[2] = {rows_, 0}, count[2] = {k, hsize_t(c.width)};
        hid_t fspace = H5Dget_space(datasets_[i]);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
        hid_t mspace = H5Screate_simple(rank, count, nullptr);
        herr_t st;
        if (c.is_uint8) {
          flags.resize(k);
          for (hsize_t r = 0; r < k; ++r) flags[r] = block[r] != 0.0 ? 1 : 0;
          st = H5Dwrite(datasets_[i], H5T_NATIVE_UINT8, mspace, fspace, H5P_DEFAULT, flags.data());
        } else {
          st = H5Dwrite(datasets_[i], H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, block.data());
        }
        H5Sclose(mspace);
        H5Sclose(fspace);
        if (st < 0) h5fail("cannot write " + c.path, path_);
      }
      rows_ = n_new;
      buffer_.clear();
      write_samples(rows_);
    }
    if (H5Fflush(file_, H5F_SCOPE_LOCAL) < 0) h5fail("flush failed (disk full?)", path_);
  }

  void set_text(const std::string& name, const std::string& value) {
    ErrorSilencer quiet;
    if (name == "status") status_set_ = true;
    write_text(file_, name, value);
  }
  void set_number(const std::string& name, double value) {
    ErrorSilencer quiet;
    write_number(file_, name, value);
  }

  // Flushes, sets `status` to default_status unless somebody set it, and closes.
  void close(const std::string& default_status) {
    if (file_ < 0) return;
    flush();
    ErrorSilencer quiet;
    if (!status_set_) write_text(file_, "status", default_status);
    if (H5Fflush(file_, H5F_SCOPE_LOCAL) < 0) h5fail("flush failed", path_);
    if (release() < 0) h5fail("close failed", path_);
  }

 private:
  herr_t release() {
    for (hid_t d : datasets_) H5Dclose(d);
    datasets_.clear();
    if (text_type_ >= 0) H5Tclose(text_type_);
    text_type_ = -1;
    herr_t st = file_ >= 0 ? H5Fclose(file_) : 0;
    file_ = -1;
    return st;
  }

  // Replaces the attribute if its type changes; overwrites it in place otherwise (the
  // per-flush `samples` update then rewrites one object-header message, nothing else).
  hid_t open_or_create(hid_t obj, const std::string& name, hid_t type) {
    if (H5Aexists(obj, name.c_str()) > 0) {
      hid_t a = H5Aopen(obj, name.c_str(), H5P_DEFAULT);
      hid_t t = H5Aget_type(a);
      const bool same = H5Tequal(t, type) > 0;
      H5Tclose(t);
      if (same) return a;
      H5Aclose(a);
      H5Adelete(obj, name.c_str());
    }
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(space);
    if (a < 0) h5fail("cannot create attribute '" + name + "'", path_);
    return a;
  }
  void write_text(hid_t obj, const std::string& name, const std::string& value) {
    hid_t a = open_or_create(obj, name, text_type_);
    const char* p = value.c_str();
    herr_t st = H5Awrite(a, text_type_, &p);
    H5Aclose(a);
    if (st < 0) h5fail("cannot write attribute '" + name + "'", path_);
  }
  void write_number(hid_t obj, const std::string& name, double value) {
    hid_t a = open_or_create(obj, name, H5T_IEEE_F64LE);
    herr_t st = H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(a);
    if (st < 0) h5fail("cannot write attribute '" + name + "'", path_);
  }
  void write_samples(hsize_t n) {
    hid_t a = open_or_create(file_, "samples", H5T_STD_I64LE);
    const int64_t v = int64_t(n);
    herr_t st = H5Awrite(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
    if (st < 0) h5fail("cannot write attribute 'samples'", path_);
  }

  std::string path_;
  std::vector<Column> cols_;
  size_t row_width_ = 0;
  hid_t file_ = -1, text_type_ = -1;
  std::vector<hid_t> datasets_;
  std::vector<double> buffer_;
  hsize_t rows_ = 0;
  bool status_set_ = false;
};

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
                              std::vector<Column> cols, int chunk_rows) {
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

}  // namespace

// ---------------------------------------------------------------------------------------------
class OutputWriter::Backend {
 public:
  virtual ~Backend() = default;
  virtual void append(const std::vector<double>& row) = 0;
  virtual void flush() = 0;
  virtual void set_text(const std::string& name, const std::string& value) = 0;
  virtual void set_number(const std::string& name, double value) = 0;
  virtual void close() = 0;
};

namespace {

class InProcessBackend : public OutputWriter::Backend {
 public:
  InProcessBackend(const std::string& path, const OutputLayout& layout, std::vector<Column> cols, int chunk_rows)
      : file_(path, layout, std::move(cols), chunk_rows) {}
  void append(const std::vector<double>& row) override { file_.append_row(row.data()); }
  void flush() override { file_.flush(); }
  void set_text(const std::string& n, const std::string& v) override { file_.set_text(n, v); }
  void set_number(const std::string& n, double v) override { file_.set_number(n, v); }
  void close() override { file_.close("completed"); }

 private:
  Hdf5File file_;
};

class HelperBackend : public OutputWriter::Backend {
 public:
  HelperBackend(const std::string& path, const OutputLayout& layout, std::vector<Column> cols, int chunk_rows)
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

OutputWriter::OutputWriter(const std::string& path, const OutputLayout& layout, const OutputOptions& options)
    : lock_(path), layout_(layout) {
  if (options.chunk_rows < 1)
    throw std::runtime_error("HDF5 output '" + path + "': chunk_rows must be >= 1");
  std::vector<Column> cols = make_columns(layout);  // validates names before anything is created
  for (const auto& c : cols) row_width_ += c.width;
  row_.reserve(row_width_);
  if (options.isolate_process)
    backend_ = std::make_unique<HelperBackend>(path, layout, std::move(cols), options.chunk_rows);
  else
    backend_ = std::make_unique<InProcessBackend>(path, layout, std::move(cols), options.chunk_rows);
}

OutputWriter::~OutputWriter() {
  try {
    close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vcsim: closing the output failed: %s\n", e.what());
  }
}

void OutputWriter::append(const OutputSample& s) {
  if (closed_) throw std::runtime_error("OutputWriter::append after close()");
  if (s.bodies.size() != layout_.body_names.size() || s.pairs.size() != layout_.pairs.size())
    throw std::runtime_error("OutputWriter::append: sample has " + std::to_string(s.bodies.size()) +
                             " bodies and " + std::to_string(s.pairs.size()) + " pairs, layout expects " +
                             std::to_string(layout_.body_names.size()) + " and " +
                             std::to_string(layout_.pairs.size()));
  row_.clear();
  auto v3 = [&](const Vec3& v) { row_.insert(row_.end(), {v.x(), v.y(), v.z()}); };
  row_.push_back(s.time);
  if (layout_.step_size) row_.push_back(s.step_size);
  for (const auto& b : s.bodies) {
    v3(b.position);
    row_.insert(row_.end(), {b.orientation.w(), b.orientation.x(), b.orientation.y(), b.orientation.z()});
    v3(b.velocity);
    v3(b.angular_velocity);
  }
  row_.insert(row_.end(), {s.energy.kinetic, s.energy.potential, s.energy.contact, s.energy.total});
  for (size_t i = 0; i < s.pairs.size(); ++i) {
    const auto& p = s.pairs[i];
    size_t expected = 0;
    for (const auto& c : layout_.pairs[i].channels) expected += c.width;
    if (p.channels.size() != expected)
      throw std::runtime_error("OutputWriter::append: pair '" + layout_.pairs[i].name + "' has " +
                               std::to_string(p.channels.size()) + " channel values, layout expects " +
                               std::to_string(expected));
    row_.push_back(p.in_contact ? 1.0 : 0.0);
    v3(p.force);
    v3(p.point);
    v3(p.torque_about_point);
    v3(p.torque_about_body_i);
    row_.insert(row_.end(), p.channels.begin(), p.channels.end());
  }
  if (s.impulses.size() != layout_.impulses.size())
    throw std::runtime_error("OutputWriter::append: sample has " + std::to_string(s.impulses.size()) +
                             " impulse tallies, layout expects " + std::to_string(layout_.impulses.size()));
  for (const auto& imp : s.impulses) {
    row_.insert(row_.end(), {imp.count, imp.last_time});
    v3(imp.linear);
    v3(imp.angular);
  }
  backend_->append(row_);
}

void OutputWriter::flush() {
  if (!closed_) backend_->flush();
}

void OutputWriter::set_text_attribute(const std::string& name, const std::string& value) {
  if (closed_) throw std::runtime_error("OutputWriter::set_text_attribute after close()");
  if (name.empty()) throw std::runtime_error("OutputWriter: empty attribute name");
  backend_->set_text(name, value);
}

void OutputWriter::set_number_attribute(const std::string& name, double value) {
  if (closed_) throw std::runtime_error("OutputWriter::set_number_attribute after close()");
  if (name.empty()) throw std::runtime_error("OutputWriter: empty attribute name");
  backend_->set_number(name, value);
}

void OutputWriter::close() {
  if (closed_) return;
  closed_ = true;
  backend_->close();
}

}  // namespace vcsim
