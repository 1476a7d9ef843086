#include "core/geometry/random_hull.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

constexpr int kMinPoints = 4;
constexpr int kMaxPoints = 1000;

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  uint64_t state_;
};

}  // namespace

absl::StatusOr<Points3> RandomShellPoints(int count, double min_radius_m, double max_radius_m,
                                          uint64_t seed) {
  if (count < kMinPoints || count > kMaxPoints) {
    return absl::InvalidArgumentError(
        absl::StrCat("points: must be in [", kMinPoints, ", ", kMaxPoints, "], got ", count));
  }
  if (!(std::isfinite(min_radius_m) && min_radius_m > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_radius_m: must be positive and finite, got ", min_radius_m));
  }
  if (!(std::isfinite(max_radius_m) && max_radius_m >= min_radius_m)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_radius_m: must be finite and >= ", "min_radius_m (", min_radius_m,
                     "), got ", max_radius_m));
  }
  SplitMix64 random(seed);
  Points3 points(count, 3);
  for (int i = 0; i < count; ++i) {
    const double z = 2.0 * random.NextUnit() - 1.0;
    const double azimuth = 2.0 * std::numbers::pi * random.NextUnit();
    const double radius = min_radius_m + (max_radius_m - min_radius_m) * random.NextUnit();
    const double ring = std::sqrt(std::max(0.0, 1.0 - z * z));
    points.row(i) << radius * ring * std::cos(azimuth), radius * ring * std::sin(azimuth),
        radius * z;
  }
  return points;
}

}  // namespace contactsim::core
