#include "engine/output_reader.h"

#include <hdf5.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/output_format.h"

namespace vcsim {
namespace {

// An HDF5 handle closed on scope exit.
struct H5Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  H5Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  ~H5Handle() {
    if (id >= 0) close(id);
  }
  explicit operator bool() const { return id >= 0; }
};

std::optional<std::string> read_text(hid_t loc, const char* name) {
  if (H5Aexists(loc, name) <= 0) return std::nullopt;
  H5Handle a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  if (!a) return std::nullopt;
  H5Handle stored(H5Aget_type(a.id), H5Tclose);
  if (!stored || H5Tget_class(stored.id) != H5T_STRING) return std::nullopt;
  H5Handle space(H5Aget_space(a.id), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.id) != 1) return std::nullopt;
  H5Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_cset(memory.id, H5Tget_cset(stored.id));
  if (H5Tis_variable_str(stored.id) > 0) {
    H5Tset_size(memory.id, H5T_VARIABLE);
    char* s = nullptr;
    if (H5Aread(a.id, memory.id, &s) < 0) return std::nullopt;
    std::string r = s ? s : "";
    if (s) H5free_memory(s);
    return r;
  }
  const size_t n = H5Tget_size(stored.id);
  H5Tset_size(memory.id, n);
  std::string buf(n, '\0');
  if (H5Aread(a.id, memory.id, buf.data()) < 0) return std::nullopt;
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

std::optional<Series> read_series(hid_t file, const std::string& path) {
  if (H5Lexists(file, path.c_str(), H5P_DEFAULT) <= 0) return std::nullopt;
  H5Handle d(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d) return std::nullopt;
  H5Handle type(H5Dget_type(d.id), H5Tclose);
  const H5T_class_t c = H5Tget_class(type.id);
  if (c != H5T_FLOAT && c != H5T_INTEGER) return std::nullopt;
  H5Handle space(H5Dget_space(d.id), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 1 || rank > 2) return std::nullopt;
  hsize_t dims[2] = {0, 1};
  H5Sget_simple_extent_dims(space.id, dims, nullptr);
  Series s;
  s.rows = dims[0];
  s.cols = rank == 2 ? dims[1] : 1;
  s.data.resize(s.rows * s.cols);
  if (!s.data.empty() && H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data.data()) < 0)
    return std::nullopt;
  return s;
}

}  // namespace

OutputReader::OutputReader(const std::string& path) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw OutputReadError(path + ": error: no such file");
  if (fs::is_directory(path, ec)) throw OutputReadError(path + ": error: is a directory, not a vcsim HDF5 output");
  if (access(path.c_str(), R_OK) != 0)
    throw OutputReadError(path + ": error: cannot read the file: " + std::strerror(errno));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // failures are reported by return values, not printed
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw OutputReadError(path + ": error: not an HDF5 file (expected a vcsim output written by `vcsim run`)");
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0)
    throw OutputReadError(path + ": error: cannot open the HDF5 file (is a run still writing it? "
                                 "see docs/output-format.md, 'Reading it')");
  const auto format = text("format");
  if (!format || *format != kOutputFormatName || H5Lexists(file_, output_path::kTime, H5P_DEFAULT) <= 0 ||
      H5Lexists(file_, "/bodies", H5P_DEFAULT) <= 0) {
    H5Fclose(file_);
    throw OutputReadError(path + ": error: HDF5 file is not a vcsim output (expected the root attribute format = "
                                 "\"" + std::string(kOutputFormatName) +
                                 "\" and the groups /time and /bodies; see docs/output-format.md)");
  }
}

OutputReader::~OutputReader() { H5Fclose(file_); }

std::optional<std::string> OutputReader::text(const std::string& name, const std::string& object) const {
  if (object == "/") return read_text(file_, name.c_str());
  if (H5Lexists(file_, object.c_str(), H5P_DEFAULT) <= 0) return std::nullopt;
  H5Handle o(H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose);
  return o ? read_text(o.id, name.c_str()) : std::nullopt;
}

const Series* OutputReader::find(const std::string& path) {
  auto it = cache_.find(path);
  if (it == cache_.end()) it = cache_.emplace(path, read_series(file_, path)).first;
  return it->second ? &*it->second : nullptr;
}

const Series& OutputReader::get(const std::string& path) {
  if (const Series* s = find(path)) return *s;
  throw OutputReadError(path_ + ": error: the output has no numeric dataset " + path);
}

}  // namespace vcsim
