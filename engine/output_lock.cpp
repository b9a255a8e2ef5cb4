#include "engine/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace vcsim {

OutputLock::OutputLock(const std::string& output_path) : path_(output_path + ".lock") {
  // Retried while the file we locked is not the one at the path: its holder removed it between our open and lock.
  for (int attempt = 0; attempt < 100; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return;  // an unwritable directory: the HDF5 writer reports it with its own message
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {0};
      const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
      ::close(fd_);
      fd_ = -1;
      throw std::runtime_error("output '" + output_path + "' is being written by another vcsim" +
                               (n > 0 ? " (pid " + std::string(pid, static_cast<size_t>(n)) + ")" : std::string()) +
                               "; wait for it to finish or choose another file with -o (lock: " + path_ + ")");
    }
    struct stat locked {}, current {};
    if (::fstat(fd_, &locked) == 0 && ::stat(path_.c_str(), &current) == 0 && locked.st_ino == current.st_ino &&
        locked.st_dev == current.st_dev) {
      const std::string pid = std::to_string(::getpid());
      if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      }  // the pid is only for the message
      return;
    }
    ::close(fd_);
    fd_ = -1;
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before the unlock, so a waiting opener sees a different file and retries
  ::close(fd_);
}

}  // namespace vcsim
