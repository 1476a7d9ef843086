// The contact report every pipeline produces after a step, and what the service streams: one
// record per active contact pair, and per-body totals of what the contacts did to each body.
//
// A record describes the impulses over the step on body A (the body of the first feature: the
// vertex of a VF pair, edge a-b of an EE pair, the vertex against a plane); body B receives the
// opposite impulses at the same point p_WC. The totals of body i, with origin p_WBo_i [m], are
//   J_i = sum_{records with A = i} (J_n + J_f) - sum_{records with B = i} (J_n + J_f)   [N s]
//   H_i = sum (p_WC - p_WBo_i) x (+-(J_n + J_f))                                        [N m s]
// (H_i is the torque impulse, the change of angular momentum about the body origin). Because
// action and reaction act at one point, each record adds zero net impulse and zero net angular
// impulse across its two bodies (about any point), so totals conserve momentum.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/contact/friction/yamane_nakamura.h"

namespace contactsim::core {

// Body id of static geometry that is not a simulated body (a ground plane): no totals.
inline constexpr int32_t kStaticEnvironmentBodyId = -1;

enum class ContactFeatureKind : uint8_t {
  kVertexFace = 0,   // feature_a: vertex of A, feature_b: triangle of B
  kEdgeEdge = 1,     // feature_a: edge of A, feature_b: edge of B
  kVertexPlane = 2,  // feature_a: vertex of A, feature_b: plane id (or -1)
};

struct ContactRecord {
  int32_t body_a = kStaticEnvironmentBodyId;
  int32_t body_b = kStaticEnvironmentBodyId;
  ContactFeatureKind kind = ContactFeatureKind::kVertexFace;
  int32_t feature_a = -1;        // index into body A's mesh (vertex or edge)
  int32_t feature_b = -1;        // index into body B's mesh (triangle or edge), or plane id
  Vec3 p_WC = Vec3::Zero();      // contact point in world [m] (where J_n + J_f act)
  Vec3 normal_W = Vec3::Zero();  // unit contact normal, from B towards A
  double depth_m = 0.0;          // penetration depth at the end of the step [m]
  Vec3 normal_impulse_n_s = Vec3::Zero();    // J_n on A over the step [N s]
  Vec3 friction_impulse_n_s = Vec3::Zero();  // J_f on A over the step [N s]
  // Spin friction on A about the normal (rigid_lcp's torsional friction), a pure couple [N m s].
  Vec3 torsional_impulse_n_m_s = Vec3::Zero();
  FrictionMode friction_mode = FrictionMode::kNone;  // stick / slip
};

struct BodyContactTotals {
  int32_t body_id = kStaticEnvironmentBodyId;
  Vec3 impulse_n_s = Vec3::Zero();            // J_i [N s]
  Vec3 angular_impulse_n_m_s = Vec3::Zero();  // H_i about the body origin [N m s]
  int32_t contact_count = 0;  // records that involve the body (a self-contact counts twice)
};

struct BodyOrigin {
  int32_t body_id = kStaticEnvironmentBodyId;
  Vec3 p_WBo = Vec3::Zero();  // body origin in world [m] (rigid: centre of mass)
};

struct ContactReport {
  std::vector<ContactRecord> contacts;
  std::vector<BodyContactTotals> body_totals;  // one per body, in the order of the origins given
};

// Totals for every body in `origins` (in that order; bodies without contacts get zeros).
// InvalidArgument for a repeated or negative body id in origins; NotFound for a record whose
// body_a or body_b (other than kStaticEnvironmentBodyId) has no origin.
absl::StatusOr<std::vector<BodyContactTotals>> AccumulateBodyTotals(
    std::span<const ContactRecord> contacts, std::span<const BodyOrigin> origins);

}  // namespace contactsim::core
