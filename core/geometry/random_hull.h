// Random convex bodies (issue 18's pouring scene): points in a spherical shell about the origin,
// drawn by a generator fixed by a seed, whose convex hull is the body.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"

namespace contactsim::core {

// `count` points: each direction uniform on the unit sphere (z = 2u - 1, azimuth 2 pi v), each
// distance uniform in [min_radius_m, max_radius_m], u, v and the distance's fraction drawn in
// turn from SplitMix64 (Steele et al. 2014) started at `seed`, 53 bits per double. SplitMix64 is
// specified bit for bit (std::uniform_real_distribution is not), so a seed gives the same points
// wherever the C library's sin and cos agree. InvalidArgument naming the parameter for count < 4
// or > 1000, a radius not finite or <= 0, or max < min.
absl::StatusOr<Points3> RandomShellPoints(int count, double min_radius_m, double max_radius_m,
                                          uint64_t seed);

}  // namespace contactsim::core
