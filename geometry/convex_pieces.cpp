// A closed mesh split into convex pieces: see convex_pieces.h.
#include "geometry/convex_pieces.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "geometry/located_error.h"
#include "geometry/mesh_closest.h"

namespace vcsim::geo {
namespace {

// More distinct face planes than this is a curved or scanned surface: its split would be thousands of slivers.
constexpr size_t kMaxFacePlanes = 4096;

// A face of the mesh clipped to a region, with the index of its plane.
struct Polygon {
  std::vector<Vec3> points;
  int plane;
};

// An edge where the solid is concave, clipped to a region, with the planes of its two faces.
struct ReflexEdge {
  Vec3 a, b;
  int planes[2];
};

struct Region {
  std::vector<Plane> cuts;
  std::vector<Polygon> faces;
  std::vector<ReflexEdge> reflex;
  int depth = 0;
};

// The distinct planes of the mesh's faces (coplanar triangles share one), outward.
struct FacePlanes {
  std::vector<Plane> planes;
  std::vector<int> of_triangle;
};

FacePlanes face_planes(const MeshLevelSet& m, double eps, const SourceLocation& where) {
  FacePlanes out;
  for (const auto& t : m.triangles) {
    const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
    const Vec3 n = (b - a).cross(c - a).normalized();
    const double d = n.dot(a + b + c) / 3;
    int found = -1;
    for (size_t k = 0; k < out.planes.size() && found < 0; ++k)
      if (out.planes[k].n.dot(n) > 1 - 1e-12 && std::abs(out.planes[k].d - d) <= eps) found = static_cast<int>(k);
    if (found < 0) {
      if (out.planes.size() == kMaxFacePlanes)
        throw GeometryError(where, "a mesh with at most " + std::to_string(kMaxFacePlanes) +
                                       " distinct face planes for split: convex (flat-faced parts: fixtures, "
                                       "brackets), but '" + m.path + "' has more (a curved or scanned surface); "
                                       "leave it whole (split: none)");
      found = static_cast<int>(out.planes.size());
      out.planes.push_back({n, d});
    }
    out.of_triangle.push_back(found);
  }
  return out;
}

// Edges whose two faces meet at a reflex (concave) angle: the far vertex of one face is outside the other's plane.
std::vector<ReflexEdge> reflex_edges(const MeshLevelSet& m, const FacePlanes& fp, double eps) {
  const std::vector<HalfEdge> edges = half_edges_by_edge(TriangleMesh{m.vertices, m.triangles});
  std::vector<ReflexEdge> out;
  for (size_t g = 0; g + 1 < edges.size(); g += 2) {  // twins side by side (check_closed passed at load)
    const int h0 = edges[g].id, h1 = edges[g + 1].id;
    const int t0 = h0 / 3, t1 = h1 / 3;
    const int p0 = fp.of_triangle[t0], p1 = fp.of_triangle[t1];
    if (p0 == p1) continue;
    const Vec3& far1 = m.vertices[m.triangles[t1][(h1 % 3 + 2) % 3]];
    const Plane& pl = fp.planes[p0];
    if (pl.n.dot(far1) - pl.d <= eps) continue;
    out.push_back({m.vertices[m.triangles[t0][h0 % 3]], m.vertices[m.triangles[t0][(h0 % 3 + 1) % 3]], {p0, p1}});
  }
  return out;
}

double signed_distance(const Plane& pl, const Vec3& x) { return pl.n.dot(x) - pl.d; }

// The part of a convex polygon with n·x <= d (points within eps of the plane count as on it).
std::vector<Vec3> clip_polygon(const std::vector<Vec3>& poly, const Plane& pl, double eps) {
  std::vector<Vec3> out;
  const size_t n = poly.size();
  for (size_t k = 0; k < n; ++k) {
    const Vec3 &p = poly[k], &q = poly[(k + 1) % n];
    double dp = signed_distance(pl, p), dq = signed_distance(pl, q);
    if (std::abs(dp) <= eps) dp = 0;
    if (std::abs(dq) <= eps) dq = 0;
    if (dp <= 0) out.push_back(p);
    if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) out.push_back(p + (q - p) * (dp / (dp - dq)));
  }
  return out;
}

double polygon_area(const std::vector<Vec3>& poly) {
  Vec3 s = Vec3::Zero();
  for (size_t k = 1; k + 1 < poly.size(); ++k) s += (poly[k] - poly[0]).cross(poly[k + 1] - poly[0]);
  return 0.5 * s.norm();
}

// The region's content on the side n·x <= d of `cut` (cut is one face plane, or its reverse). Faces lying in the
// cut's plane go to the side their solid is on: the side opposite their outward normal.
Region side_of(const Region& r, const Plane& cut, const FacePlanes& fp, double eps, double min_area) {
  Region out;
  out.cuts = r.cuts;
  out.cuts.push_back(cut);
  out.depth = r.depth + 1;
  for (const Polygon& f : r.faces) {
    bool on_plane = true;
    for (const Vec3& x : f.points) on_plane = on_plane && std::abs(signed_distance(cut, x)) <= eps;
    if (on_plane) {
      if (fp.planes[f.plane].n.dot(cut.n) > 0) out.faces.push_back(f);
      continue;
    }
    Polygon kept{clip_polygon(f.points, cut, eps), f.plane};
    if (kept.points.size() >= 3 && polygon_area(kept.points) > min_area) out.faces.push_back(std::move(kept));
  }
  for (const ReflexEdge& e : r.reflex) {
    double da = signed_distance(cut, e.a), db = signed_distance(cut, e.b);
    if (std::abs(da) <= eps) da = 0;
    if (std::abs(db) <= eps) db = 0;
    if (da >= 0 && db >= 0) continue;  // on the cut (resolved: on both sides' boundary), or beyond it
    ReflexEdge k = e;
    if (da > 0) k.a = e.a + (e.b - e.a) * (da / (da - db));
    if (db > 0) k.b = e.a + (e.b - e.a) * (da / (da - db));
    if ((k.b - k.a).norm() > eps) out.reflex.push_back(k);
  }
  return out;
}

// Above this many planes a piece's bounds are the mesh's (the corners' search below is cubic in the planes).
constexpr size_t kMaxPlanesForCorners = 64;

// The corners of the convex polyhedron {n·x <= d} within the box (brute force over plane triples; few planes).
bool polyhedron_bounds(const std::vector<Plane>& planes, const Vec3& box_lo, const Vec3& box_hi, double eps, Vec3& lo,
                       Vec3& hi) {
  if (planes.size() > kMaxPlanesForCorners) {
    lo = box_lo, hi = box_hi;
    return true;
  }
  std::vector<Plane> all = planes;
  for (int a = 0; a < 3; ++a) {
    Vec3 e = Vec3::Zero();
    e[a] = 1;
    all.push_back({e, box_hi[a]});
    all.push_back({-e, -box_lo[a]});
  }
  lo = Vec3::Constant(1e300), hi = Vec3::Constant(-1e300);
  const size_t n = all.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      for (size_t k = j + 1; k < n; ++k) {
        Mat3 A;
        A.row(0) = all[i].n, A.row(1) = all[j].n, A.row(2) = all[k].n;
        if (std::abs(A.determinant()) < 1e-9) continue;
        const Vec3 x = A.inverse() * Vec3(all[i].d, all[j].d, all[k].d);
        bool inside = true;
        for (const Plane& p : all) inside = inside && signed_distance(p, x) <= eps;
        if (inside) lo = lo.cwiseMin(x), hi = hi.cwiseMax(x);
      }
  return (lo.array() <= hi.array()).all();
}

}  // namespace

