// The definitions of tests/geometry_support.h (see there).
#include "tests/geometry_support.h"

namespace geometry_support {

Cell make_cell(const std::vector<Primitive>& prims) {
  CsgNode root;
  if (prims.size() == 1) {
    root.primitive = prims[0];
  } else {
    root.op = CsgNode::Op::Intersection;
    for (const Primitive& p : prims) {
      CsgNode c;
      c.primitive = p;
      c.where.key_path = "test.child";
      root.children.push_back(c);
    }
  }
  root.where.key_path = "test";
  return make_body_geometry(root, "").cells.at(0);
}

Primitive primitive(PrimitiveKind kind) {
  Primitive p;
  p.kind = kind;
  return p;
}

Primitive sphere(double r) {
  Primitive p = primitive(PrimitiveKind::Sphere);
  p.radius = r;
  return p;
}

Primitive ellipsoid(const Vec3& radii) {  // semi-axes
  Primitive p = primitive(PrimitiveKind::Ellipsoid);
  p.radii = radii;
  return p;
}

Primitive box(const Vec3& size, const Pose& pose) {
  Primitive p = primitive(PrimitiveKind::Box);
  p.size = size;
  p.pose = pose;
  return p;
}

Primitive halfspace(const Pose& pose) {
  Primitive p = primitive(PrimitiveKind::HalfSpace);
  p.pose = pose;
  return p;
}

Cell cell_with_holes(const Primitive& solid, const std::vector<Primitive>& holes) {
  CsgNode root, s;
  root.op = CsgNode::Op::Intersection;
  root.where.key_path = s.where.key_path = "test.hole";
  s.primitive = solid;
  root.children = {s};
  for (const Primitive& hole : holes) {
    CsgNode h, inner;
    h.op = CsgNode::Op::Complement;
    inner.primitive = hole;
    h.where.key_path = inner.where.key_path = "test.hole";
    h.children.push_back(inner);
    root.children.push_back(h);
  }
  return make_body_geometry(root, "").cells.at(0);
}

Cell cell_with_hole(const Primitive& solid, const Primitive& hole) { return cell_with_holes(solid, {hole}); }

Cell groove_cell() {
  CsgNode block, b, hole, cyl;
  block.op = CsgNode::Op::Intersection;
  b.primitive = box(Vec3(2.4, 8.0, 1.0), Pose{Vec3(0, 0, 0.3), Quat::Identity()});
  cyl.primitive.kind = PrimitiveKind::InfiniteCylinder;
  cyl.primitive.radius = 1.0;
  cyl.primitive.pose = Pose{Vec3(0, 0, 1.0), Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))};
  hole.op = CsgNode::Op::Complement;
  hole.children.push_back(cyl);
  block.where.key_path = "groove";
  for (CsgNode* c : {&b, &hole, &hole.children[0]}) c->where.key_path = "groove.child";
  block.children = {b, hole};
  return make_body_geometry(block, "").cells.at(0);
}

std::string write_obj(const Solid& s, const std::string& name) {
  const std::string path = (scratch::dir("meshes") / (name + ".obj")).string();
  std::ofstream out(path);
  out.precision(17);
  for (const Vec3& p : s.v) out << "v " << p.x() << " " << p.y() << " " << p.z() << "\n";
  for (const auto& t : s.f) out << "f " << t[0] + 1 << " " << t[1] + 1 << " " << t[2] + 1 << "\n";
  return path;
}

Cell mesh_cell(const std::string& path) {
  Primitive p;
  p.kind = PrimitiveKind::Mesh;
  p.mesh_file = path;
  return make_cell({p});
}

