#include "geometry/lens_faces.h"

#include <algorithm>
#include <cmath>

namespace vcsim::geo::lens {

using lines::kInf;
using lines::Placed;
using lines::Span;

namespace {
// line_span's own tests for "parallel" (geometry/line_sets.cpp): the same, so that a face counts as parallel exactly
// when line_span leaves it out.
constexpr double kAlong = 1e-14, kAcross = 1e-15;
}  // namespace

// How far inside the faces that run parallel to the column (x = o + s w, primitive frame) the column is: a
// cylinder's side along its axis, a cap or a box's face across it. G jumps there (a full chord inside, none
// outside); this margin does not, so the edge searches converge on it as fast as on a smooth rim. +∞ when no face
// runs parallel.
double parallel_margin(const Placed& p, const Vec3& o, const Vec3& w) {
  double m = kInf;
  const bool along_axis = w.x() * w.x() + w.y() * w.y() < kAlong, across_axis = std::abs(w.z()) < kAcross;
  switch (p.kind) {
    case PrimitiveKind::Cylinder:
      if (along_axis) m = std::min(m, p.r - std::hypot(o.x(), o.y()));
      if (across_axis) m = std::min(m, p.half_length - std::abs(o.z()));
      break;
    case PrimitiveKind::InfiniteCylinder:
    case PrimitiveKind::Capsule:
      if (along_axis) m = std::min(m, p.r - std::hypot(o.x(), o.y()));
      break;
    case PrimitiveKind::Cone:
      if (across_axis) m = std::min(m, p.half_length - std::abs(o.z()));
      break;
    case PrimitiveKind::Box:
      for (int k = 0; k < 3; ++k)
        if (std::abs(w[k]) < kAcross) m = std::min(m, p.half_size[k] - std::abs(o[k]));
      break;
    case PrimitiveKind::Slab:
      if (across_axis) m = std::min(m, p.half_thickness - std::abs(o.z()));
      break;
    case PrimitiveKind::HalfSpace:
      if (across_axis) m = std::min(m, -o.z());
      break;
    default: break;
  }
  return m;
}

// The chord of p along the column with the faces parallel to it left out (those the column misses beside): a
// cylinder along its axis keeps its caps, one across it its side, a box its other faces. Where no such face is
// missed, the chord itself. Concave in the column's position like every chord of a convex set.
Span chord_without_parallel_faces(const Placed& p, const Vec3& o, const Vec3& w) {
  const bool along_axis = w.x() * w.x() + w.y() * w.y() < kAlong, across_axis = std::abs(w.z()) < kAcross;
  Placed q = p;
  switch (p.kind) {
    case PrimitiveKind::Cylinder:
      if (along_axis) q.kind = PrimitiveKind::Slab, q.half_thickness = p.half_length;
      else if (across_axis) q.kind = PrimitiveKind::InfiniteCylinder;
      break;
    case PrimitiveKind::Capsule:
      if (along_axis) q.kind = PrimitiveKind::Slab, q.half_thickness = p.half_length + p.r;
      break;
    case PrimitiveKind::InfiniteCylinder:
    case PrimitiveKind::Slab:
    case PrimitiveKind::HalfSpace:
      if ((p.kind == PrimitiveKind::InfiniteCylinder && along_axis) || (p.kind != PrimitiveKind::InfiniteCylinder &&
                                                                         across_axis))
        return Span{-kInf, kInf, 0, 0};
      break;
    case PrimitiveKind::Box:
      for (int k = 0; k < 3; ++k)
        if (std::abs(w[k]) < kAcross) q.half_size[k] = kInf;
      break;
    default: break;  // a cone's caps across it: kept (its margin still bounds S)
  }
  return lines::line_span(q, o, w);
}


// One face of a primitive as a primitive of its own (same placement), for locating where two faces' chord ends
// cross: a cylinder's side (an infinite cylinder) or caps (a slab), a capsule's body or end balls, a box's pair of
// faces, a cone's caps or side. False where the face cannot stand alone (a capsule's inner slab face).
bool face_alone(const Placed& p, int face, Placed& q) {
  q = p;
  switch (p.kind) {
    case PrimitiveKind::Cylinder:
      if (face == 0) q.kind = PrimitiveKind::InfiniteCylinder;
      else q.kind = PrimitiveKind::Slab, q.half_thickness = p.half_length;
      return true;
    case PrimitiveKind::Cone: {
      if (face != 0) {
        q.kind = PrimitiveKind::Slab, q.half_thickness = p.half_length;
        return true;
      }
      // The side alone: the same surface ρ = c + k z on a longer slab, so that the side continues past the caps: by h
      // past the wide end, halfway to the apex past the narrow one (radii stay positive). Not symmetric: a pointed
      // cone's side would not continue past its base (its apex is its narrow end), where it meets the base's plane,
      // and the search for that switch went astray (a ball against a cone: 18 rows out of switches, 28 ms in the
      // column engine).
      const double h = p.half_length, k = (p.r2 - p.r) / (2 * h), c = 0.5 * (p.r + p.r2);
      const double narrow = k == 0 ? h : 0.5 * (std::abs(c / k) - h);  // how far the narrow end may go
      const double z_lo = -h - (k < 0 ? h : narrow), z_hi = h + (k < 0 ? narrow : h);
      const double mid = 0.5 * (z_lo + z_hi);
      q.half_length = 0.5 * (z_hi - z_lo), q.r = c + k * z_lo, q.r2 = c + k * z_hi;
      q.b.z() -= mid;  // the primitive's frame centred on the longer slab
      return true;
    }
    case PrimitiveKind::Capsule:
      if (face == 0) q.kind = PrimitiveKind::InfiniteCylinder;
      else if (face >= 2) q.kind = PrimitiveKind::Sphere, q.b += Vec3(0, 0, face == 2 ? p.half_length : -p.half_length);
      else return false;
      return true;
    case PrimitiveKind::Box:
      for (int k = 0; k < 3; ++k)
        if (k != face) q.half_size[k] = kInf;
      return true;
    default: return true;  // one face: the primitive itself
  }
}


}  // namespace vcsim::geo::lens
