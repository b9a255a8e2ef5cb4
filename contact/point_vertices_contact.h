// The per-vertex point contact model ("point_vertices"): the way point-contact engines (MuJoCo, Bullet, ADAMS with
// Sandia's witness pairs, LaFarge & Lewis 1998) treat boxes and meshes. Every vertex of either body's polyhedral
// primitives (box corners, mesh vertices: geometry/vertices.h) that lies inside a cell of the other body is its own
// point contact: depth δ = −φ (φ the cell's signed distance at the vertex), normal the cell's outward distance
// gradient, and the point model's law at that vertex (Hertz/Sandia normal force k δ^n with Gonthier's or Sandia's
// damping, bristle friction with the vertex's own five states; contact/point_contact.h). The wrenches are summed in
// the fixed vertex order. Formulas and limits (no edge–edge contact, stiffness grows with the vertex count):
// docs/contact-models.md, "Per-vertex point model".
#pragma once
#include <vector>

#include "contact/point_contact.h"
#include "geometry/interference.h"
#include "geometry/vertices.h"

namespace vcsim::contact {

class PointVerticesContact : public ContactPair {
 public:
  // Geometries in each body's centre-of-mass frame. Throws std::invalid_argument when neither body has vertices.
  PointVerticesContact(const ModelParams& params, const geo::BodyGeometry& geometry_i,
                       const geo::BodyGeometry& geometry_j);

  int num_states() const override { return PointContact::kStates * static_cast<int>(vertices_.size()); }
  void initial_states(double* states) const override;
  void start_placed(double* states, bool stuck, const Vec3& bristle) const override {
    for (size_t k = 0; k < vertices_.size(); ++k) point_law_start_placed(states + PointContact::kStates * k, stuck, bristle);
  }
  void state_scales(double* scales) const override {
    for (size_t v = 0; v < vertices_.size(); ++v) point_law_state_scales(p_, scales + v * PointContact::kStates);
  }
  std::vector<Channel> channels() const override;
  void evaluate(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, const double* states,
                double* state_derivatives, ContactResult& result) const override;
  void accept_step(double t, const BodyKinematics& body_i, const BodyKinematics& body_j, double* states) override;

  struct Vertex {
    int side = 0;  // 0: a vertex of body i tested against body j's cells; 1: a vertex of body j against body i's
    Vec3 position = Vec3::Zero();  // in its own body's centre-of-mass frame
  };
  const std::vector<Vertex>& vertices() const { return vertices_; }

  // Central-difference step of the normal (gradient of the cell's signed distance), m.
  static constexpr double kGradientStep = 1e-6;

 private:
  struct Touch {  // one vertex against the other body, in the world frame
    Vec3 point = Vec3::Zero();
    double x = 0;               // signed separation (< 0: inside)
    Vec3 n = Vec3::UnitZ();     // unit normal from body j toward body i
    Vec3 v_r = Vec3::Zero();    // v_i(p) − v_j(p)
  };
  // always_normal: the normal also outside (accept_step: v_n before the onset, to interpolate the impact velocity).
  Touch touch(const Vertex& v, const BodyKinematics& bi, const BodyKinematics& bj, bool always_normal) const;

  ModelParams p_;
  geo::BodyGeometry geometry_i_, geometry_j_;
  std::vector<Vertex> vertices_;
  std::vector<PointMemory> memory_;  // per vertex, changes only in accept_step
};

}  // namespace vcsim::contact
