// The HDF5 layout of a run's output (docs/output-format.md): the format version and, for a layout, every dataset
// with its path, shape, units and attributes, in the order of the writer's flat sample rows.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "contact/contact_pair.h"

namespace vcsim {

// A contact pair's group: its bodies and its model's channels.
struct OutputPairLayout {
  std::string name;  // e.g. "ball__table"
  std::string body_i, body_j;
  std::vector<contact::Channel> channels;  // extra per-pair datasets [N, width]
};

// A scripted impulse of the scenario (docs/output-format.md, "Impulses").
struct OutputImpulseLayout {
  std::string name, body, trigger;
};

// What a run writes: its bodies, contact pairs, impulses and attributes.
struct OutputLayout {
  std::string scenario_name;
  std::vector<std::string> body_names;  // free and fixed bodies
  std::vector<OutputPairLayout> pairs;
  std::vector<OutputImpulseLayout> impulses;
  bool step_size = false;  // adaptive runs: a /step_size dataset (the step in use at each sample)
  std::map<std::string, std::string> text_attributes;  // scenario (YAML text), vcsim_version, ...
  std::map<std::string, double> number_attributes;     // step, duration, output_interval, ...
};

constexpr int kOutputFormatVersion = 1;
constexpr const char* kOutputFormatName = "vcsim-output";  // the root attribute `format`

// Dataset paths, for the writer (output_columns) and every reader (engine/output_reader.h, sweep outcomes, export).
namespace output_path {
constexpr const char* kTime = "/time";
constexpr const char* kStepSize = "/step_size";
// The per-body series, in the row order; orientation is the (w, x, y, z) quaternion.
inline const std::vector<std::string> kBodyFields = {"position", "orientation", "velocity", "angular_velocity"};
inline const std::vector<std::string> kEnergyFields = {"kinetic", "potential", "contact", "total"};
// Every pair has these; a model's own channels follow them (contact::Channel).
inline const std::vector<std::string> kPairFields = {"in_contact", "force", "point", "torque_about_point",
                                                     "torque_about_body_i"};
inline std::string body(const std::string& name, const std::string& field) { return "/bodies/" + name + "/" + field; }
inline std::string energy(const std::string& field) { return "/energy/" + field; }
inline std::string contact(const std::string& pair, const std::string& field) {
  return "/contacts/" + pair + "/" + field;
}
inline std::string impulse(const std::string& name, const std::string& field) {
  return "/impulses/" + name + "/" + field;
}
}  // namespace output_path

// One HDF5 dataset fed by `width` consecutive values of a flat sample row.
struct OutputColumn {
  std::string path;
  size_t offset = 0;
  int width = 1;
  bool rank2 = true;      // [N, width]; false: [N]
  bool is_uint8 = false;  // in_contact flags
  std::string units, description;
  std::vector<std::pair<std::string, std::string>> extra_attributes;
};

// The flat row order: time | step_size (adaptive runs) | per body: position(3) orientation w,x,y,z(4) velocity(3)
// angular_velocity(3) | energy kinetic, potential, contact, total | per pair: in_contact, force(3), point(3),
// torque_about_point(3), torque_about_body_i(3), channels | per impulse: count, last_time, linear(3), angular(3).
// Throws std::runtime_error on a name that cannot be an HDF5 path or that clashes.
std::vector<OutputColumn> output_columns(const OutputLayout& layout);

}  // namespace vcsim
