// A disc clipped by lines, integrated in closed form: the slices of the exact interference moments
// (geometry/exact_interference.cpp slices a ball or a cylinder's neighbourhood across an axis;
// geometry/torus_planes.cpp takes a torus's meridian discs around its ring). Internal to geometry/.
#pragma once
#include <Eigen/Core>
#include <array>
#include <cmath>
#include <vector>

namespace vcsim::geo {

using Vec2 = Eigen::Vector2d;

struct Line2 {
  Vec2 g;  // unit
  double b;  // the half-plane g·x <= b
};

// ∫ over a slice of {1, x, y, x², xy, y²}.
struct SliceMoments {
  double a = 0, x = 0, y = 0, xx = 0, xy = 0, yy = 0;
};

// The boundary of the disc of radius r (centred at the origin) clipped by lines: the lines' polygon's edges inside
// the disc, in counter-clockwise order, each flagged when an arc of the circle follows it. Empty when no edge
// reaches into the disc; *whole then says whether the disc lies wholly inside every line (else nothing is left).
struct DiscPiece {
  Vec2 p, q;
  bool ends_on_circle;
};
// Which line each piece lies on and what ends it, a vertex with a neighbouring piece's line or the circle: slices
// between two breaks of a swept solid keep one shape (geometry/torus_planes.cpp), so the polygon clip runs for one of
// them and the others solve their pieces' ends directly (a torus's prism clips: 3–4 lines cut most slices, and the
// clip was a quarter of the query).
struct DiscShape {
  struct Piece {
    int line, from, to;  // from, to: the line whose vertex starts or ends the piece, −1 for the circle
  };
  static constexpr int kMaxPieces = 16;
  bool known = false;  // captured (false also where a shape cannot be reused: no piece, or too many)
  size_t lines = 0;    // how many lines it was captured with
  int n = 0;
  std::array<Piece, kMaxPieces> pieces;
};

// The pieces, on the stack for up to 60 lines (a slice is clipped thousands of times a query: a vector per slice
// was a tenth of a sliced clip's time).
class DiscBoundary {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const DiscPiece& operator[](size_t k) const { return data_[k]; }

 private:
  friend void clipped_disc_boundary(double, const std::vector<Line2>&, bool*, DiscBoundary&, DiscShape*);
  friend bool shaped_disc_boundary(double, const std::vector<Line2>&, const DiscShape&, DiscBoundary&);
  static constexpr size_t kOnStack = 64;
  DiscPiece stack_[kOnStack];
  std::vector<DiscPiece> heap_;
  DiscPiece* data_ = stack_;
  size_t n_ = 0;
};
// With `shape`, also the boundary's shape (DiscShape).
void clipped_disc_boundary(double r, const std::vector<Line2>& lines, bool* whole, DiscBoundary& out,
                           DiscShape* shape = nullptr);
// The boundary of a slice of the same shape, from the lines alone; false (and `out` unusable) where the shape no
// longer fits: a vertex left the disc, a line no longer reaches it, or a piece turned around.
bool shaped_disc_boundary(double r, const std::vector<Line2>& lines, const DiscShape& shape, DiscBoundary& out);

// The moments of the disc of radius r (centred at the origin) clipped by the lines.
SliceMoments disc_moments(double r, const std::vector<Line2>& lines);

// A disc that no line crosses: whole when it lies inside every line (its odd moments vanish), else empty.
template <class Moments>
Moments uncut_disc(double r, bool whole) {
  Moments m;
  if (whole) {
    m.a = M_PI * r * r;
    m.xx = m.yy = M_PI * r * r * r * r / 4;
  }
  return m;
}

// Roots of a t² + 2 b t + c = 0 inside (lo, hi).
void add_roots(double a, double b, double c, double lo, double hi, std::vector<double>& out);

// 8-point Gauss–Legendre on [0, 1], used through τ = p + (q − p)(3t² − 2t³): the map's vanishing slope
// at both ends absorbs the (τ − τ*)^(3/2) behaviour of a slice's area at a tangency.
inline constexpr double kGaussX[8] = {0.0198550717512319, 0.1016667612931866, 0.2372337950418355,
                                      0.4082826787521751, 0.5917173212478249, 0.7627662049581645, 0.8983332387068134, 0.9801449282487681};
inline constexpr double kGaussW[8] = {0.0506142681451881, 0.1111905172266872, 0.1568533229389436,
                                      0.1813418916891810, 0.1813418916891810, 0.1568533229389436, 0.1111905172266872, 0.0506142681451881};

// 6-point Gauss–Legendre on [0, 1].
inline constexpr double kGauss6X[6] = {0.0337652428984240, 0.1693953067668677, 0.3806904069584015,
                                       0.6193095930415985, 0.8306046932331323, 0.9662347571015760};
inline constexpr double kGauss6W[6] = {0.0856622461895852, 0.1803807865240693, 0.2339569672863456,
                                       0.2339569672863456, 0.1803807865240693, 0.0856622461895852};

// The rule a sliced closed form takes between its break points. The fine rule is the closed forms' own (~1e-7 and
// better, docs/geometry.md); the coarse one serves queries at a tolerance of 1e-3 or looser where a solid is clipped
// many times (a mesh's prisms): on 500–1 000 random prisms per solid it left at most 1.3e-5 of V, the centroid
// (over V^⅓) or J (tests/geometry_primitive_planes_test.cpp, "the coarse slice rule"), for 3/4 of the slices.
struct SliceRule {
  int n;
  const double* x;
  const double* w;
};
inline constexpr SliceRule kFineSlices{8, kGaussX, kGaussW};
inline constexpr SliceRule kCoarseSlices{6, kGauss6X, kGauss6W};
inline SliceRule slice_rule(double tolerance) { return tolerance >= 1e-3 ? kCoarseSlices : kFineSlices; }

// Slice moments of a region moved by e.
SliceMoments shifted(const SliceMoments& s, const Vec2& e);
SliceMoments difference(const SliceMoments& p, const SliceMoments& q);

}  // namespace vcsim::geo
