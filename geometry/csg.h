// Plain-data description of a body's shape, as read from a scenario file.
// The YAML loader fills a CsgNode tree; geometry/cells.h normalises it to disjoint cells.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "geometry/pose.h"

namespace vcsim::geo {

// Every primitive is defined in its own local frame; its pose places it in the body frame.
// Axis-symmetric primitives use the local z axis.
enum class PrimitiveKind {
  Sphere,            // radius
  Box,               // size = full extents (x, y, z)
  Cylinder,          // radius, length (along z, centred)
  Cone,              // radius_bottom (z = -length/2), radius_top (z = +length/2), length; a frustum when both > 0
  Capsule,           // radius, length of the axis segment (along z, centred)
  Ellipsoid,         // radii (x, y, z)
  Torus,             // major_radius (ring in the xy plane), minor_radius
  HalfSpace,         // the region z <= 0
  Slab,              // the region |z| <= thickness / 2
  InfiniteCylinder,  // radius, axis z, infinite length
  Mesh,              // closed triangle mesh (OBJ or STL) in file, scaled by scale
};

const char* primitive_kind_name(PrimitiveKind kind);

struct Primitive {
  PrimitiveKind kind = PrimitiveKind::Sphere;
  double radius = 0, radius_top = 0, length = 0, thickness = 0;
  double major_radius = 0, minor_radius = 0;
  Vec3 size = Vec3::Zero();   // box
  Vec3 radii = Vec3::Zero();  // ellipsoid
  std::string mesh_file;      // mesh; resolved relative to the scenario file
  double mesh_scale = 1.0;
  bool mesh_split_convex = false;  // mesh: one cell per exact convex piece (geometry/convex_pieces.h)
  Pose pose;                  // primitive frame in the body frame
};

// A source location so geometry errors can point back into the scenario file.
struct SourceLocation {
  std::string file;
  int line = 0, column = 0;  // 1-based; 0 when unknown
  std::string key_path;      // e.g. "bodies.box.geometry.union[1]"
};

struct CsgNode {
  enum class Op { Primitive, Union, Intersection, Difference, Complement };
  Op op = Op::Primitive;
  Primitive primitive;             // when op == Primitive
  std::vector<CsgNode> children;   // Union/Intersection: all; Difference: first minus the rest; Complement: one
  std::string name;                // optional cell name given by the user
  SourceLocation where;
};

}  // namespace vcsim::geo
