// Contact constraints between two convex polygons for the paper's 2D experiments (Williams, Lu &
// Trinkle 2016, §3, §5.1, §6; shared/papers/peg-formulation-notes.md §3, §4.1–4.3, §4.5, "the
// notes"): the standard model and PEG, as the authors' 2D pipeline (get_all_contacts_2d →
// PEG_constraints_from_contacts → PEG2_dynamics, "PEG2") built them for the polygon pouring.
//
// Candidates are the vertex–edge pairs of polygon_contacts2d.h in both directions, feasible when
// the vertex's distance to the edge segment is <= max_gap_m at the current configuration or at the
// predicted one (both polygons moved by h with their start-of-step velocities; the authors' test,
// notes §3.3), or when it crosses the edge in between (swept_feasibility, our addition: without
// it a falling polygon tunnels through the floor). Gaps, points and normals are those of the
// current configuration.
//
//   kStandard  every feasible candidate is one unilateral (U) constraint psi >= 0 (the paper's
//              eqs 8–9: the Stewart–Trinkle baseline with the same feasibility band as PEG, no
//              applicability test, as the authors' 2D baseline; with
//              standard_requires_applicability only those with APPL > applicability_threshold).
//              At a corner it over-constrains: the paper's standard-model traps (Figs. 2–3).
//   kPeg       the PEG2 rules (notes §4.3), each constraint one primary and at most one secondary:
//     1. the feasible candidates of one vertex v of one body against the other form S(v);
//     2. |S(v)| = 1: U if applicable, else nothing;
//     3. |S(v)| >= 2: ordered cyclically by edge, trimmed to the applicable ones plus one
//        inapplicable neighbour on each side (at least two kept). Every two consecutive edges
//        k, k+1 of the other body share its vertex w (the vertex–vertex case, paper Fig. 5):
//        c1 = (v, edge into w), c2 = (v, edge out of w), c3 = (w, the edge of v's body into v),
//        c4 = (w, the edge out of v). If c3 or c4 is not feasible: U on the more applicable of
//        c1, c2 (if applicable) and U on c3, else c4 (if applicable). Otherwise the
//        intercontact constraints I(c1, c2), I(c3, c4) (eqs 20–24: max(psi_1, psi_2) >= 0, the
//        impulse along the primary's normal) and the cross-contact constraints X(c1, c4),
//        X(c2, c3) (eqs 15–16), each configuration once (it is seen from both vertices).
//        Together: (psi1 >= 0 and psi3 >= 0) or (psi2 >= 0 and psi4 >= 0) — the corners pass
//        each other on one side. Candidates of S(v) on no shared vertex: U if applicable.
//     4. an I's primaries are its applicable contacts (none: no I), the rest secondaries; with two
//        primaries the heuristic keeps the first (c1) unless psi_1 < -swap_gap and
//        psi_2 > max(psi_1, -swap_gap), and the other becomes a secondary;
//     5. an X is kept only if both contacts are applicable and becomes an I with an impulse on its
//        first contact (PEG2's X → I conversion; the same swap heuristic picks the first);
//     6. U constraints on a contact that an I or X uses are removed, duplicates too.
//   Secondaries are flipped into the primary's body order (body1 <- 1 - body1,
//   p <- p + psi n, n <- -n, psi unchanged; notes §4.2), so every row of a constraint measures
//   the gap from the primary's body1 to its body2.
//
// Departures from the authors' code (docs/rigid_lcp.md, "2D pouring"): step 6 removes every U on
// a contact in an I or X (their loop removes the first only, notes §7.10); an emptied I drops
// its X through the applicability test of step 5 instead of by list position (the same X, since
// an I is empty only when c1 and c2 are both inapplicable).
#pragma once

#include <span>
#include <vector>

#include "core/collision/polytope/polygon_contacts2d.h"
#include "core/geometry/convex_polygon2d.h"

namespace contactsim::core {

enum class PolygonContactModel { kStandard, kPeg };

// Which rule made a constraint (for the step's statistics; the paper's Fig. 22 counts I's).
enum class PolygonConstraintRule {
  kUnilateral,    // U
  kIntercontact,  // I from a vertex–vertex configuration (step 3)
  kCrossContact,  // X converted to I (step 5)
};

struct PolygonConstraint {
  PolygonConstraintRule rule = PolygonConstraintRule::kUnilateral;
  PolygonContact primary;                   // carries the impulse, along primary.normal_W
  std::vector<PolygonContact> secondaries;  // in primary.body1's order (0 or 1 of them here)
};

struct PolygonConstraintOptions {
  double max_gap_m = 8e-4;                // feasibility distance (the authors' max(0.5 h, 8e-4))
  double applicability_threshold = -0.2;  // eps_theta: applicable iff APPL > it
  double primary_swap_gap_m = 1e-3;       // step 4's heuristic
  // Also feasible: a vertex that crosses the edge's line between the current and the predicted
  // configuration within max_gap_m of the segment (both moved linearly). The authors' test alone
  // lets a vertex moving more than 2 max_gap_m per step jump over the band and tunnel.
  bool swept_feasibility = true;
  // The standard model's U set: every feasible candidate (false, the authors' baseline: no
  // applicability test, notes §2) or only the applicable ones (true).
  bool standard_requires_applicability = false;
};

struct PolygonConstraintStats {
  int feasible_candidates = 0;
  int unilateral = 0;
  int intercontact = 0;
  int cross_contact = 0;          // X kept (as I)
  int cross_contact_dropped = 0;  // X with an inapplicable contact
  int vertex_vertex = 0;          // configurations with all four contacts
};

// The two polygons' vertices at a configuration predicted for the end of the step.
struct PolygonPrediction {
  const Points2* a = nullptr;
  const Points2* b = nullptr;
};

// a, b: counter-clockwise convex polygons in world coordinates [m]; predicted: configurations at
// which a candidate is also feasible (empty: the current configuration only).
// Appends the constraints to *out and adds the counts to *stats (if given).
void MakePolygonConstraints(PolygonContactModel model, const Points2& a, const Points2& b,
                            std::span<const PolygonPrediction> predicted,
                            const PolygonConstraintOptions& options,
                            std::vector<PolygonConstraint>* out,
                            PolygonConstraintStats* stats = nullptr);

// The contact seen from the other body: body1 <- 1 - body1, p <- p + psi n, n <- -n, psi kept.
PolygonContact FlipPolygonContact(const PolygonContact& contact);

}  // namespace contactsim::core
