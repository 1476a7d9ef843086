// The geometric tests of the polytope contact model (Williams, Lu & Trinkle 2016, §4), on posed
// polytopes. Applicability depends on relative orientation only, feasibility on relative position.
//
// Vertex v of A against a face (or a plane) with outward unit normal eta (paper eq 28, 3D form):
//   APPL_vf = min_{u in omega(v)} eta . (x_u - x_v) / |x_u - x_v|,
// omega(v) the vertices joined to v by an edge. APPL_vf >= 0 iff every edge at v leaves the face
// plane or runs along it, i.e. -eta lies in v's normal cone: translating A along -eta, v is the
// first point of A to reach the plane.
//
// Edge e_a of A against edge e_b of B (paper §4, Fig. 14), with in-face tangents t1, t2 of each
// edge (polytope.h) and n = unit(e_a x e_b), whose sign is not known beforehand:
//   APPL_ee = max{ min(n.t_a1, n.t_a2, -n.t_b1, -n.t_b2), min(-n.t_a1, -n.t_a2, n.t_b1, n.t_b2) },
// >= 0 iff one sign of n lies in e_a's normal cone and its negative in e_b's; -1 for parallel
// edges (no common normal).
//
// Relaxation for rotation during a step (paper §4): a pair is applicable when APPL >= eps_theta
// with eps_theta < 0. Each term of APPL is a cosine, cos(alpha); if the bodies turn relative to
// each other by at most theta during the step, an angle alpha that is at most 90 degrees at the end
// of the step is at most 90 degrees + theta now, so cos(alpha) >= -sin(theta):
//   eps_theta = -sin(min(theta, pi/2))  (ApplicabilityThreshold).
//
// Edge–edge contact normal, from A into B (paper §4's edge orientation O_e, notes §3.2):
//   n = unit(e_a x e_b) if e_a . O_eb > 0, else unit(e_b x e_a).
// As e_a . O_eb = e_a . ((eta_b1 + eta_b2) x e_b) = -(eta_b1 + eta_b2) . (e_a x e_b), this is the
// sign with n . (eta_b1 + eta_b2) <= 0: n enters B across its outward bisector at e_b.
#pragma once

#include "core/collision/polytope/posed_polytope.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

double VertexFaceApplicability(const PosedPolytope& a, int vertex, const Vec3& face_normal_W);

// |e_a x e_b| <= parallel_tolerance |e_a| |e_b| counts as parallel.
bool EdgesParallel(const Vec3& e_a, const Vec3& e_b, double parallel_tolerance);
double EdgeEdgeApplicability(const PosedPolytope& a, int edge_a, const PosedPolytope& b, int edge_b,
                             double parallel_tolerance);
Vec3 EdgeEdgeNormal(const PosedPolytope& a, int edge_a, const PosedPolytope& b, int edge_b);

double ApplicabilityThreshold(double max_rotation_rad);

// Closest points of segments [p0, p1] and [q0, q1]: parameters s, t in [0, 1] of
// p0 + s (p1 - p0) and q0 + t (q1 - q0) (Ericson, Real-Time Collision Detection, 5.1.9).
struct SegmentClosestPoints {
  double s = 0.0;
  double t = 0.0;
  Vec3 point_p = Vec3::Zero();
  Vec3 point_q = Vec3::Zero();
  double distance_m = 0.0;
};
SegmentClosestPoints ClosestPointsOfSegments(const Vec3& p0, const Vec3& p1, const Vec3& q0,
                                             const Vec3& q1);

}  // namespace contactsim::core
