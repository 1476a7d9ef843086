// Small value conversions between contactsim.v1 messages (Vec3, Quat, Pose) and Eigen, with
// checks whose errors name the field ("body.pose.orientation: ...").
#pragma once

#include <Eigen/Geometry>
#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/common.pb.h"
#include "contactsim/v1/scene.pb.h"
#include "core/common/eigen_types.h"

namespace contactsim::server {

// InvalidArgument "<field>: must be finite" for a NaN or infinite component.
absl::StatusOr<core::Vec3> FiniteVec3FromProto(const v1::Vec3& message, std::string_view field);
// A unit quaternion (w, x, y, z); one within 1e-6 of unit norm is normalized (float round
// trips), anything else is InvalidArgument (most likely a wrong component order).
absl::StatusOr<Eigen::Quaterniond> UnitQuatFromProto(const v1::Quat& message,
                                                     std::string_view field);

v1::Vec3 ToProto(const core::Vec3& v);
v1::Quat ToProto(const Eigen::Quaterniond& q);  // (w, x, y, z), never Eigen's coeffs() order
// The same, written into a message in place (no temporary: replies are built on an arena).
void FillProto(const core::Vec3& v, v1::Vec3* out);
void FillProto(const Eigen::Quaterniond& q, v1::Quat* out);

// InvalidArgument "<field>: must be finite and > 0, got -1" etc.
absl::Status CheckPositive(double value, std::string_view field);
absl::Status CheckNonNegative(double value, std::string_view field);

// A client's label (session, body, mesh name): at most `max_bytes` bytes (--max-name-bytes) and
// no control characters, so that a name can neither bloat every listing and frame nor write a
// fake line into the log. InvalidArgument "<field>: ..." naming the first bad byte.
absl::Status CheckLabel(std::string_view label, int max_bytes, std::string_view field);

}  // namespace contactsim::server
