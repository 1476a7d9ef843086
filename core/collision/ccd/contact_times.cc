#include "core/collision/ccd/contact_times.h"

#include <utility>

#include "core/collision/ccd/coplanarity_cubic.h"
#include "core/collision/proximity.h"
#include "core/math/cubic.h"

namespace contactsim::core {
namespace {

Vec3 PositionAt(const PairTrajectory& trajectory, int i, double t) {
  return trajectory.x_t0[i] + t * (trajectory.x_t1[i] - trajectory.x_t0[i]);
}

template <bool kVertexFace>
double DistanceSquaredAt(const PairTrajectory& trajectory, double t) {
  const Vec3 x0 = PositionAt(trajectory, 0, t);
  const Vec3 x1 = PositionAt(trajectory, 1, t);
  const Vec3 x2 = PositionAt(trajectory, 2, t);
  const Vec3 x3 = PositionAt(trajectory, 3, t);
  if constexpr (kVertexFace) {
    return PointTriangleClosest(x0, x1, x2, x3).distance_squared_m2;
  } else {
    return SegmentSegmentClosest(x0, x1, x2, x3).distance_squared_m2;
  }
}

template <bool kVertexFace>
ContactTimes AllContactTimes(const PairTrajectory& trajectory, double distance_tolerance_m) {
  const CubicPolynomial f =
      kVertexFace ? VertexFaceCoplanarityCubic(trajectory) : EdgeEdgeCoplanarityCubic(trajectory);
  const double tolerance_squared = distance_tolerance_m * distance_tolerance_m;
  auto touches = [&](double t) {
    return DistanceSquaredAt<kVertexFace>(trajectory, t) <= tolerance_squared;
  };

  std::array<double, 5> times{};
  int count = 0;
  ContactTimes result;
  if (f.IsZero()) {
    result.coplanar_for_all_t = true;
  } else {
    const CubicRoots roots = RealRootsInInterval(f, 0.0, 1.0);
    for (int i = 0; i < roots.count; ++i) {
      if (touches(roots.t[i])) times[count++] = roots.t[i];
    }
  }
  // End contacts, unless a root already sits there (within the root finder's accuracy).
  constexpr double kSameTime = 1e-12;
  const bool has_start = count > 0 && times[0] <= kSameTime;
  const bool has_end = count > 0 && times[count - 1] >= 1.0 - kSameTime;
  if (!has_start && touches(0.0)) times[count++] = 0.0;
  if (!has_end && touches(1.0)) times[count++] = 1.0;
  // At most two appended end times are out of order: a short insertion sort.
  for (int i = 1; i < count; ++i) {
    for (int j = i; j > 0 && times[j - 1] > times[j]; --j) std::swap(times[j - 1], times[j]);
  }
  result.count = count;
  result.t = times;
  return result;
}

}  // namespace

ContactTimes VertexFaceAllContactTimes(const PairTrajectory& trajectory,
                                       double distance_tolerance_m) {
  return AllContactTimes<true>(trajectory, distance_tolerance_m);
}

ContactTimes EdgeEdgeAllContactTimes(const PairTrajectory& trajectory,
                                     double distance_tolerance_m) {
  return AllContactTimes<false>(trajectory, distance_tolerance_m);
}

}  // namespace contactsim::core