std::vector<ConvexPiece> convex_pieces(const MeshLevelSet& mesh, const SourceLocation& where, int max_pieces) {
  const double extent = (mesh.hi - mesh.lo).maxCoeff();
  const double eps = 1e-9 * extent, min_area = 1e-12 * extent * extent;
  const FacePlanes fp = face_planes(mesh, eps, where);
  // Below this a piece is rounding, and the pieces' volumes must add up to the mesh's within it (per piece: the
  // polyhedron clip and the mesh's divergence sum add different tetrahedra, ~1e-15 relative each).
  const double volume_tol = 1e-9 * mesh.volume;
  const Vec3 box_lo = mesh.lo - Vec3::Constant(eps), box_hi = mesh.hi + Vec3::Constant(eps);
  auto fail = [&](const std::string& why) {
    throw GeometryError(where, "a mesh that splits into convex pieces (split: convex), but '" + mesh.path + "' " + why);
  };

  Region whole;
  for (size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    whole.faces.push_back({{mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]]}, fp.of_triangle[t]});
  }
  whole.reflex = reflex_edges(mesh, fp, eps);

  std::vector<ConvexPiece> pieces;
  std::vector<Region> stack{whole};
  // Every cut leaves solid on its inner side, so regions stay within a few per piece; the cap only bounds the work.
  const int max_regions = 16 * max_pieces;
  for (int regions = 0; !stack.empty(); ++regions) {
    if (regions > max_regions)
      fail("needs more than " + std::to_string(max_pieces) + " pieces; leave it whole (split: none)");
    Region r = std::move(stack.back());
    stack.pop_back();
    if (r.depth > static_cast<int>(fp.planes.size())) fail("did not resolve (a cut plane repeated)");
    int cut_plane = -1;
    if (!r.reflex.empty()) {
      // The face plane holding the most reflex edges still inside: one cut resolves them all (the lowest index on a
      // tie, so the split is deterministic).
      std::map<int, int> holds;
      for (const ReflexEdge& e : r.reflex) ++holds[e.planes[0]], ++holds[e.planes[1]];
      int best = 0;
      for (const auto& [p, count] : holds)
        if (count > best) best = count, cut_plane = p;
    } else {
      // No reflex edge inside: the solid here is convex components, each the intersection of the region's cuts and
      // the planes of its faces. One component is exactly the intersection of all of them; two or more (disjoint
      // convex sets) leave that intersection without volume, and are cut apart along a face plane.
      std::vector<Plane> planes = r.cuts;
      std::vector<char> used(fp.planes.size(), 0);
      for (const Polygon& f : r.faces)
        if (!used[f.plane]) used[f.plane] = 1, planes.push_back(fp.planes[f.plane]);
      const RawMoments hull = convex_polyhedron_moments(planes, box_lo, box_hi);
      // No surface inside: the region lies wholly inside the solid or wholly outside; its centroid says which.
      const bool solid = hull.m0 > volume_tol &&
                         (!r.faces.empty() || mesh_closest(mesh, hull.m1 / hull.m0).distance < 0);
      if (solid) {
        ConvexPiece piece;
        piece.planes = planes;
        piece.volume = hull.m0;
        if (!polyhedron_bounds(planes, mesh.lo, mesh.hi, eps, piece.lo, piece.hi)) fail("gave a piece with no corner");
        pieces.push_back(std::move(piece));
        if (static_cast<int>(pieces.size()) > max_pieces)
          fail("needs more than " + std::to_string(max_pieces) + " pieces; leave it whole (split: none)");
        continue;
      }
      for (const Polygon& f : r.faces) {
        if (cut_plane >= 0) break;
        const Plane& pl = fp.planes[f.plane];
        bool below = false, above = false;
        for (const Polygon& g : r.faces)
          for (const Vec3& x : g.points) {
            const double s = signed_distance(pl, x);
            below = below || s < -eps;
            above = above || s > eps;
          }
        if (below && above) cut_plane = f.plane;
      }
      // No face plane parts them: slivers of rounding, or parts only an edge-edge plane separates (then the
      // volume check below fails).
      if (cut_plane < 0) continue;
    }
    const Plane& pl = fp.planes[cut_plane];
    Region inner = side_of(r, pl, fp, eps, min_area);
    Region outer = side_of(r, Plane{-pl.n, -pl.d}, fp, eps, min_area);
    stack.push_back(std::move(outer));
    stack.push_back(std::move(inner));
  }
  double total = 0;
  for (const ConvexPiece& p : pieces) total += p.volume;
  if (!(std::abs(total - mesh.volume) <= volume_tol * std::max<size_t>(pieces.size(), 1)))
    fail("gave pieces of total volume " + std::to_string(total) + " m^3 for a solid of " +
         std::to_string(mesh.volume) + " m^3");
  return pieces;
}

}  // namespace vcsim::geo
