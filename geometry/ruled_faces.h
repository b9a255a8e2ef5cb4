// Two cells bounded only by planes, cylinders and cones (crossed cylinders, a cylinder on a cone, a frustum in a
// box-and-cylinder cell, a peg in a plate with a hole), by the surface form of the moments: no closed form serves these
// pairs, and the convex lens pays for the kink curves that cross their footprint with a two-dimensional search.
//
// By the divergence theorem with the field (z − z₀) e_z (e_z the contact normal, z₀ a point of the lens):
//   ∫ dV = ∮ (z − z₀) n_z dA,  ∫ x dV = ∮ x (z − z₀) n_z dA,  ∫ z dV = ∮ (z − z₀)²/2 n_z dA, ...
// over the boundary of A ∩ B: each face of A inside B and each face of B inside A. Every such face is ruled (a
// plane, a cylinder's side, a cone's side), and along a ruling the face's n_z dA and the integrands are polynomials
// whose limits, the ruling's chord inside all the other constraints, are exact (a slab's two planes, a quadric's
// two roots). So each face is a one-dimensional integral over its rulings (docs/geometry.md, "Ruled faces"):
//  - the rulings that lie in the lens form runs: from 16 samples of the chord's signed length (continuous across a
//    run's ends, where a missed quadric keeps an inverted chord), and from seeds, the chord ends on other faces'
//    constraints, which lie on those faces too (the lens's boundary is connected: one run leads to all); each end
//    located by false position;
//  - each run is split where the constraints that end the chord change (false position on the two ends' gap);
//  - each piece by nested Clenshaw–Curtis rules under a sine map (9, then 17 nodes; the chord length vanishes like
//    a square root at a tangency), halved until the estimates meet the tolerance on V, the first and the second
//    moments; for a lens below (3e-5 of the overlap box's diagonal)³ as if its V were that, an absolute bound (a graze
//    nanometres deep, where the faces' fluxes cancel to their rounding; docs/geometry.md, "A graze: the floor on V").
// With z₀ inside the lens, every face's share is of the order of V, so nothing cancels in a shallow contact. The
// result is continuous in the poses. Where no face finds the lens, a separating plane proves that there is none.
// When a run or a piece cannot be resolved (coincident planes, an unbounded chord, an estimate that does not converge,
// no run and no separating plane) the function answers nothing and the caller takes the convex lens: never a
// silently worse answer.
//
// The tube mode: the same cell against a lone ring torus (a torus over a cone's apex or across an edge, where the
// torus sweep declines). The field is then tangent to the torus's tube (ρ F_α = ∫ s ρ g dα in the tube's polar
// coordinates s, α about its centre circle), so the torus's surface carries no flux and the cell's faces inside the
// torus carry all the moments. The torus's chord along a ruling is exact (a quartic's roots; a miss keeps an inverted
// chord, −2√(d² − r²) long, d the ruling's distance from the centre circle); F is no polynomial along a ruling, so
// each chord is integrated by Gauss–Kronrod. Since no seeds cross the torus (it has no faces), every face is also
// searched between its samples. A ruling through the tube twice, or a lens wrapping more than half around the tube
// (where the field is cut), is declined.
//
// Holes: one of the two cells may have one hole, a complemented box, cylinder, cone or infinite cylinder (a drilled
// hole, a blind hole, a slot, a countersink; docs/geometry.md, "Holes"). The lens is then not convex: a ruling's chord
// is its chord over the cell's constraints less the hole's chord, up to two pieces, and its state names every
// piece's ends. The hole's faces bound the cell from inside the hole (their normals turned), a hole's plane flush with
// its cell's own is dropped (it bounds nothing), and a face is split where a hole's plane or cylinder along its rulings
// starts taking them out whole. The lens need not be connected, so every face is searched between its samples, and
// where no face finds it the answer is no overlap. A panel is split again where a node of its rule, or a seed from
// another face, finds a state its samples missed.
//
// The ball mode: the same cell against a ball, alone or cut by planes (a capsule's cap). The field is the tube mode's
// with the centre circle shrunk to the ball's centre: tangent to every sphere about it (sin θ F_θ = ∫ s sin θ g dθ in
// polar coordinates about the centre, the pole toward the lens), so the ball's surface carries no flux either. A ball
// whose centre lies in the lens is declined (the field's singular ray would cross it). The cell may have holes: the
// ball's chord is one of the cell's, the hole's is taken out as above, and the pole is the direction (ref's, or along a
// hole's axis) whose widest angle to the lens is least, since a ring on a hole's rim is not convex. A plane of the cell
// that the hole's axis crosses is swept by rays from that point (a seated ball's thin ring crossed square).
#pragma once
#include <optional>
#include <vector>

#include "geometry/column_integration.h"

namespace vcsim::geo {

// True when every primitive of both cells is a box, cylinder, cone or frustum, half-space, slab or infinite
// cylinder, and at most one of them is complemented (a hole), in a cell with at least one that is not; or when one cell
// has several holes and the other none, and planes part the holes (between them, or across an axis they share: a
// counterbore, a chamfer), so that the cell cuts into one-hole cells (ruled_faces_moments).
bool ruled_faces_pair(const CellPrimitives& a, const CellPrimitives& b);

// True when the pair is ruled_faces_pair's with a hole: its lens may fall apart into pieces.
bool ruled_hole_pair(const CellPrimitives& a, const CellPrimitives& b);

// True when one cell is a lone ring torus and the other's primitives are all of the kinds above: the tube mode.
bool ruled_torus_pair(const CellPrimitives& a, const CellPrimitives& b);

// True when one cell is a ball (alone or with primitives of the kinds above: a capsule's cap) and the other's
// primitives are all of the kinds above, with no hole, one, or several that planes part: the ball mode.
bool ruled_ball_pair(const CellPrimitives& a, const CellPrimitives& b);

// Raw moments, in `frame`, of a ∩ b (frame: z the contact normal; its origin near the overlap), and a's area vector
// ∫ n dA over its boundary inside b (RawMoments::area: along each ruling n dA is linear, so each chord's share is exact;
// one cell's faces give it, since b's give minus it; not held to the tolerance). Nothing when the pair
// is none of ruled_faces_pair, ruled_torus_pair and ruled_ball_pair, or the quadrature cannot meet `tolerance` (relative, on V and on
// the second moments).
// lines: incremented by the rulings evaluated.
// pieces (optional): where the lens falls apart (a cell with a hole: a peg tilted in its hole touching the wall at the
// top and at the bottom), each connected piece's moments and area vector, largest first; left empty for one piece.
// Pieces are told apart by their panels' boxes (docs/geometry.md, "The lens's pieces"); each piece's share of the error
// is not controlled by itself, only their sum's. With pieces asked for, a lens that reaches across a blind hole's floor
// is also cut at the floor's plane (the concave corner of floor and wall): the floor's part is a piece, and so is each
// piece of the wall's part. The whole is then the two parts' sum, equal to the uncut lens's within the tolerance.
// A cell with several holes is cut into one-hole cells the same way, each side's pieces its own, except that one piece
// on each side of a cut is one (docs/geometry.md, "Several holes").
std::optional<RawMoments> ruled_faces_moments(const CellPrimitives& a, const Pose& pose_a, const CellPrimitives& b,
                                              const Pose& pose_b, const Pose& frame, double tolerance, long& lines,
                                              std::vector<RawMoments>* pieces = nullptr);

}  // namespace vcsim::geo
