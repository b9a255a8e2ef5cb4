// Where an OutputWriter's rows go (engine/output_hdf5.h): the HDF5 file in this process, or in a forked helper
// process that outlives a killed simulation (engine/output_helper_process.cpp; docs/output-format.md, "Crash
// safety"). Internal to engine/output_*.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/output_format.h"

namespace vcsim {

class OutputBackend {
 public:
  virtual ~OutputBackend() = default;
  virtual void append(const std::vector<double>& row) = 0;
  virtual void flush() = 0;
  virtual void set_text(const std::string& name, const std::string& value) = 0;
  virtual void set_number(const std::string& name, double value) = 0;
  virtual void close() = 0;
};

std::unique_ptr<OutputBackend> make_in_process_backend(const std::string& path, const OutputLayout& layout,
                                                               std::vector<OutputColumn> cols, int chunk_rows);
std::unique_ptr<OutputBackend> make_helper_backend(const std::string& path, const OutputLayout& layout,
                                                           std::vector<OutputColumn> cols, int chunk_rows);

}  // namespace vcsim
