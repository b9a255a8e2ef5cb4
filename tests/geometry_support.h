// Shared by the geometry tests and benchmarks: cells from primitives, random attitudes, references. No Catch here
// (the benchmarks include it too): the checks that assert are in tests/geometry_checks.h. The definitions are in
// tests/geometry_support.cpp, compiled once into vcsim_geometry_support rather than again in each test.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "geometry/cell_impl.h"
#include "geometry/interference.h"
#include "geometry/line_sets.h"
#include "geometry/mesh.h"
#include "tests/scratch_dir.h"

namespace geometry_support {

using namespace vcsim;
using namespace vcsim::geo;

// One cell: a primitive, or the intersection of several.
Cell make_cell(const std::vector<Primitive>& prims);
Primitive primitive(PrimitiveKind kind);
Primitive sphere(double r);
Primitive ellipsoid(const Vec3& radii);
Primitive box(const Vec3& size, const Pose& pose = {});
Primitive halfspace(const Pose& pose = {});
// One cell: `solid` less `hole` (the intersection with the hole's complement): a plate with a drilled hole, a slot.
Cell cell_with_hole(const Primitive& solid, const Primitive& hole);
// The same with several holes (a plate drilled in a row).
Cell cell_with_holes(const Primitive& solid, const std::vector<Primitive>& holes);
// The grooved block of scenarios/ball_in_cylinder.yaml as one concave cell: a 2.4 x 8 x 1 m box (centre z = 0.3)
// ∩ the complement of a 1 m radius infinite cylinder along Y (axis at z = 1), so the groove bottom is at z = 0.
Cell groove_cell();
// A closed triangle mesh written by a test: vertices and outward (counter-clockwise seen from outside) triangles.
struct Solid {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
};

// Writes the solid as an OBJ file in this process's temporary directory; returns its path.
std::string write_obj(const Solid& s, const std::string& name);

// A cell of one closed mesh read from a file.
Cell mesh_cell(const std::string& path);

// V and centroid of a solid cell ∩ a closed mesh by exact rays, an independent reference for pairs with a mesh: rays
// along z in `frame` (the mesh's vertices and the solid's pose both moved by it; rays along a mesh's own axes can graze
// its edges), on an n × n midpoint grid over [x0, x1] × [y0, y1] of that frame. Along each ray the mesh's inside is
// where it has crossed the surface an odd number of times, the solid's its exact chord (geometry/line_sets.h).
struct RaysReference {
  double volume = 0;
  Vec3 centroid = Vec3::Zero();  // in `frame`
};
RaysReference mesh_solid_by_rays(const MeshLevelSet& mesh, const Cell& solid, const Pose& pose,
                                 const Pose& frame, double x0, double x1, double y0, double y1, int n);

// A bipyramid (convex, 2N facets): a ring of N points of radius r at z = 0, apexes at ±h.
Solid bipyramid(int N, double r, double h);

// A prism of height H over a counter-clockwise polygon whose cap is fanned from vertex `apex` (which must see every
// other vertex: any vertex of a convex polygon, the reflex vertex of an L).
Solid prism(const std::vector<Vec3>& poly, double H, int apex);

// A prism of height H over the polygon `poly` (counter-clockwise, star-shaped from the origin), z from 0 to H.
Solid star_prism(const std::vector<Vec3>& poly, double H);

// A cylinder, cone, capsule (radius, length along z; radius_top for a cone's top).
// A ring torus: major radius R (its ring in the xy plane), tube radius r.
Primitive torus(double R, double r);

// The column engine alone (closed forms off) at a tolerance: the general path and the tests' reference.
QueryOptions column_engine(double tolerance = 1e-3);

Primitive rod(PrimitiveKind kind, double radius, double length, double radius_top = 0);

// A star of 2n points alternating between radii r_outer (at angle 0) and r_inner, counter-clockwise, in z = 0.
std::vector<Vec3> star_polygon(int n, double r_outer, double r_inner);

// The area of a polygon star-shaped from the origin (counter-clockwise, z = 0): its fan of triangles from the origin.
double fan_area(const std::vector<Vec3>& poly);

// A square tube along z: outer half-width a, inner b, from z = 0 to L (a solid with a hole through it).
Solid square_tube(double a, double b, double L);

// The unit-free box [0, sx] x [0, sy] x [0, sz] as a mesh (centred by the loader's frame: the file's coordinates).
Solid box_solid(const Vec3& lo, const Vec3& hi);

// Gauss-Legendre nodes and weights on [-1, 1] (Newton on the Legendre recurrence).
void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w);

