// The hull shapes of contactsim.v1.PrimitiveMesh (convex_hulls, random_hull) -> one closed core
// mesh whose connected components are the convex pieces (core/geometry/polytope_union_mesh.h).
// Counts are checked against the server's limits before Qhull runs; errors name the wire field
// ("body.primitive.convex_hulls.pieces[2].points_m: all 5 points lie in one plane ...").
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "contactsim/v1/primitives.pb.h"
#include "core/geometry/triangle_mesh.h"
#include "server/common/limits.h"

namespace contactsim::server {

// At most this many pieces in one convex_hulls shape: every pair is checked for overlap.
inline constexpr int kMaxConvexHullPieces = 64;

absl::StatusOr<core::TriangleMesh> ConvexHullsSurface(const v1::ConvexHullsShape& shape,
                                                      const ServerLimits& limits,
                                                      const std::string& field);

absl::StatusOr<core::TriangleMesh> RandomHullSurface(const v1::RandomHullShape& shape,
                                                     const ServerLimits& limits,
                                                     const std::string& field);

}  // namespace contactsim::server