RaysReference mesh_solid_by_rays(const MeshLevelSet& mesh, const Cell& solid, const Pose& pose,
                                 const Pose& frame, double x0, double x1, double y0, double y1, int n) {
  std::vector<lines::Placed> placed;
  for (const auto& cp : solid.impl->prims) placed.push_back(lines::place(cp, frame.compose(pose), Pose{}));
  std::vector<std::array<Vec3, 3>> tris;
  for (const auto& t : mesh.triangles) {
    const std::array<Vec3, 3> w{frame.apply(mesh.vertices[t[0]]), frame.apply(mesh.vertices[t[1]]),
                                frame.apply(mesh.vertices[t[2]])};
    if (std::max({w[0].x(), w[1].x(), w[2].x()}) < x0 || std::min({w[0].x(), w[1].x(), w[2].x()}) > x1 ||
        std::max({w[0].y(), w[1].y(), w[2].y()}) < y0 || std::min({w[0].y(), w[1].y(), w[2].y()}) > y1)
      continue;
    tris.push_back(w);
  }
  RaysReference out;
  const double hx = (x1 - x0) / n, hy = (y1 - y0) / n;
  std::vector<double> zs;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double x = x0 + (i + 0.5) * hx, y = y0 + (j + 0.5) * hy;
      const lines::IntervalList chord =
          lines::cell_line_set(placed, 0, placed.size(), Vec3(x, y, 0), Vec3::UnitZ(), -1e3, 1e3);
      if (chord.n == 0) continue;
      zs.clear();
      for (const auto& t : tris) {
        const Vec3 &a = t[0], &b = t[1], &c = t[2];
        const double det = (b.x() - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (b.y() - a.y());
        if (det == 0) continue;
        const double u = ((x - a.x()) * (c.y() - a.y()) - (c.x() - a.x()) * (y - a.y())) / det;
        const double v = ((b.x() - a.x()) * (y - a.y()) - (x - a.x()) * (b.y() - a.y())) / det;
        if (u < 0 || v < 0 || u + v > 1) continue;
        zs.push_back(a.z() + u * (b.z() - a.z()) + v * (c.z() - a.z()));
      }
      std::sort(zs.begin(), zs.end());
      lines::IntervalList in_mesh;
      for (size_t k = 0; k + 1 < zs.size(); k += 2) in_mesh.push(zs[k], zs[k + 1]);
      const lines::IntervalList both = lines::intersect(chord, in_mesh);
      for (int k = 0; k < both.n; ++k) {
        const double len = both.v[k][1] - both.v[k][0];
        out.volume += len * hx * hy;
        out.centroid += Vec3(x, y, 0.5 * (both.v[k][0] + both.v[k][1])) * len * hx * hy;
      }
    }
  if (out.volume > 0) out.centroid /= out.volume;
  return out;
}

Solid bipyramid(int N, double r, double h) {
  Solid s;
  for (int k = 0; k < N; ++k) s.v.emplace_back(r * std::cos(2 * M_PI * k / N), r * std::sin(2 * M_PI * k / N), 0);
  s.v.emplace_back(0, 0, h);
  s.v.emplace_back(0, 0, -h);
  for (int k = 0; k < N; ++k) {
    s.f.push_back({k, (k + 1) % N, N});
    s.f.push_back({(k + 1) % N, k, N + 1});
  }
  return s;
}

Solid prism(const std::vector<Vec3>& poly, double H, int apex) {
  Solid s;
  const int N = static_cast<int>(poly.size());
  for (const Vec3& p : poly) s.v.emplace_back(p.x(), p.y(), 0);
  for (const Vec3& p : poly) s.v.emplace_back(p.x(), p.y(), H);
  for (int k = 0; k < N; ++k) {
    const int j = (k + 1) % N;
    s.f.push_back({k, j, N + j});
    s.f.push_back({k, N + j, N + k});
  }
  for (int k = 1; k + 1 < N; ++k) {
    const int a = (apex + k) % N, b = (apex + k + 1) % N;
    s.f.push_back({apex, b, a});              // bottom, facing -z
    s.f.push_back({N + apex, N + a, N + b});  // top, facing +z
  }
  return s;
}

