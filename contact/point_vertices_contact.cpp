#include "contact/point_vertices_contact.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "contact/contact_diagnostics.h"

namespace vcsim::contact {
namespace {

// Dimension of the set of contacting vertices seen along n: principal standard deviations σ_a ≥ σ_b of their
// positions in the tangent plane. One vertex or all within 1 µm: point (0); σ_b < σ_a/κ: line (1) (an edge's two
// corners); else surface (2) (a face's four). κ = kDimensionRatio, as for the volumetric model's region.
double vertex_dimension(const std::vector<Vec3>& pts, const Vec3& n) {
  if (pts.empty()) return -1;
  Vec3 mean = Vec3::Zero();
  for (const Vec3& p : pts) mean += p;
  mean /= static_cast<double>(pts.size());
  const Vec3 t1 = (std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).cross(n).normalized();
  const Vec3 t2 = n.cross(t1);
  Eigen::Matrix2d C = Eigen::Matrix2d::Zero();
  for (const Vec3& p : pts) {
    const Eigen::Vector2d q((p - mean).dot(t1), (p - mean).dot(t2));
    C += q * q.transpose();
  }
  C /= static_cast<double>(pts.size());
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> es(C);
  const double s_b = std::sqrt(std::max(es.eigenvalues()[0], 0.0)), s_a = std::sqrt(std::max(es.eigenvalues()[1], 0.0));
  if (s_a < 1e-6) return 0;
  return s_b * kDimensionRatio < s_a ? 1 : 2;
}

}  // namespace

PointVerticesContact::PointVerticesContact(const ModelParams& params, const geo::BodyGeometry& geometry_i,
                                           const geo::BodyGeometry& geometry_j)
    : p_(params), geometry_i_(geometry_i), geometry_j_(geometry_j) {
  for (int side = 0; side < 2; ++side) {
    const geo::BodyGeometry& own = side == 0 ? geometry_i : geometry_j;
    const geo::BodyGeometry& other = side == 0 ? geometry_j : geometry_i;
    if (other.cells.empty()) continue;  // nothing to touch
    for (const geo::BodyVertex& v : geo::body_vertices(own)) vertices_.push_back(Vertex{side, v.position});
  }
  if (vertices_.empty())
    throw std::invalid_argument(
        "a body with vertices (a box or mesh primitive) facing a body with cells; neither side has any");
  memory_.resize(vertices_.size());
}

void PointVerticesContact::initial_states(double* s) const {
  for (size_t k = 0; k < vertices_.size(); ++k) point_law_initial_states(p_, s + PointContact::kStates * k);
}

namespace {

// The channels of the point model summed over vertices: x_min the smallest separation (0 if none is finite).
void write_vertices_channels(ChannelRow& row, double x_min, const Vec3& n, double fn_sum, const Vec3& friction,
                             double inside, double vertices, const ContactDiagnostics& d) {
  row.add("penetration", "m", "smallest signed separation over the vertices (negative: the deepest vertex is in)",
          {x_min});
  row.add("normal", "1", "unit sum of the vertices' normal forces f_n n (from body j toward body i)", n);
  row.add("normal_force", "N", "sum of the vertices' normal forces f_n (eq 3.19 per vertex)", {fn_sum});
  row.add("friction_force", "N", "sum of the vertices' friction forces f_t on body i (eq 3.42 per vertex)", friction);
  row.add("contact_vertices", "1", "number of vertices inside the other body", {inside});
  row.add("vertices", "1", "number of vertices of the pair (both sides)", {vertices});
  write_diagnostics(row, d);  // active_pairs = contacting vertices
}

}  // namespace

std::vector<Channel> PointVerticesContact::channels() const {
  const Vec3 zero = Vec3::Zero();
  return channel_names([&](ChannelRow& row) { write_vertices_channels(row, 0, zero, 0, zero, 0, 0, {}); });
}

PointVerticesContact::Touch PointVerticesContact::touch(const Vertex& v, const BodyKinematics& bi,
                                                        const BodyKinematics& bj, bool always_normal) const {
  Touch t;
  const BodyKinematics& own = v.side == 0 ? bi : bj;
  const BodyKinematics& other = v.side == 0 ? bj : bi;
  const geo::BodyGeometry& other_geometry = v.side == 0 ? geometry_j_ : geometry_i_;
  t.point = own.pose.apply(v.position);
  const geo::PointDepth d = geo::point_depth(other_geometry, other.pose, t.point);
  t.x = d.distance;
  if (t.x < 0 || (always_normal && d.cell >= 0 && std::isfinite(t.x))) {
    const Vec3 out = geo::cell_normal(other_geometry.cells[d.cell], other.pose, t.point, kGradientStep);
    t.n = v.side == 0 ? out : Vec3(-out);  // out of body j's cell points toward i; out of body i's, toward j
  }
  t.v_r = point_velocity(bi, t.point) - point_velocity(bj, t.point);
  return t;
}

void PointVerticesContact::evaluate(double, const BodyKinematics& bi, const BodyKinematics& bj, const double* s,
                                    double* ds, ContactResult& r) const {
  constexpr int S = PointContact::kStates;
  Vec3 force = Vec3::Zero(), friction = Vec3::Zero(), nf = Vec3::Zero(), weighted = Vec3::Zero(),
       moment_c = Vec3::Zero();  // moment about body i's centre of mass c, re-expressed about the point below
  const Vec3 c = bi.pose.position;
  double fn_sum = 0, x_min = std::numeric_limits<double>::infinity(), elastic_power = 0, held = 0;
  std::vector<Vec3> inside;
  Vec3 first_n = Vec3::UnitZ();
  for (size_t k = 0; k < vertices_.size(); ++k) {
    const Touch t = touch(vertices_[k], bi, bj, false);
    x_min = std::min(x_min, t.x);
    if (!(t.x < 0)) {
      for (int q = 0; q < S; ++q) ds[S * k + q] = 0;
      continue;
    }
    const PointLawResult law = point_law(p_, memory_[k], t.x, t.n, t.v_r, s + S * k, ds + S * k);
    const Vec3 f = law.f_n * t.n + law.fr.force;
    if (inside.empty()) first_n = t.n;
    inside.push_back(t.point);
    force += f;
    friction += law.fr.force;
    nf += law.f_n * t.n;
    fn_sum += law.f_n;
    weighted += law.f_n * t.point;
    moment_c += (t.point - c).cross(f);
    elastic_power += -law.f_el * t.n.dot(t.v_r);
    held += bristle_energy(p_.friction, law.f_n, law.z - t.n * t.n.dot(law.z));
  }
  // Point of action: the normal-force-weighted mean of the contacting vertices; the rest of the summed moment is a
  // couple about it, so the engine's (point − com) × F + couple equals Σ (p_k − com) × f_k exactly.
  Vec3 point = bi.pose.position;
  if (fn_sum > 0) {
    point = weighted / fn_sum;
  } else if (!inside.empty()) {
    point = Vec3::Zero();
    for (const Vec3& p : inside) point += p;
    point /= static_cast<double>(inside.size());
  }
  const Vec3 couple = moment_c - (point - c).cross(force);
  const Vec3 n = nf.norm() > 0 ? Vec3(nf.normalized()) : first_n;
  r.in_contact = !inside.empty();
  r.force = force;
  r.point = point;
  r.couple = couple;
  r.elastic_power = elastic_power;
  r.bristle_energy = held;
  ContactDiagnostics d;
  if (!inside.empty()) {
    centre_of_pressure(n, force, point, couple, d.center_of_pressure, d.normal_moment);
    d.dimension = vertex_dimension(inside, n);
    d.active_pairs = static_cast<double>(inside.size());
  }
  ChannelRow row(r.channels);
  write_vertices_channels(row, std::isfinite(x_min) ? x_min : 0.0, n, fn_sum, friction,
                          static_cast<double>(inside.size()), static_cast<double>(vertices_.size()), d);
}

void PointVerticesContact::accept_step(double, const BodyKinematics& bi, const BodyKinematics& bj, double* s) {
  for (size_t k = 0; k < vertices_.size(); ++k) {
    const Touch t = touch(vertices_[k], bi, bj, true);
    point_law_accept(p_, memory_[k], t.x, t.n, t.n.dot(t.v_r), s + PointContact::kStates * k);
  }
}

}  // namespace vcsim::contact
