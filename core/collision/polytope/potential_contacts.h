// Potential-contact identification between two posed convex polytopes, before they touch
// (Williams, Lu & Trinkle 2016, §4; the reconstruction in shared/papers/peg-formulation-notes.md
// §3, docs/rigid_lcp.md "Polytope geometry").
//
// Candidates are vertex–face pairs, in both directions, and edge–edge pairs; edge–face and
// face–face are redundant (paper §5.2). A candidate C = (body1, body2, p1, n, psi) has its contact
// point p1 on body1, the unit normal n from body1 into body2 and the signed gap psi (> 0 apart):
//   vertex v of body1, face f of body2:  p1 = x_v, n = -eta_f, psi = eta_f . x_v - d_f
//     (distance to the face's plane, meaningful near the face: feasibility keeps it there);
//   edge e1 of body1 (= A), edge e2 of body2 (= B): p1, p2 the closest points of the segments,
//     n from the edge orientation (feature_tests.h), psi = n . (p2 - p1).
//
// Feasibility (relative position; the step's motion can close at most max_gap_m):
//   vertex–face: with D the distance from x_v to the face polygon, keep iff |psi| <= max_gap_m and
//     D <= max_gap_m, and then, if x_v projects inside the face, psi >= -max_penetration_m (the
//     paper's delta), else psi >= -D sin(feasibility_angle_rad) (the paper's angle phi: a vertex
//     beside the face may be below its plane only within that cone);
//   edge–edge: the segments' distance <= max_gap_m (paper §4).
// Applicability (relative orientation): APPL >= applicability_threshold (feature_tests.h); pairs
// below it are returned only with include_inapplicable (PEG's secondary contacts need them).
//
// Configurations (paper §5.2), from the features within configuration_distance_m:
//   vertex–face pair: kVertexVertex if a corner w of the face is that close to x_v (near_vertex2 =
//     w), else kVertexEdge if an edge of the face is (near_edge2), else kVertexFace;
//   edge–edge pair: by the ends of the edges within that distance of their closest points
//     (near_vertex1, near_vertex2): none kEdgeEdge, one kVertexEdge, both kVertexVertex.
// Parallel edges have no common normal: no edge–edge candidate is made for them (the vertex–face
// candidates of their ends cover the contact) and they are counted in the stats.
#pragma once

#include <vector>

#include "core/collision/polytope/posed_polytope.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

enum class PotentialContactKind { kVertexFace, kEdgeEdge };
enum class FeatureConfiguration { kVertexFace, kVertexEdge, kVertexVertex, kEdgeEdge };

struct PotentialContact {
  PotentialContactKind kind = PotentialContactKind::kVertexFace;
  FeatureConfiguration configuration = FeatureConfiguration::kVertexFace;
  int body1 = 0;          // 0: body1 is the first polytope of the query (A), 1: the second (B)
  int feature1 = 0;       // vertex (vertex–face) or edge (edge–edge) of body1
  int feature2 = 0;       // face (vertex–face) or edge (edge–edge) of body2; -1 for a plane
  int near_vertex1 = -1;  // edge–edge: the end of feature1 at its closest point
  int near_vertex2 = -1;  // a corner of face feature2 / an end of edge feature2 (see above)
  int near_edge2 = -1;    // vertex–face: the edge of face feature2 the vertex is near
  Vec3 point1_W = Vec3::Zero();   // p1 on body1 [m]
  Vec3 normal_W = Vec3::UnitZ();  // from body1 into body2
  double gap_m = 0.0;             // psi
  double distance_m = 0.0;        // between the features (point–polygon, segment–segment)
  double applicability = 0.0;     // APPL_vf or APPL_ee
  bool applicable = false;        // applicability >= applicability_threshold
};

struct PotentialContactOptions {
  // The largest distance the step's motion can close [m] (FeasibilityDistance), > 0.
  double max_gap_m = 0.01;
  // The paper's delta: how far below a face's plane a vertex above the face is still a contact
  // of that face [m]. 2.5 mm as the authors' code.
  double max_penetration_m = 0.0025;
  // The paper's phi [rad]: 0.4 as the authors' code.
  double feasibility_angle_rad = 0.4;
  // eps_theta (ApplicabilityThreshold of the step's rotation bound). -0.2 (11.5 degrees) as the
  // authors' 2D experiments.
  double applicability_threshold = -0.2;
  bool include_inapplicable = false;
  // Distance for the configurations [m]; <= 0 means max_gap_m (the paper: "within epsilon").
  double configuration_distance_m = 0.0;
  // |e_a x e_b| <= parallel_tolerance |e_a| |e_b|: parallel edges (sine of the angle).
  double parallel_tolerance = 1e-9;
};

struct PotentialContactStats {
  int parallel_edge_pairs = 0;   // near each other, skipped
  int inapplicable_dropped = 0;  // feasible but below the applicability threshold
};

// max(max_relative_speed_m_per_s * step_s, floor_m): how far two bodies can approach in one step
// when no point of either moves faster than the bound relative to the other.
double FeasibilityDistance(double max_relative_speed_m_per_s, double step_s, double floor_m);

// Appends the candidates between a and b to *out (vertex–face with body1 = A, then with
// body1 = B, then edge–edge with body1 = A), in feature order; deterministic.
void FindPotentialContacts(const PosedPolytope& a, const PosedPolytope& b,
                           const PotentialContactOptions& options,
                           std::vector<PotentialContact>* out,
                           PotentialContactStats* stats = nullptr);

// Polytope against the half-space eta . x <= d (a ground plane, eta its outward unit normal):
// one vertex–face candidate per vertex with psi = eta . x_v - d <= max_gap_m (body1 = 0, the
// polytope; feature2 = -1). A plane has no edges, so no penetration bound applies.
void FindPlaneContacts(const PosedPolytope& a, const Vec3& plane_normal_W, double plane_offset_m,
                       const PotentialContactOptions& options, std::vector<PotentialContact>* out,
                       PotentialContactStats* stats = nullptr);

}  // namespace contactsim::core
