// Normal contact force kernels of Gonthier's point (thesis §3.2.1, §3.3.1) and volumetric (§4.2.2)
// models. Pure functions. Conventions (docs/contact-models.md): contact when the signed penetration
// x < 0, v_n = n·v_r is negative while approaching, the damping factor a is negative.
#pragma once

namespace vcsim::contact {

// The dimensionless damping constant d(e_eff) in [0, 1]: the non-trivial root of
// ln(1 + d/e) − ln(1 − d) = d (1 + e)/e (eq 3.23, the rearrangement of eq 3.22), found by bisection
// to machine precision. d(1) = 0. Throws std::invalid_argument unless e_eff is in (0, 1].
double damping_constant(double e_eff);

// The hysteretic damping factor a = −d / (e_eff max(|v_in|, v_small)) (eqs 3.24 and 3.43, with the
// sign that keeps a < 0 for an approach velocity v_in < 0). Units s/m.
double damping_factor(double d, double e_eff, double v_in, double v_small);

// Hertz law with hysteretic damping f_n = k δ^n (1 + a v_n), δ = −x_r ≥ 0 (eq 3.19, relaxed per 3.44),
// clamped at 0: the contact never pulls (eq 3.20 holds only for an isolated impact). 0 when δ ≤ 0.
double hertz_normal_force(double k, double n, double depth, double a, double v_n);
// The stiffness part alone, k δ^n (for the elastic power and energy).
double hertz_elastic_force(double k, double n, double depth);

// Volumetric law f_n = k_v V (1 + a v_cn) (eq 4.62), V the (relaxed) interference volume, clamped at 0.
double volumetric_normal_force(double k_v, double volume, double a, double v_cn);

// Series stiffness of two compliant bodies 1/k = 1/k_i + 1/k_j (eq 4.132); an infinite (rigid) side
// returns the other side's stiffness (eq 4.128).
double equivalent_stiffness(double k_i, double k_j);

// Relaxation of the initial penetration (eq 3.45, with x → V for the volumetric model):
// d(ref)/dt = −ref/τ_r; τ_r = 0 means no relaxation (rate 0; the reference is kept at 0).
double relaxation_rate(double reference, double tau_r);

}  // namespace vcsim::contact