Solid star_prism(const std::vector<Vec3>& poly, double H) {
  Solid s;
  const int N = static_cast<int>(poly.size());
  for (const Vec3& p : poly) s.v.emplace_back(p.x(), p.y(), 0);
  for (const Vec3& p : poly) s.v.emplace_back(p.x(), p.y(), H);
  s.v.emplace_back(0, 0, 0);
  s.v.emplace_back(0, 0, H);
  for (int k = 0; k < N; ++k) {
    const int j = (k + 1) % N;
    s.f.push_back({k, j, N + j});
    s.f.push_back({k, N + j, N + k});
    s.f.push_back({2 * N, j, k});          // bottom, facing −z
    s.f.push_back({2 * N + 1, N + k, N + j});  // top, facing +z
  }
  return s;
}

Primitive torus(double R, double r) {
  Primitive p;
  p.kind = PrimitiveKind::Torus;
  p.major_radius = R, p.minor_radius = r;
  return p;
}

QueryOptions column_engine(double tolerance) {
  QueryOptions o;
  o.tolerance = tolerance;
  o.closed_forms = false;
  return o;
}

Primitive rod(PrimitiveKind kind, double radius, double length, double radius_top) {
  Primitive p = primitive(kind);
  p.radius = radius;
  p.length = length;
  p.radius_top = radius_top;
  return p;
}

std::vector<Vec3> star_polygon(int n, double r_outer, double r_inner) {
  std::vector<Vec3> star;
  for (int k = 0; k < 2 * n; ++k) {
    const double r = k % 2 ? r_inner : r_outer, a = M_PI * k / n;
    star.emplace_back(r * std::cos(a), r * std::sin(a), 0);
  }
  return star;
}

double fan_area(const std::vector<Vec3>& poly) {
  double area = 0;
  for (size_t k = 0; k < poly.size(); ++k) area += 0.5 * poly[k].cross(poly[(k + 1) % poly.size()]).z();
  return area;
}

Solid square_tube(double a, double b, double L) {
  Solid tube;
  const Vec3 sq[4] = {{1, 1, 0}, {-1, 1, 0}, {-1, -1, 0}, {1, -1, 0}};
  for (int z = 0; z < 2; ++z)
    for (const double r : {a, b})
      for (const Vec3& c : sq) tube.v.emplace_back(r * c.x(), r * c.y(), z * L);
  // index: z*8 + (outer? 0 : 4) + corner
  auto id = [](int z, int inner, int k) { return z * 8 + inner * 4 + (k % 4); };
  for (int k = 0; k < 4; ++k) {
    tube.f.push_back({id(0, 0, k), id(0, 0, k + 1), id(1, 0, k + 1)});  // outer wall, facing out
    tube.f.push_back({id(0, 0, k), id(1, 0, k + 1), id(1, 0, k)});
    tube.f.push_back({id(0, 1, k + 1), id(0, 1, k), id(1, 1, k)});      // inner wall, facing the hole
    tube.f.push_back({id(0, 1, k + 1), id(1, 1, k), id(1, 1, k + 1)});
    tube.f.push_back({id(1, 0, k), id(1, 0, k + 1), id(1, 1, k + 1)});  // top ring, facing +z
    tube.f.push_back({id(1, 0, k), id(1, 1, k + 1), id(1, 1, k)});
    tube.f.push_back({id(0, 0, k + 1), id(0, 0, k), id(0, 1, k)});      // bottom ring, facing −z
    tube.f.push_back({id(0, 0, k + 1), id(0, 1, k), id(0, 1, k + 1)});
  }
  return tube;
}

Solid box_solid(const Vec3& lo, const Vec3& hi) {
  Solid s = prism({Vec3(lo.x(), lo.y(), 0), Vec3(hi.x(), lo.y(), 0), Vec3(hi.x(), hi.y(), 0), Vec3(lo.x(), hi.y(), 0)},
                  hi.z() - lo.z(), 0);
  for (Vec3& p : s.v) p.z() += lo.z();
  return s;
}

