// HDF5 output writer: a run's samples as flat rows (engine/output_format.h), sent to a backend (engine/output_backend.h).
// Layout and crash-safety argument: docs/output-format.md.
#include "engine/output_hdf5.h"

#include <cstdio>
#include <stdexcept>

#include "engine/hdf5_file.h"
#include "engine/output_backend.h"

namespace vcsim {
namespace {

class InProcessBackend : public OutputBackend {
 public:
  InProcessBackend(const std::string& path, const OutputLayout& layout, std::vector<OutputColumn> cols, int chunk_rows)
      : file_(path, layout, std::move(cols), chunk_rows) {}
  void append(const std::vector<double>& row) override { file_.append_row(row.data()); }
  void flush() override { file_.flush(); }
  void set_text(const std::string& n, const std::string& v) override { file_.set_text(n, v); }
  void set_number(const std::string& n, double v) override { file_.set_number(n, v); }
  void close() override { file_.close("completed"); }

 private:
  Hdf5File file_;
};

}  // namespace

std::unique_ptr<OutputBackend> make_in_process_backend(const std::string& path, const OutputLayout& layout,
                                                               std::vector<OutputColumn> cols, int chunk_rows) {
  return std::make_unique<InProcessBackend>(path, layout, std::move(cols), chunk_rows);
}

OutputWriter::OutputWriter(const std::string& path, const OutputLayout& layout, const OutputOptions& options)
    : lock_(path), layout_(layout) {
  if (options.chunk_rows < 1)
    throw std::runtime_error("HDF5 output '" + path + "': chunk_rows must be >= 1");
  std::vector<OutputColumn> cols = output_columns(layout);  // validates names before anything is created
  for (const auto& c : cols) row_width_ += c.width;
  row_.reserve(row_width_);
  if (options.isolate_process)
    backend_ = make_helper_backend(path, layout, std::move(cols), options.chunk_rows);
  else
    backend_ = make_in_process_backend(path, layout, std::move(cols), options.chunk_rows);
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