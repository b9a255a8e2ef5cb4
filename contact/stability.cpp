#include "contact/stability.h"

#include <cmath>
#include <sstream>

#include "contact/parameters.h"

namespace vcsim::contact {
namespace {

double inv(double m) { return std::isinf(m) ? 0.0 : 1.0 / m; }

}  // namespace

double impact_load(const ContactLoading& in) {
  const double m = 1.0 / (1.0 / in.mass_i + 1.0 / in.mass_j), v = in.approach_speed, energy = 0.5 * m * v * v;
  if (!(energy > 0) || !std::isfinite(energy)) return 0;
  const auto& np = in.params.normal;
  if (is_point_model(in.model)) {
    const double x = std::pow((np.n + 1) * energy / np.k, 1 / (np.n + 1));
    return np.k * std::pow(x, np.n);
  }
  if (in.radius > 0) {
    const double x = std::cbrt(3 * energy / (np.k * M_PI * in.radius));
    return np.k * M_PI * in.radius * x * x;
  }
  return v * std::sqrt(m * np.k * in.flat_area);
}

std::vector<ContactMode> linear_modes(const ContactLoading& in) {
  std::vector<ContactMode> out;
  // The static load, or without one (no gravity, no load) the peak of an impact at the approach speed: a stiff
  // contact in space sets the stable step as much as one on the ground.
  const double f = in.load > 0 ? in.load : impact_load(in);
  if (!(f > 0)) return out;  // nothing pushes the bodies together: nothing to linearise
  const auto& np = in.params.normal;
  const auto& fp = in.params.friction;

  // Normal mode: the pair's relative motion along n with the reduced mass, linearised at the static load.
  ContactMode normal;
  normal.mode = "normal";
  normal.linear.mass = 1.0 / (inv(in.mass_i) + inv(in.mass_j));
  std::ostringstream why;
  if (is_point_model(in.model)) {
    // f = k x^n (eqs 2.1-2.4, 3.19) at the static depth x_s = (f/k)^(1/n): df/dx = n k^(1/n) f^((n-1)/n).
    // point_vertices: one vertex carrying the whole load (with N vertices sharing it the stiffness is
    // N^(1/n) times larger: the estimate is optimistic by that factor).
    normal.linear.stiffness = np.n * std::pow(np.k, 1 / np.n) * std::pow(f, (np.n - 1) / np.n);
    why << "Hertz df/dx = n k^(1/n) f^((n-1)/n)";
  } else {
    // f = k_v V (eq 4.62): df/dx = k_v A, A the contact area. Curved: a cap of radius R, V = pi R x^2 at the
    // static load, A = 2 pi R x. Flat: A = the face.
    double area = in.flat_area;
    if (in.radius > 0) {
      const double depth = std::sqrt(f / (np.k * M_PI * in.radius));
      area = 2 * M_PI * in.radius * depth;
      why << "k_v A, A = 2 pi R x_s = " << brief_number(area) << " m^2 (cap, R = " << brief_number(in.radius) << " m)";
    } else {
      why << "k_v A, A = " << brief_number(area) << " m^2 (flat face)";
    }
    normal.linear.stiffness = np.k * area;
  }
  why << "; f = " << brief_number(f) << " N, m = " << brief_number(normal.linear.mass) << " kg";
  normal.formula = why.str();
  out.push_back(normal);
  // Hysteretic damping f (1 + a v_n), a = -d/(e_eff max(|v_in|, v_small)) (eqs 3.24, 3.43), v_in latched at
  // the start of each contact episode: c = f |a| is largest, f d/(e_eff v_small), for an episode that starts
  // slower than v_small. Conditional: a dropped body keeps its impact speed's much smaller |a|.
  if (np.e_eff < 1 && np.v_small > 0) {
    ContactMode damped = normal;
    damped.mode = "normal, damping latched at v_small";
    damped.conditional = true;
    damped.linear.damping = f * np.d / (np.e_eff * np.v_small);
    damped.formula += ", c = f d/(e_eff v_small) = " + brief_number(damped.linear.damping) + " N s/m";
    out.push_back(damped);
  }

  // Bristle in stiction: m_t x'' = -f (sigma1 + sigma2) x' - f sigma0 x (eqs 3.35-3.42, 4.227-4.230), with the
  // tangential effective mass of the contact point, 1/m_t = sum 1/m + d^2/I (docs/contact-models.md).
  if (fp.mu_s > 0 || fp.mu_c > 0) {
    ContactMode b;
    b.mode = "bristle (stiction)";
    const double inv_mt = inv(in.mass_i) + in.lever_i * in.lever_i * inv(in.inertia_i) + inv(in.mass_j) +
                          in.lever_j * in.lever_j * inv(in.inertia_j);
    b.linear.mass = 1.0 / inv_mt;
    b.linear.damping = f * (fp.sigma1 + fp.sigma2);
    b.linear.stiffness = f * fp.sigma0;
    b.formula = "f (sigma1 + sigma2) / m_t = " + brief_number(b.linear.damping / b.linear.mass) + " 1/s, f sigma0 / m_t = " +
                brief_number(b.linear.stiffness / b.linear.mass) + " 1/s^2; f = " + brief_number(f) + " N, m_t = " +
                brief_number(b.linear.mass) + " kg";
    out.push_back(b);
  }
  return out;
}

}  // namespace vcsim::contact
