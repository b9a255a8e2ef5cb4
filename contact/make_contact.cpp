#include "contact/make_contact.h"

#include <cstdlib>

#include "contact/cellular_contact.h"
#include "contact/model_params.h"
#include "contact/point_contact.h"
#include "contact/point_vertices_contact.h"
#include "contact/volumetric_contact.h"
#include "geometry/point_contact_geometry.h"

namespace vcsim::contact {
namespace {

// The analytic primitive of a point-model body: a single primitive, or the complement of one
// (a concave cylinder wall), possibly wrapped in single-child unions/intersections. The primitive
// pose is re-expressed in the centre-of-mass frame (the frame of BodyKinematics::pose).
bool extract_shape(const geo::CsgNode& node, bool complement, geo::PointShape& out) {
  switch (node.op) {
    case geo::CsgNode::Op::Primitive:
      out.primitive = node.primitive;
      out.complement = complement;
      return true;
    case geo::CsgNode::Op::Complement:
      return node.children.size() == 1 && extract_shape(node.children[0], !complement, out);
    case geo::CsgNode::Op::Union:
    case geo::CsgNode::Op::Intersection:
      return node.children.size() == 1 && extract_shape(node.children[0], complement, out);
    default:
      return false;
  }
}

geo::PointShape point_shape(const std::optional<geo::CsgNode>& csg, const Pose& com_offset, const char* side,
                            const geo::SourceLocation& where) {
  geo::PointShape shape;
  if (!csg || !extract_shape(*csg, false, shape))
    throw ContactError(where, std::string("model point: body ") + side +
                                  " must be a single analytic primitive (sphere, ellipsoid, half_space, "
                                  "infinite_cylinder or its complement); use the volumetric model for other shapes");
  shape.primitive.pose = com_offset.inverse().compose(shape.primitive.pose);
  return shape;
}

}  // namespace

std::unique_ptr<ContactPair> make_contact(const std::string& model, const ModelParams& p,
                                          const ContactSides& sides, const geo::SourceLocation& where) {
  geo::QueryOptions options;
  options.tolerance = sides.geometry_tolerance;
  options.hyper_exponent = p.normal.hyper_n;  // 1 unless the volumetric law is Petersen's (hyper_n)
  // The warm start between a pair's queries gives the same bits as cold queries; VCSIM_WARM_START=0 turns it off to
  // show that, or to time the difference (tests/geometry_mesh_coherence_test.cpp, benchmarks/README.md).
  if (const char* w = std::getenv("VCSIM_WARM_START"); w && std::string(w) == "0") options.coherence = false;
  if (model == "point") {
    const geo::PointShape si = point_shape(sides.csg_i, sides.com_offset_i, "i", where);
    const geo::PointShape sj = point_shape(sides.csg_j, sides.com_offset_j, "j", where);
    std::string why;
    if (!geo::point_pair_supported(si, sj, &why)) throw ContactError(where, "model point: " + why);
    return std::make_unique<PointContact>(p, si, sj);
  }
  if (model == "point_vertices") {
    if (sides.geometry_i.cells.empty() || sides.geometry_j.cells.empty())
      throw ContactError(where, "model point_vertices: both bodies need a geometry with at least one cell");
    const size_t vi = geo::body_vertices(sides.geometry_i).size(), vj = geo::body_vertices(sides.geometry_j).size();
    if (vi + vj == 0)
      throw ContactError(where, "model point_vertices: a body with vertices (a box or mesh primitive, "
                                "docs/contact-models.md), but neither body has any; use the point model for "
                                "sphere/ellipsoid pairs or the volumetric model for smooth shapes");
    return std::make_unique<PointVerticesContact>(p, sides.geometry_i, sides.geometry_j);
  }
  if (model == "volumetric") {
    const size_t ni = sides.geometry_i.cells.size(), nj = sides.geometry_j.cells.size();
    if (ni != 1 || nj != 1)
      throw ContactError(where, "model volumetric: one convex cell per body (got " + std::to_string(ni) + " and " +
                                    std::to_string(nj) + " cells); use model cellular for multi-cell bodies");
    // A pair whose interference can fall apart (a cell with a hole) has one sub-model per patch: the cellular
    // model's, over its one cell pair (docs/contact-models.md, "Patches").
    if (geo::may_have_patches(sides.geometry_i.cells[0], sides.geometry_j.cells[0]))
      return std::make_unique<CellularContact>(p, sides.geometry_i, sides.geometry_j, options);
    return std::make_unique<VolumetricContact>(p, sides.geometry_i.cells[0], sides.geometry_j.cells[0], options);
  }
  if (model == "cellular") {
    if (sides.geometry_i.cells.empty() || sides.geometry_j.cells.empty())
      throw ContactError(where, "model cellular: both bodies need a geometry with at least one cell");
    return std::make_unique<CellularContact>(p, sides.geometry_i, sides.geometry_j, options);
  }
  throw ContactError(where, "model one of point, point_vertices, volumetric, cellular (got '" + model + "')");
}

}  // namespace vcsim::contact
