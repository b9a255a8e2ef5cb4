// Factory used by the engine (engine/build_world.cpp) to create a contact pair from a scenario's
// contact section. The signature is fixed by the engine; the models live in contact/*.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "contact/contact_pair.h"
#include "contact/model_params.h"
#include "geometry/csg.h"
#include "geometry/interference.h"

namespace vcsim::contact {

// What a contact model may need to know about its two bodies.
struct ContactSides {
  const geo::BodyGeometry& geometry_i;  // cells in body i's centre-of-mass frame
  const geo::BodyGeometry& geometry_j;
  double mass_i, mass_j;                // 0 for fixed bodies
  const std::optional<geo::CsgNode>& csg_i;  // the scenario's CSG tree, in the body's own frame
  const std::optional<geo::CsgNode>& csg_j;  // (the point model reads its analytic primitive here)
  double geometry_tolerance;
  Pose com_offset_i = Pose{};           // centre-of-mass frame relative to the body's own frame
  Pose com_offset_j = Pose{};
};

// model: "point", "point_vertices", "volumetric" or "cellular"; params resolved (contact/model_params.h).
// Throws std::runtime_error-derived errors (with `where`) when the model cannot handle the shapes,
// e.g. a point model on a box.
std::unique_ptr<ContactPair> make_contact(const std::string& model, const ModelParams& params,
                                          const ContactSides& sides, const geo::SourceLocation& where);

}  // namespace vcsim::contact
