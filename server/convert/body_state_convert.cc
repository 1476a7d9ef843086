#include "server/convert/body_state_convert.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "server/convert/value_convert.h"

namespace contactsim::server {
namespace {

// Packed xyz values as rows: InvalidArgument naming the field for a length that is not a
// multiple of 3 or a non-finite value (its vertex and axis).
absl::StatusOr<core::Points3> PackedRows(const google::protobuf::RepeatedField<double>& values,
                                         absl::string_view field) {
  if (values.size() % 3 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": has ", values.size(), " values, not 3 per vertex (packed x y z)"));
  }
  core::Points3 rows(values.size() / 3, 3);
  for (int i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return absl::InvalidArgumentError(absl::StrCat(field, ": vertex ", i / 3, " ",
                                                     std::string(1, "xyz"[i % 3]), " is ",
                                                     values[i], ", must be finite"));
    }
    rows(i / 3, i % 3) = values[i];
  }
  return rows;
}

}  // namespace

absl::StatusOr<core::BodyStateUpdate> BodyStateUpdateFromProto(
    const v1::SetBodyStateRequest& request) {
  core::BodyStateUpdate update;
  switch (request.state_case()) {
    case v1::SetBodyStateRequest::kRigid: {
      const v1::RigidStateSpec& rigid = request.rigid();
      if (!rigid.has_pose()) return absl::InvalidArgumentError("rigid.pose: required");
      core::RigidBodyState state;
      ASSIGN_OR_RETURN(state.p_WB_m,
                       FiniteVec3FromProto(rigid.pose().position_m(), "rigid.pose.position_m"));
      // Checked (unit within 1e-6) and normalized, or kept bit for bit, by the World.
      const v1::Quat& q = rigid.pose().orientation();
      state.q_WB = Eigen::Quaterniond(q.w(), q.x(), q.y(), q.z());
      ASSIGN_OR_RETURN(state.v_WB_m_per_s, FiniteVec3FromProto(rigid.linear_velocity_m_per_s(),
                                                               "rigid.linear_velocity_m_per_s"));
      ASSIGN_OR_RETURN(state.w_WB_rad_per_s,
                       FiniteVec3FromProto(rigid.angular_velocity_rad_per_s(),
                                           "rigid.angular_velocity_rad_per_s"));
      update.rigid = state;
      break;
    }
    case v1::SetBodyStateRequest::kVertices: {
      const v1::VertexStateSpec& vertices = request.vertices();
      ASSIGN_OR_RETURN(update.positions_m,
                       PackedRows(vertices.positions_m(), "vertices.positions_m"));
      if (vertices.velocities_m_per_s_size() > 0) {
        ASSIGN_OR_RETURN(update.velocities_m_per_s,
                         PackedRows(vertices.velocities_m_per_s(), "vertices.velocities_m_per_s"));
      }
      break;
    }
    case v1::SetBodyStateRequest::STATE_NOT_SET:
      return absl::InvalidArgumentError(
          "state: required (rigid for a rigid body, vertices for a deformable)");
  }
  return update;
}

absl::Status WithRequestFieldNames(const absl::Status& status) {
  // The World's names (body_state_update.h) and the request's, longest first where one begins
  // another.
  static constexpr std::pair<absl::string_view, absl::string_view> kRenames[] = {
      {"positions_m", "vertices.positions_m"},
      {"velocities_m_per_s", "vertices.velocities_m_per_s"},
      {"rigid.v_WB_m_per_s", "rigid.linear_velocity_m_per_s"},
      {"rigid.w_WB_rad_per_s", "rigid.angular_velocity_rad_per_s"},
      {"rigid.p_WB_m", "rigid.pose.position_m"},
      {"rigid.q_WB", "rigid.pose.orientation"},
  };
  const absl::string_view message = status.message();
  for (const auto& [world_name, request_name] : kRenames) {
    if (absl::StartsWith(message, world_name)) {
      return absl::Status(status.code(),
                          absl::StrCat(request_name, message.substr(world_name.size())));
    }
  }
  return status;
}

}  // namespace contactsim::server
