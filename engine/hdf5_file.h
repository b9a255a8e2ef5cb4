// The HDF5 file of a run's output, written by the in-process backend or inside the helper process
// (engine/output_helper_process.cpp): datasets created from the layout's columns, rows buffered and written at each
// flush, every failure an exception naming the file. Internal to engine/output_*.
#pragma once
#include <hdf5.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/output_format.h"

namespace vcsim {
namespace hdf5_detail {

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

inline herr_t walk_cb(unsigned n, const H5E_error2_t* err, void* out) {
  auto* s = static_cast<std::string*>(out);
  if (n == 0 && err->desc) *s = err->desc;  // innermost error: the most specific cause
  return 0;
}

[[noreturn]] inline void h5fail(const std::string& what, const std::string& file) {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &detail);
  H5Eclear2(H5E_DEFAULT);
  throw std::runtime_error("HDF5 output '" + file + "': " + what + (detail.empty() ? "" : ": " + detail));
}

class Hdf5File {
 public:
  Hdf5File(const std::string& path, const OutputLayout& layout, std::vector<OutputColumn> cols, int chunk_rows)
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
    write_text(file_, "format", kOutputFormatName);
    write_number(file_, "format_version", kOutputFormatVersion);
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
        const OutputColumn& c = cols_[i];
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
  std::vector<OutputColumn> cols_;
  size_t row_width_ = 0;
  hid_t file_ = -1, text_type_ = -1;
  std::vector<hid_t> datasets_;
  std::vector<double> buffer_;
  hsize_t rows_ = 0;
  bool status_set_ = false;
};

}  // namespace hdf5_detail
using hdf5_detail::Hdf5File;
}  // namespace vcsim