void gauss_legendre(int n, std::vector<double>& x, std::vector<double>& w) {
  x.assign(n, 0), w.assign(n, 0);
  for (int i = 0; i < n; ++i) {
    double t = std::cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = t;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
        p0 = p1, p1 = p2;
      }
      dp = n * (t * p1 - p0) / (t * t - 1);
      const double dt = p1 / dp;
      t -= dt;
      if (std::abs(dt) < 1e-16) break;
    }
    x[i] = t, w[i] = 2 / ((1 - t * t) * dp * dp);
  }
}

CrossedReference crossed_cylinders(double a, double b, double h) {
  const int n = 400;
  std::vector<double> x, w;
  gauss_legendre(n, x, w);
  const double z0 = h - b, z1 = a, m = 0.5 * (z0 + z1), half = 0.5 * (z1 - z0);
  double V = 0, Mz = 0, Ixx = 0, Iyy = 0, Izz = 0;
  for (int i = 0; i < n; ++i) {
    const double theta = 0.5 * M_PI * (x[i] + 1), wt = w[i] * 0.5 * M_PI * half * std::sin(theta);
    const double z = m - half * std::cos(theta);
    const double Y = std::sqrt(std::max(a * a - z * z, 0.0)), X = std::sqrt(std::max(b * b - (z - h) * (z - h), 0.0));
    V += wt * 4 * X * Y, Mz += wt * 4 * X * Y * z, Izz += wt * 4 * X * Y * z * z;
    Ixx += wt * 4.0 / 3 * X * X * X * Y, Iyy += wt * 4.0 / 3 * X * Y * Y * Y;
  }
  CrossedReference r;
  r.V = V, r.zc = Mz / V, r.xx = Ixx, r.yy = Iyy, r.zz = Izz - V * r.zc * r.zc;
  return r;
}

double height_for_volume(const Cell& a, const Pose& pa, const Cell& b, const Quat& qb, const Vec3& at,
                         double target, double lo, double hi, int iterations, const QueryOptions& options) {
  for (int it = 0; it < iterations; ++it) {
    const double z = 0.5 * (lo + hi);
    (interference(a, pa, b, Pose{at + Vec3(0, 0, z), qb}, options).volume > target ? lo : hi) = z;
  }
  return hi;
}

MomentsReference moments_from_raw(double V, const Vec3& m1, const Mat3& m2) {
  MomentsReference r;
  r.V = V, r.c = m1 / V;
  const Mat3 S = m2 - V * r.c * r.c.transpose();  // second moments about the centroid
  r.J = S.trace() * Mat3::Identity() - S;
  return r;
}

MomentsReference moments_of(const Interference& q) {
  MomentsReference r;
  r.V = q.volume, r.c = q.centroid, r.J = q.inertia;
  return r;
}

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

Smoothness smoothness(const std::vector<double>& V, const std::vector<double>& Vx) {
  Smoothness s;
  for (size_t k = 0; k + 2 < V.size(); ++k) {
    if (!(V[k + 1] > V[k])) ++s.non_increasing;
    const double d2 = V[k + 2] - 2 * V[k + 1] + V[k], d2x = Vx[k + 2] - 2 * Vx[k + 1] + Vx[k];
    s.worst = std::max(s.worst, std::abs(d2 - d2x) / std::abs(V[k + 1] - V[k]));
  }
  return s;
}

std::vector<double> lowered_volumes(const Cell& a, const Pose& pa, const Cell& b, const Quat& qb, const Vec3& at,
                                    double hi, int n, double step) {
  std::vector<double> V(n);
  for (int k = 0; k < n; ++k) V[k] = interference(a, pa, b, Pose{at + Vec3(0, 0, hi - k * step), qb}).volume;
  return V;
}

Smoothness third_differences(const std::vector<double>& V) {
  Smoothness s;
  for (size_t k = 0; k + 3 < V.size(); ++k) {
    if (!(V[k + 1] > V[k])) ++s.non_increasing;
    const double d3 = V[k + 3] - 3 * V[k + 2] + 3 * V[k + 1] - V[k];
    s.worst = std::max(s.worst, std::abs(d3) / (V[k + 1] - V[k]));
  }
  return s;
}

