// Contact constraints between two posed convex polytopes, from their potential contacts
// (potential_contacts.h), for the standard and the PEG contact models (Williams, Lu & Trinkle
// 2016, §2–§5; the 3D generation rules reconstructed in shared/papers/peg-formulation-notes.md
// §4.4; docs/rigid_lcp.md "Contact constraints (standard and PEG)").
//
// A constraint is one primary contact and zero or more secondaries:
//   U (no secondaries):  psi_p >= 0 at the end of the step, impulse along the primary normal;
//   I (secondaries s_j): max(psi_p, psi_s1, ..., psi_sk) >= 0, impulse along the primary normal
//     only (the paper's |C_iota| = 1 form, eq 24). The time stepper writes the max with the slack
//     chain 0 <= c_j _|_ psi_p - psi_sj + sum_{i <= j} c_i >= 0 (notes §4.1, §4.5), which needs
//     every secondary in the primary's body order: secondaries are flipped here (below).
// Every contact keeps the candidate's convention: point1_W on body1, normal_W from body1 into
// body2, gap_m > 0 apart; body1 = 0 is the first polytope of the query (A), 1 the second (B).
//
// Standard model (paper eqs 8–9): every feasible, applicable candidate is a U. At a corner this
// enforces the planes of both faces (the standard-model trap of Figs. 2–3).
// PEG (notes §4.4, departures in docs/rigid_lcp.md): configurations from the candidates'
// features, each processed once, in this order:
//   vertex–vertex (v_a, v_b): per side, the potentials are the faces at the other vertex that are
//     feasible for this vertex with APPL >= vertex_vertex_applicability; if there is one, a
//     constraint with the primary rule's choice among them as the primary and as secondaries the
//     other potentials, the other faces at the corner (vertex_vertex_all_corner_faces) and the
//     vertex's other feasible faces (vertex_all_feasible_faces): an I, or a U if that is empty;
//   vertex–edge (v, edge e with faces f1, f2): nearly flat edge -> one U on (v, f1); else, if v is
//     feasible for f1 or f2, I(c1 = (v, f1), c2 = (v, f2)) (a face v is not feasible for still
//     gives its plane contact: it is what lets v pass the edge; plus v's other feasible faces
//     with vertex_all_feasible_faces), and for each edge e_v at v whose
//     edge–edge pair with e has APPL >= pairing_edge_applicability, s = O_e . (e_v away from v):
//     s > 0 pairs the edge–edge contact with c1, s < 0 with c2, as I(c_i; ee) if v is feasible for
//     f_i, else I(ee; c_i) (the paper's eq 36 cross-contacts, written as I as the authors' code);
//   edge–edge (no end near): U if APPL >= edge_edge_applicability and no I uses the pair; with
//     crossing_edges_near_ends also the edge–edge pairs of the configurations above that no I
//     uses, where the edges' lines come closest inside both segments;
//   vertices named by no constraint yet: one U on the primary rule's choice among their feasible
//     faces with APPL >= lone_vertex_applicability.
// Duplicates (same primary, same set of secondaries) are removed; output order is deterministic.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "core/collision/polytope/posed_polytope.h"
#include "core/collision/polytope/potential_contacts.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

enum class PolytopeContactModel { kStandard, kPeg };

// Which rule made a constraint (U: unilateral, I: intercontact).
enum class ContactConstraintRule {
  kStandardUnilateral,        // standard model: one applicable candidate
  kPlaneUnilateral,           // a vertex against a half-space (both models)
  kVertexVertexUnilateral,    // PEG vertex–vertex, a side with one potential face
  kVertexVertexIntercontact,  // PEG vertex–vertex, a side with several (paper eq 38's I)
  kFlatEdgeUnilateral,        // PEG vertex–edge over a nearly flat edge
  kVertexEdgeIntercontact,    // PEG vertex–edge, I(c1, c2) (paper eq 36, Fig. 18)
  kVertexEdgePairing,         // PEG vertex–edge, I(c_i; ee) or I(ee; c_i) (eq 36's X as I)
  kEdgeEdgeUnilateral,        // PEG edge–edge away from the edges' ends
  kLoneVertexUnilateral,      // PEG vertex in no configuration's constraint
  kCrossingEdgeUnilateral,    // PEG edge–edge near an end, crossing inside both (departure)
};
inline constexpr int kContactConstraintRuleCount = 10;
std::string_view ContactConstraintRuleName(ContactConstraintRule rule);

struct ContactConstraintGeometry {
  ContactConstraintRule rule = ContactConstraintRule::kStandardUnilateral;
  PotentialContact primary;
  // In the primary's body order (body1 == primary.body1). A secondary generated the other way
  // round is flipped (FlipContact) and keeps its candidate's feature ids: then feature1 names a
  // feature of body (1 - body1) and feature2 one of body1; secondary_flipped says which.
  std::vector<PotentialContact> secondaries;
  std::vector<bool> secondary_flipped;
  bool unilateral() const { return secondaries.empty(); }
};

