// Reading a run's output (docs/output-format.md) back: the one reader behind sweep outcomes, `vcsim export` and the
// tests, with the dataset paths of engine/output_format.h. Read-only; a file still being written is refused by
// HDF5's own lock.
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vcsim {

// Not a readable vcsim output; the message starts with the path ("out.h5: error: ...").
struct OutputReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A numeric dataset as doubles, row-major [rows, cols] (cols = 1 for a 1-D dataset).
struct Series {
  std::vector<double> data;
  size_t rows = 0, cols = 1;
  const double* row(size_t i) const { return data.data() + i * cols; }
  double at(size_t i, size_t c = 0) const { return data[i * cols + c]; }
};

class OutputReader {
 public:
  // Opens `path` and checks it is a vcsim output (root attribute format = "vcsim-output", /time and /bodies);
  // throws OutputReadError saying what is wrong otherwise.
  explicit OutputReader(const std::string& path);
  ~OutputReader();
  OutputReader(const OutputReader&) = delete;
  OutputReader& operator=(const OutputReader&) = delete;

  const std::string& path() const { return path_; }
  // A string attribute of the root (or of the object at `object`); nullopt when absent or not a string.
  std::optional<std::string> text(const std::string& name, const std::string& object = "/") const;
  // The dataset at `path` (each read once and kept); nullptr when absent or not 1-D/2-D numeric.
  const Series* find(const std::string& path);
  // As find, but throws OutputReadError naming the missing dataset.
  const Series& get(const std::string& path);
  // The number of samples: the rows of /time.
  size_t samples() { return get("/time").rows; }

 private:
  std::string path_;
  long long file_ = -1;  // hid_t, kept out of this header
  std::map<std::string, std::optional<Series>> cache_;
};

}  // namespace vcsim