// Cylinder A (radius a) along x through the origin, cylinder B (radius b) along y with its axis at height h, both
// long enough that their ends stay clear. At height z the lens's section is the rectangle |y| ≤ Y = √(a² − z²),
// |x| ≤ X = √(b² − (z − h)²): V = ∫ 4XY dz, M_z = ∫ 4XY z dz, ∫x² = ∫ (4/3) X³ Y dz, ∫y² = ∫ (4/3) X Y³ dz,
// ∫z² = ∫ 4XY z² dz, over h − b ≤ z ≤ a.
struct CrossedReference {
  double V = 0, zc = 0, xx = 0, yy = 0, zz = 0;  // V, centroid height, second moments about the centroid
};
CrossedReference crossed_cylinders(double a, double b, double h);

// The height z in [lo, hi] at which b, at `at` + z e_z with attitude qb, overlaps a (at pa) by V = target: bisection,
// V falling from lo to hi (b lowered onto a from above).
double height_for_volume(const Cell& a, const Pose& pa, const Cell& b, const Quat& qb, const Vec3& at,
                         double target, double lo, double hi, int iterations, const QueryOptions& options = {});

// V, the centroid and J about it (unit density), for references computed independently.
struct MomentsReference {
  double V = 0;
  Vec3 c = Vec3::Zero();
  Mat3 J = Mat3::Zero();
};
// From raw sums (V, ∫x, ∫x xᵀ).
MomentsReference moments_from_raw(double V, const Vec3& m1, const Mat3& m2);
MomentsReference moments_of(const Interference& q);
// Uniformly distributed over rotations (a normalised Gaussian quaternion).
Quat random_rotation(std::mt19937& rng);

// Smoothness of V along a sequence of poses against the exact volumes Vx at the same poses: how many steps fail to
// increase V, and the largest |second difference of V − that of Vx| relative to the first difference of V.
struct Smoothness {
  int non_increasing = 0;
  double worst = 0;
};
Smoothness smoothness(const std::vector<double>& V, const std::vector<double>& Vx);

// V along a lowering of b (attitude qb) onto a: from `at` + hi e_z down n − 1 steps of `step`.
std::vector<double> lowered_volumes(const Cell& a, const Pose& pa, const Cell& b, const Quat& qb, const Vec3& at,
                                    double hi, int n, double step);
// Smoothness without a reference: the steps that fail to increase V, and the largest third difference relative to
// the first (O(step²) of it for a smooth V(h); a staircase, a jump or a kink shows as O(1)).
Smoothness third_differences(const std::vector<double>& V);

// A pose as bench_every_pair draws them (and prints them): cell a's primitive at the origin turned by qa, cell b at
// `at` turned by qb.
struct PairPose {
  const char* name;
  Primitive a;
  Quat qa;
  Vec3 at;
  Quat qb;
  Pose pose_a() const { return {Vec3::Zero(), qa.normalized()}; }
  Pose pose_b() const { return {at, qb.normalized()}; }
};

// V, the centroid and J by exact chords along `near`'s normal on an n x n midpoint grid over the footprint (found by a
// 400 x 400 pass): an independent reference for pairs without a closed form (1000 and 2000 across agree to ~1e-5 of V
// on two tori). Along each chord x, y are constant and z, z² integrate exactly.
MomentsReference chords_moments(const Cell& a, const Pose& pa, const Cell& b, const Pose& pb,
                                const Interference& near, int n);

// V alone, as above.
double chords_volume(const Cell& a, const Pose& pa, const Cell& b, const Pose& pb, const Interference& near, int n);

}  // namespace geometry_support
