// ImpulseTally: the controller's running totals of what contacts did to each body, from the
// per-pair records of Step replies. A pair's impulses act on body_a; body_b (when it is a body,
// not the ground plane -1) gets the opposite. Each reply's records are of its last step, so the
// totals cover every step only when each Step call takes one step (the demo's lockstep).
#pragma once

#include <array>
#include <cstdint>
#include <map>

#include "contactsim/v1/simulation.pb.h"

namespace contactsim::client::demo {

using Vec3d = std::array<double, 3>;

struct BodyImpulses {
  Vec3d normal_ns{};    // sum of normal impulses [N*s]
  Vec3d friction_ns{};  // sum of friction impulses [N*s]
  Vec3d reported_ns{};  // sum of the replies' body totals (normal + friction) [N*s]
};

class ImpulseTally {
 public:
  void Add(const v1::ContactReport& report);

  const std::map<int32_t, BodyImpulses>& bodies() const { return bodies_; }
  // The largest |(normal + friction) - reported| component over the bodies [N*s]: the per-pair
  // sums against the server's per-body totals (rounding only when every call took one step).
  double MaxMismatch_n_s() const;

 private:
  std::map<int32_t, BodyImpulses> bodies_;
};

// Per-body sums of one report's records: {normal, friction} [N*s] (used per frame by the viewer).
std::map<int32_t, std::array<Vec3d, 2>> SumByBody(const v1::ContactReport& report);

double Norm(const Vec3d& v);

}  // namespace contactsim::client::demo