// max(psi_p, psi_s...) (psi_p for a U): the constraint holds at the current pose iff >= 0.
double ConstraintGap(const ContactConstraintGeometry& constraint);

// The same contact seen from the other body: p1 <- p1 + psi n, n <- -n, body1 <- 1 - body1, psi
// unchanged (notes §4.2). The contact point moves to the other body's feature (p2 = p1 + psi n).
PotentialContact FlipContact(const PotentialContact& contact);

// How PEG picks the primary (the contact whose normal carries the impulse) among candidates.
enum class PegPrimaryRule {
  // The largest gap (ties: the first). For a vertex outside a convex corner, the face with the
  // largest plane gap is the one whose plane separates best: a vertex resting on a face near its
  // edge is held along that face's normal. The authors' peg_heuristic.m says "largest
  // non-negative" in its comment (notes §4.4, §7.11).
  kLargestGap,
  // The authors' code: vertex–edge c1 if authors_vertex_edge_gap_m < psi1 < psi2, else c2 if
  // psi2 > authors_vertex_edge_gap_m, else the larger (conf_make_vertex_edge.m); elsewhere the
  // smallest psi among psi >= authors_heuristic_gap_m, else the first (peg_heuristic.m). It pushes
  // a vertex resting 1 mm inside an edge along the side face (docs/rigid_lcp.md).
  kAuthorsCode,
};

struct ContactConstraintOptions {
  // Candidate search: feasibility distances, and applicability_threshold for the standard model
  // (and the plane). PEG asks for inapplicable candidates too and applies its thresholds below.
  PotentialContactOptions potential;
  // The thresholds of the authors' 3D code (notes §4.4 and its tolerance table):
  // eta_f1 . eta_f2 above this: the edge is flat, one U (conf_make_vertex_edge.m, 0.995 =
  // a turn of 5.7 degrees).
  double flat_edge_cosine = 0.995;
  // Edges at the vertex paired with the vertex–edge contacts (conf_make_vertex_edge.m, -0.1).
  double pairing_edge_applicability = -0.1;
  // Edge–edge U (conf_make_edge_edge.m, -0.4).
  double edge_edge_applicability = -0.4;
  // Potential faces of a vertex–vertex side (conf_make_vertex_vertex.m, -0.4).
  double vertex_vertex_applicability = -0.4;
  // A vertex–vertex side's other faces at the corner become secondaries too (a departure from the
  // authors' code, which makes a U of a single potential and ignores the other faces: that U
  // forbids poses where the vertex is outside the body past another face; docs/rigid_lcp.md).
  bool vertex_vertex_all_corner_faces = true;
  // Vertex–edge and vertex–vertex I-constraints also take the vertex's other feasible faces as
  // secondaries (a departure: within max_gap_m of an edge a vertex may be outside the body past
  // a third face, where max(psi_f1, psi_f2) < 0 would push it for nothing; docs/rigid_lcp.md).
  bool vertex_all_feasible_faces = true;
  // An edge–edge candidate of a vertex–vertex or vertex–edge configuration that no I uses becomes
  // a U when the edges' lines come closest inside both segments (a departure: the authors' code
  // drops them, and two edges crossing within configuration_distance_m of an end then have no
  // constraint at all; docs/rigid_lcp.md).
  bool crossing_edges_near_ends = true;
  // Faces of a lone vertex (conf_vertex_faces.m, -0.3).
  double lone_vertex_applicability = -0.3;
  PegPrimaryRule primary_rule = PegPrimaryRule::kLargestGap;
  double authors_vertex_edge_gap_m = -0.005;  // conf_make_vertex_edge.m
  double authors_heuristic_gap_m = -1e-4;     // peg_heuristic.m
};

struct ContactConstraintStats {
  PotentialContactStats potential;
  int candidates = 0;  // potential contacts the model started from
  std::array<int, kContactConstraintRuleCount> by_rule{};
  int duplicates_removed = 0;
  int secondaries_flipped = 0;
  int vertex_edge_infeasible = 0;  // vertex–edge configurations with neither face feasible
  int count(ContactConstraintRule rule) const { return by_rule[static_cast<int>(rule)]; }
  int unilateral() const;
  int intercontact() const;
};

// Appends the constraints between a and b to *out; deterministic (same input, same output in the
// same order). Adds to *stats when given.
void MakeContactConstraints(PolytopeContactModel model, const PosedPolytope& a,
                            const PosedPolytope& b, const ContactConstraintOptions& options,
                            std::vector<ContactConstraintGeometry>* out,
                            ContactConstraintStats* stats = nullptr);

// Polytope a against the half-space plane_normal . x <= plane_offset (FindPlaneContacts): one U
// per applicable vertex candidate, in both models (a plane has no edges, hence no corner trap).
void MakePlaneContactConstraints(const PosedPolytope& a, const Vec3& plane_normal_W,
                                 double plane_offset_m, const ContactConstraintOptions& options,
                                 std::vector<ContactConstraintGeometry>* out,
                                 ContactConstraintStats* stats = nullptr);

}  // namespace contactsim::core