MomentsReference chords_moments(const Cell& a, const Pose& pa, const Cell& b, const Pose& pb,
                                const Interference& near, int n) {
  const Pose frame{near.centroid, Quat::FromTwoVectors(Vec3::UnitZ(), near.normal_estimate.normalized())};
  std::vector<lines::Placed> prims;
  for (const CellPrimitive& cp : a.impl->prims) prims.push_back(lines::place(cp, pa, frame));
  const size_t na = prims.size();
  for (const CellPrimitive& cp : b.impl->prims) prims.push_back(lines::place(cp, pb, frame));
  Vec3 lo, hi, lo_b, hi_b;
  lines::placed_cell_bounds(prims, 0, na, lo, hi);
  lines::placed_cell_bounds(prims, na, prims.size(), lo_b, hi_b);
  lo = lo.cwiseMax(lo_b), hi = hi.cwiseMin(hi_b);
  double x0 = lo.x(), x1 = hi.x(), y0 = lo.y(), y1 = hi.y(), V = 0;
  Vec3 m1 = Vec3::Zero();
  Mat3 m2 = Mat3::Zero();
  for (int count : {400, n}) {
    const double hx = (x1 - x0) / count, hy = (y1 - y0) / count;
    double fx0 = 1e300, fx1 = -1e300, fy0 = 1e300, fy1 = -1e300;
    V = 0, m1.setZero(), m2.setZero();
    for (int i = 0; i < count; ++i)
      for (int j = 0; j < count; ++j) {
        const double x = x0 + (i + 0.5) * hx, y = y0 + (j + 0.5) * hy;
        const auto set = lines::cell_line_set(prims, 0, prims.size(), Vec3(x, y, 0), Vec3::UnitZ(), lo.z() - 1e-3,
                                              hi.z() + 1e-3);
        double length = 0, z1 = 0, z2 = 0;  // ∫dz, ∫z dz, ∫z² dz
        for (int k = 0; k < set.n; ++k) {
          const double s = set.v[k][0], e = set.v[k][1];
          length += e - s, z1 += (e * e - s * s) / 2, z2 += (e * e * e - s * s * s) / 3;
        }
        if (!(length > 0)) continue;
        const double dA = hx * hy;
        V += length * dA;
        m1 += Vec3(x * length, y * length, z1) * dA;
        Mat3 t;
        t << x * x * length, x * y * length, x * z1, x * y * length, y * y * length, y * z1, x * z1, y * z1, z2;
        m2 += t * dA;
        // Four cells beyond the last one met: a sliver narrower than the first grid's cells (a cone's tip through the
        // other cell, ~1.4 cells long where it is narrower than one) would otherwise fall outside the second grid.
        fx0 = std::min(fx0, x - 4 * hx), fx1 = std::max(fx1, x + 4 * hx), fy0 = std::min(fy0, y - 4 * hy),
        fy1 = std::max(fy1, y + 4 * hy);
      }
    if (fx0 > fx1) return {};
    x0 = std::max(x0, fx0), x1 = std::min(x1, fx1), y0 = std::max(y0, fy0), y1 = std::min(y1, fy1);
  }
  // From the frame to the world: x = R x_f + t.
  const Mat3 R = frame.rotation.toRotationMatrix();
  const Vec3 t = frame.position, r1 = R * m1;
  const Mat3 w2 = R * m2 * R.transpose() + r1 * t.transpose() + t * r1.transpose() + V * t * t.transpose();
  return moments_from_raw(V, r1 + V * t, w2);
}

double chords_volume(const Cell& a, const Pose& pa, const Cell& b, const Pose& pb, const Interference& near, int n) {
  return chords_moments(a, pa, b, pb, near, n).V;
}

}  // namespace geometry_support
