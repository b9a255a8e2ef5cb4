// One writer per output file: a second vcsim asked to write an output that a running one is writing is refused,
// instead of both finishing "completed" with one file silently replacing the other (docs/output-format.md).
#pragma once
#include <string>

namespace vcsim {

// Holds an exclusive advisory lock (flock) on "<path>.lock" for its lifetime; the lock file is removed on release.
// A process that dies releases the lock with it (the kernel drops flock locks); a stale lock file is taken over.
class OutputLock {
 public:
  // Throws std::runtime_error naming the path and the holder's pid when another process holds the lock.
  explicit OutputLock(const std::string& output_path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace vcsim
