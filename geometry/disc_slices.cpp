#include "geometry/disc_slices.h"

#include <algorithm>
#include <cmath>

namespace vcsim::geo {
namespace {


// Green's theorem on a straight piece p → q: the forms ½(x dy − y dx), ½x² dy, −½y² dx, ⅓x³ dy,
// ½x²y dy, −⅓y³ dx are cubic in the parameter, so two Gauss points are exact.
void add_segment(const Vec2& p, const Vec2& q, SliceMoments& m) {
  const Vec2 d = q - p;
  for (double t : {0.5 - 0.5 / std::sqrt(3.0), 0.5 + 0.5 / std::sqrt(3.0)}) {
    const double x = p.x() + t * d.x(), y = p.y() + t * d.y(), w = 0.5;
    m.a += w * 0.5 * (x * d.y() - y * d.x());
    m.x += w * 0.5 * x * x * d.y();
    m.y -= w * 0.5 * y * y * d.x();
    m.xx += w * x * x * x * d.y() / 3;
    m.xy += w * 0.5 * x * x * y * d.y();
    m.yy -= w * y * y * y * d.x() / 3;
  }
}


// The same forms along the circle of radius r from `from` to `to` (counter-clockwise, both on the circle), in closed
// form. The sines and cosines at the ends are their coordinates over r, so only the angle between them takes a
// trigonometric call (these arcs are most of a sliced solid's cost).
void add_arc(double r, const Vec2& from, const Vec2& to, SliceMoments& m) {
  double dt = std::atan2(from.x() * to.y() - from.y() * to.x(), from.dot(to));
  if (dt < 0) dt += 2 * M_PI;
  const double r2 = r * r, r3 = r2 * r, r4 = r3 * r;
  auto F = [&](const Vec2& p, double sign) {
    const double c = p.x() / r, s = p.y() / r, sin2 = 2 * s * c, sin4 = 2 * sin2 * (c * c - s * s);
    m.x += sign * 0.5 * r3 * (s - s * s * s / 3);
    m.y += sign * 0.5 * r3 * (-c + c * c * c / 3);
    m.xx += sign * r4 / 3 * (sin2 / 4 + sin4 / 32);
    m.xy += sign * r4 / 2 * (-c * c * c * c / 4);
    m.yy += sign * r4 / 3 * (-sin2 / 4 + sin4 / 32);
  };
  F(to, 1);
  F(from, -1);
  m.a += 0.5 * r2 * dt;
  m.xx += r4 / 8 * dt;
  m.yy += r4 / 8 * dt;
}

}  // namespace

void clipped_disc_boundary(double r, const std::vector<Line2>& lines, bool* whole, DiscBoundary& out,
                           DiscShape* shape) {
  *whole = false;
  out.n_ = 0;
  if (shape) shape->known = false, shape->n = 0;
  if (!(r > 0)) return;
  // The polygon of the lines, inside a square around the disc (counter-clockwise). Each line adds at most one
  // vertex, so it fits buffers on the stack for up to 60 lines (a slice is clipped thousands of times a query; the
  // thread-local vectors this replaced cost a TLS lookup at every use in the position-independent library).
  const double L = 1.01 * r;
  constexpr size_t kOnStack = DiscBoundary::kOnStack;
  Vec2 stack_a[kOnStack], stack_b[kOnStack];
  std::vector<Vec2> heap_a, heap_b;
  Vec2 *poly = stack_a, *next = stack_b;
  // With a shape wanted: the line each polygon edge (from vertex k to k + 1) lies on, −2 for the square's.
  int ids_a[kOnStack], ids_b[kOnStack];
  int *edge = ids_a, *next_edge = ids_b;
  const bool track = shape && lines.size() + 4 <= kOnStack;
  out.data_ = out.stack_;
  if (lines.size() + 4 > kOnStack) {
    heap_a.resize(lines.size() + 4), heap_b.resize(lines.size() + 4);
    poly = heap_a.data(), next = heap_b.data();
    out.heap_.resize(lines.size() + 4);
    out.data_ = out.heap_.data();
  }
  poly[0] = {-L, -L}, poly[1] = {L, -L}, poly[2] = {L, L}, poly[3] = {-L, L};
  size_t n = 4;
  if (track) edge[0] = edge[1] = edge[2] = edge[3] = -2;
  for (size_t j = 0; j < lines.size(); ++j) {
    const Line2& ln = lines[j];
    if (ln.b >= r) continue;  // clear of the disc: it cuts only the square's corners, outside the disc
    if (ln.b <= -r) return;  // the disc lies wholly outside it
    size_t m = 0;
    for (size_t k = 0; k < n; ++k) {
      const Vec2& a = poly[k];
      const Vec2& b = poly[k + 1 == n ? 0 : k + 1];
      const double da = ln.g.dot(a) - ln.b, db = ln.g.dot(b) - ln.b;
      // Each vertex kept or made carries the line of the edge leaving it: an edge's own past a vertex kept or an
      // entry, this line's past an exit.
      if (da <= 0) {
        if (track) next_edge[m] = edge[k];
        next[m++] = a;
      }
      if ((da < 0 && db > 0) || (da > 0 && db < 0)) {
        if (track) next_edge[m] = da < 0 ? static_cast<int>(j) : edge[k];
        next[m++] = a + (b - a) * (da / (da - db));
      }
    }
    std::swap(poly, next);
    std::swap(edge, next_edge);
    n = m;
    if (n < 3) return;
  }
  for (size_t k = 0; k < n; ++k) {
    const Vec2 p = poly[k], d = poly[(k + 1) % n] - p;
    const double A = d.squaredNorm(), B = p.dot(d), C = p.squaredNorm() - r * r;
    const double disc = B * B - A * C;
    if (A == 0 || disc <= 0) continue;
    const double sq = std::sqrt(disc);
    const double lo = std::max(0.0, (-B - sq) / A), hi = std::min(1.0, (-B + sq) / A);
    if (!(lo < hi)) continue;
    out.data_[out.n_++] = {p + lo * d, p + hi * d, hi < 1.0};
    if (track && shape->n < DiscShape::kMaxPieces)
      shape->pieces[static_cast<size_t>(shape->n++)] = {edge[k], lo > 0 ? -1 : edge[(k + n - 1) % n],
                                                        hi < 1.0 ? -1 : edge[(k + 1) % n]};
  }
  if (track && out.n_ > 0 && static_cast<size_t>(shape->n) == out.n_) {
    shape->known = true, shape->lines = lines.size();
    for (int k = 0; k < shape->n; ++k) {  // a piece on the square or ended by it (outside the disc): not reused
      const DiscShape::Piece& pc = shape->pieces[static_cast<size_t>(k)];
      shape->known = shape->known && pc.line >= 0 && pc.from >= -1 && pc.to >= -1;
    }
  }
  if (out.empty()) {
    *whole = true;
    for (const Line2& ln : lines) *whole = *whole && ln.b >= 0;
  }
}

bool shaped_disc_boundary(double r, const std::vector<Line2>& lines, const DiscShape& shape, DiscBoundary& out) {
  out.n_ = 0;
  out.data_ = out.stack_;
  if (!shape.known || lines.size() != shape.lines) return false;
  // A line that holds the whole disc outside need not have passed a break: a plane through the torus's axis jumps from
  // clear of the meridian disc to beyond it where the plane turns parallel to the disc (tests/geometry_mesh_prisms_test,
  // the torus on an L block).
  for (const Line2& l : lines)
    if (l.b <= -r) return false;
  const double r2 = r * r;
  // Where a vertex's two lines meet, or where a line enters (−) or leaves (+) the disc along its direction
  // t = (−g_y, g_x) (the boundary runs counter-clockwise with the inside, g·x < b, on its left).
  auto vertex = [&](int i, int j, Vec2& x) {
    const Line2 &a = lines[static_cast<size_t>(i)], &b = lines[static_cast<size_t>(j)];
    const double det = a.g.x() * b.g.y() - a.g.y() * b.g.x();
    if (det == 0) return false;
    x = Vec2(a.b * b.g.y() - b.b * a.g.y(), a.g.x() * b.b - b.g.x() * a.b) * (1 / det);
    return x.squaredNorm() <= r2;
  };
  auto crossing = [&](int j, double side, Vec2& x) {
    const Line2& l = lines[static_cast<size_t>(j)];
    const double h2 = r2 - l.b * l.b;
    if (!(h2 > 0)) return false;
    x = l.b * l.g + side * std::sqrt(h2) * Vec2(-l.g.y(), l.g.x());
    return true;
  };
  for (int k = 0; k < shape.n; ++k) {
    const DiscShape::Piece& pc = shape.pieces[static_cast<size_t>(k)];
    DiscPiece& piece = out.data_[k];
    const bool ok = (pc.from < 0 ? crossing(pc.line, -1, piece.p) : vertex(pc.from, pc.line, piece.p)) &&
                    (pc.to < 0 ? crossing(pc.line, 1, piece.q) : vertex(pc.line, pc.to, piece.q));
    const Line2& l = lines[static_cast<size_t>(pc.line)];
    if (!ok || !((piece.q - piece.p).dot(Vec2(-l.g.y(), l.g.x())) > 0)) return false;
    piece.ends_on_circle = pc.to < 0;
  }
  out.n_ = static_cast<size_t>(shape.n);
  return true;
}

SliceMoments disc_moments(double r, const std::vector<Line2>& lines) {
  SliceMoments m;
  bool whole;
  DiscBoundary pieces;
  clipped_disc_boundary(r, lines, &whole, pieces);
  if (pieces.empty()) return uncut_disc<SliceMoments>(r, whole);
  for (size_t k = 0; k < pieces.size(); ++k) {
    add_segment(pieces[k].p, pieces[k].q, m);
    if (pieces[k].ends_on_circle) add_arc(r, pieces[k].q, pieces[(k + 1) % pieces.size()].p, m);
  }
  return m;
}

void add_roots(double a, double b, double c, double lo, double hi, std::vector<double>& out) {
  const double disc = b * b - a * c;
  if (a == 0 || disc < 0) return;
  const double q = -(b + std::copysign(std::sqrt(disc), b));
  for (double t : {q / a, q != 0 ? c / q : -b / a})
    if (t > lo && t < hi) out.push_back(t);
}


SliceMoments shifted(const SliceMoments& s, const Vec2& e) {
  SliceMoments o;
  o.a = s.a;
  o.x = s.x + s.a * e.x();
  o.y = s.y + s.a * e.y();
  o.xx = s.xx + 2 * e.x() * s.x + e.x() * e.x() * s.a;
  o.xy = s.xy + e.x() * s.y + e.y() * s.x + e.x() * e.y() * s.a;
  o.yy = s.yy + 2 * e.y() * s.y + e.y() * e.y() * s.a;
  return o;
}

SliceMoments difference(const SliceMoments& p, const SliceMoments& q) {
  return {p.a - q.a, p.x - q.x, p.y - q.y, p.xx - q.xx, p.xy - q.xy, p.yy - q.yy};
}

}  // namespace vcsim::geo
