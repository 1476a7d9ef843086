// Potential contacts between two convex polygons in the plane, for the paper's 2D experiments
// (Williams, Lu & Trinkle 2016, §4–5.1; shared/papers/peg-formulation-notes.md §3). Polygons are
// counter-clockwise vertex loops in world coordinates [m] (convex_polygon2d.h); edge k joins
// vertex k and k + 1 with outward unit normal eta_k = R_-90 (x_k+1 - x_k) / |.|.
//
// Candidates are vertex–edge pairs in both directions (2D edge–edge is redundant, paper §5.1):
// vertex v of body1 against edge k of body2, p1 = x_v, n = -eta_k (from body1 into body2),
// psi = eta_k . (x_v - x_k), the signed distance to the edge's line.
//   Feasibility: the distance D from x_v to the edge segment <= max_gap_m (as the authors' 2D
//     code at the current configuration; testing a predicted configuration too is the stepper's).
//   Applicability (paper eq 28): APPL = min over v's two neighbours u of eta_k . (x_u - x_v)/|.|,
//     applicable iff APPL >= applicability_threshold (-0.2 as the authors' 2D experiments).
//   Configuration (paper §5.1): vertex–vertex when the segment's nearest point is within
//     configuration_distance_m of one of its ends (near_vertex2), else vertex–edge.
#pragma once

#include <vector>

#include "core/geometry/convex_polygon2d.h"

namespace contactsim::core {

enum class PolygonConfiguration { kVertexEdge, kVertexVertex };

struct PolygonContact {
  PolygonConfiguration configuration = PolygonConfiguration::kVertexEdge;
  int body1 = 0;          // 0: the vertex is the first polygon's (A), 1: the second's (B)
  int vertex1 = 0;        // of body1
  int edge2 = 0;          // of body2: joins its vertices edge2 and edge2 + 1
  int near_vertex2 = -1;  // vertex–vertex: the end of edge2 near x_v
  Vec2 point1_W = Vec2::Zero();
  Vec2 normal_W = Vec2::UnitY();  // from body1 into body2
  double gap_m = 0.0;             // psi
  double distance_m = 0.0;        // D
  double applicability = 0.0;
  bool applicable = false;
};

struct PolygonContactOptions {
  double max_gap_m = 0.01;
  double applicability_threshold = -0.2;
  bool include_inapplicable = false;
  double configuration_distance_m = 0.0;  // <= 0: max_gap_m
};

// Appends the candidates (body1 = A, then body1 = B, in vertex then edge order) to *out.
void FindPolygonContacts(const Points2& a, const Points2& b, const PolygonContactOptions& options,
                         std::vector<PolygonContact>* out);

}  // namespace contactsim::core
