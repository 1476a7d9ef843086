#include "clients/cpp/demo/impulse_tally.h"

#include <algorithm>
#include <cmath>

namespace contactsim::client::demo {
namespace {

void Accumulate(Vec3d& sum, const v1::Vec3& v, double sign) {
  sum[0] += sign * v.x();
  sum[1] += sign * v.y();
  sum[2] += sign * v.z();
}

}  // namespace

std::map<int32_t, std::array<Vec3d, 2>> SumByBody(const v1::ContactReport& report) {
  std::map<int32_t, std::array<Vec3d, 2>> sums;
  for (const v1::ContactRecord& record : report.contacts()) {
    for (auto [body, sign] : {std::pair{record.body_a(), 1.0}, std::pair{record.body_b(), -1.0}}) {
      if (body < 0) continue;  // the ground plane
      Accumulate(sums[body][0], record.normal_impulse_ns(), sign);
      Accumulate(sums[body][1], record.friction_impulse_ns(), sign);
    }
  }
  return sums;
}

void ImpulseTally::Add(const v1::ContactReport& report) {
  for (const auto& [body, sums] : SumByBody(report)) {
    BodyImpulses& totals = bodies_[body];
    for (int k = 0; k < 3; ++k) {
      totals.normal_ns[k] += sums[0][k];
      totals.friction_ns[k] += sums[1][k];
    }
  }
  for (const v1::BodyContactTotals& totals : report.body_totals()) {
    Accumulate(bodies_[totals.body_id()].reported_ns, totals.impulse_ns(), 1.0);
  }
}

double ImpulseTally::MaxMismatch_n_s() const {
  double worst = 0.0;
  for (const auto& [body, totals] : bodies_) {
    for (int k = 0; k < 3; ++k) {
      worst = std::max(
          worst, std::abs(totals.normal_ns[k] + totals.friction_ns[k] - totals.reported_ns[k]));
    }
  }
  return worst;
}

double Norm(const Vec3d& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

}  // namespace contactsim::client::demo
