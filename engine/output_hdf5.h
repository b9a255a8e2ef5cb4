// HDF5 output of a run: time series of body states, energies and contact-pair results.
// The file layout is documented in docs/output-format.md.
//
// Crash safety: samples are buffered in memory and only reach the file at flush(), which
// extends every dataset to the same new length, writes the rows, updates the root attribute
// `samples` and calls H5Fflush. Metadata-cache evictions are disabled, so the file on disk only
// changes during flush(). By default the HDF5 file is owned by a small helper process forked
// by the constructor (OutputOptions::isolate_process): if the simulation process is killed,
// even with SIGKILL, the helper writes every complete sample it has received, marks the file
// `status = "killed"` and closes it properly. See docs/output-format.md, "Crash safety".
// Because of the fork, construct the writer while no other thread is inside the HDF5 library
// (the Debian HDF5 is built thread-safe with one global lock, which the child would inherit).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "contact/contact_pair.h"
#include "engine/output_format.h"
#include "engine/output_lock.h"
#include "geometry/pose.h"

namespace vcsim {

class OutputBackend;

struct BodySample {
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();
  Vec3 angular_velocity = Vec3::Zero();
};

struct PairSample {
  bool in_contact = false;
  Vec3 force = Vec3::Zero(), point = Vec3::Zero(), torque_about_point = Vec3::Zero(),
       torque_about_body_i = Vec3::Zero();  // on body i, world frame
  std::vector<double> channels;             // flat, in layout order
};

struct EnergySample {
  double kinetic = 0, potential = 0, contact = 0, total = 0;
};

// Running tally of one scripted impulse up to the sample's time.
struct ImpulseSample {
  double count = 0;      // firings so far
  double last_time = 0;  // s, latest firing (NaN before the first)
  Vec3 linear = Vec3::Zero(), angular = Vec3::Zero();  // cumulative impulse, world frame
};

struct OutputSample {
  double time = 0;
  double step_size = 0;  // written only when OutputLayout::step_size
  std::vector<BodySample> bodies;
  EnergySample energy;
  std::vector<PairSample> pairs;
  std::vector<ImpulseSample> impulses;  // one per OutputLayout::impulses
};

struct OutputOptions {
  // Own the HDF5 file in a forked helper process that survives the simulation process (true),
  // or write from this process (false; a SIGKILL during flush() may then leave datasets of
  // unequal length, see docs/output-format.md).
  bool isolate_process = true;
  int chunk_rows = 1024;  // rows per HDF5 chunk
};

class OutputWriter {
 public:
  // Creates/truncates `path`. Throws std::runtime_error (bad layout, file not creatable).
  OutputWriter(const std::string& path, const OutputLayout& layout,
               const OutputOptions& options = OutputOptions());
  ~OutputWriter();  // flushes and closes; never throws (reports to stderr)
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  void append(const OutputSample& sample);  // buffered; throws std::runtime_error on shape mismatch
  void flush();  // extends all datasets together and makes them durable; throws on I/O failure
  void set_text_attribute(const std::string& name, const std::string& value);  // root attribute
  void set_number_attribute(const std::string& name, double value);            // root attribute
  // Flushes and closes. If no `status` was set since construction, it becomes "completed".
  void close();

 private:
  OutputLock lock_;  // before the backend: the file is locked before it is created
  std::unique_ptr<OutputBackend> backend_;  // the file in this process or in a helper (output_backend.h)
  OutputLayout layout_;
  size_t row_width_ = 0;
  bool closed_ = false;
  std::vector<double> row_;
};

}  // namespace vcsim
