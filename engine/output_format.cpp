#include "engine/output_format.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace vcsim {
namespace {

void check_name(const std::string& what, const std::string& name) {
  if (name.empty() || name == "." || name.find('/') != std::string::npos)
    throw std::runtime_error("output layout: " + what + " name '" + name +
                             "' is not usable as an HDF5 group/dataset name (expected a non-empty "
                             "name without '/', not '.')");
}

}  // namespace

std::vector<OutputColumn> output_columns(const OutputLayout& layout) {
  std::vector<OutputColumn> cols;
  size_t off = 0;
  auto add = [&](std::string path, int width, bool rank2, std::string units, std::string desc) {
    OutputColumn c;
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
  namespace path = output_path;
  add(path::kTime, 1, false, "s", "simulated time of each sample");
  if (layout.step_size)
    add(path::kStepSize, 1, false, "s", "the adaptive integrator's accepted step that contains the sample's time");
  std::set<std::string> seen;
  for (const auto& b : layout.body_names) {
    check_name("body", b);
    if (!seen.insert(b).second) throw std::runtime_error("output layout: duplicate body name '" + b + "'");
    add(path::body(b, "position"), 3, true, "m", "centre of mass position, world frame")
        ->extra_attributes.push_back({"frame", "world"});
    auto* q = add(path::body(b, "orientation"), 4, true, "1",
                  "unit quaternion (w, x, y, z) mapping body-frame vectors to the world frame");
    q->extra_attributes.push_back({"order", "w,x,y,z"});
    q->extra_attributes.push_back({"frame", "world"});
    add(path::body(b, "velocity"), 3, true, "m/s", "centre of mass velocity, world frame")
        ->extra_attributes.push_back({"frame", "world"});
    add(path::body(b, "angular_velocity"), 3, true, "rad/s", "angular velocity, world frame")
        ->extra_attributes.push_back({"frame", "world"});
  }
  add(path::energy("kinetic"), 1, false, "J", "total kinetic energy of the free bodies");
  add(path::energy("potential"), 1, false, "J", "gravitational potential energy");
  add(path::energy("contact"), 1, false, "J", "elastic energy stored in contacts");
  add(path::energy("total"), 1, false, "J", "kinetic + potential + contact");
  seen.clear();
  for (const auto& p : layout.pairs) {
    check_name("contact pair", p.name);
    if (!seen.insert(p.name).second)
      throw std::runtime_error("output layout: duplicate contact pair name '" + p.name + "'");
    add(path::contact(p.name, "in_contact"), 1, false, "1", "1 when the bodies overlap, else 0")->is_uint8 = true;
    add(path::contact(p.name, "force"), 3, true, "N", "contact force on body i, world frame");
    add(path::contact(p.name, "point"), 3, true, "m", "point of application of the force, world frame");
    add(path::contact(p.name, "torque_about_point"), 3, true, "N*m", "moment on body i about `point`, world frame");
    add(path::contact(p.name, "torque_about_body_i"), 3, true, "N*m",
        "moment on body i about its centre of mass, world frame");
    std::set<std::string> ch_seen;
    for (const auto& ch : p.channels) {
      check_name("channel of pair '" + p.name + "'", ch.name);
      if (std::count(path::kPairFields.begin(), path::kPairFields.end(), ch.name) || !ch_seen.insert(ch.name).second)
        throw std::runtime_error("output layout: channel name '" + ch.name + "' of pair '" + p.name +
                                 "' clashes with another dataset of the pair");
      if (ch.width < 1)
        throw std::runtime_error("output layout: channel '" + ch.name + "' of pair '" + p.name +
                                 "' has width " + std::to_string(ch.width) + ", expected >= 1");
      add(path::contact(p.name, ch.name), ch.width, true, ch.units, ch.description);
    }
  }
  seen.clear();
  for (const auto& imp : layout.impulses) {
    check_name("impulse", imp.name);
    if (!seen.insert(imp.name).second) throw std::runtime_error("output layout: duplicate impulse name '" + imp.name + "'");
    add(path::impulse(imp.name, "count"), 1, false, "1", "number of firings up to this sample");
    add(path::impulse(imp.name, "last_time"), 1, false, "s", "time of the latest firing (NaN before the first)");
    add(path::impulse(imp.name, "linear"), 3, true, "N*s", "cumulative linear impulse applied to the body, world frame");
    add(path::impulse(imp.name, "angular"), 3, true, "N*m*s",
        "cumulative angular impulse applied to the body, world frame");
  }
  return cols;
}

}  // namespace vcsim
