#include "server/convert/constraint_convert.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::server {

absl::StatusOr<core::Points3> FinitePointsFromProto(
    const google::protobuf::RepeatedField<double>& packed, std::string_view field) {
  if (packed.size() % 3 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": length ", packed.size(), " is not a multiple of 3"));
  }
  core::Points3 points(packed.size() / 3, 3);
  for (int k = 0; k < packed.size(); ++k) {
    if (!std::isfinite(packed[k])) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(field), "[", k, "]: must be finite, got ", packed[k]));
    }
    points.data()[k] = packed[k];  // row-major: x0 y0 z0 x1 ...
  }
  return points;
}

absl::StatusOr<core::ConstraintSpec> ConstraintSpecFromProto(const v1::ConstraintSpec& message,
                                                             std::string_view field) {
  core::ConstraintSpec spec;
  switch (message.constraint_case()) {
    case v1::ConstraintSpec::kPin:
      spec.kind = core::ConstraintKind::kPin;
      spec.body_id = message.pin().body_id();
      spec.vertices.assign(message.pin().vertices().begin(), message.pin().vertices().end());
      return spec;
    case v1::ConstraintSpec::kAttachment:
      spec.kind = core::ConstraintKind::kAttachment;
      spec.body_id = message.attachment().body_id();
      spec.vertices.assign(message.attachment().vertices().begin(),
                           message.attachment().vertices().end());
      spec.target_body_id = message.attachment().target_body_id();
      return spec;
    case v1::ConstraintSpec::kPositionTarget: {
      const v1::PositionTargetConstraint& in = message.position_target();
      spec.kind = core::ConstraintKind::kPositionTarget;
      spec.body_id = in.body_id();
      spec.vertices.assign(in.vertices().begin(), in.vertices().end());
      ASSIGN_OR_RETURN(spec.targets_m,
                       FinitePointsFromProto(in.targets_m(), absl::StrCat(std::string(field),
                                                                          ".position_target."
                                                                          "targets_m")));
      spec.stiffness_n_per_m = in.stiffness_n_per_m();
      return spec;
    }
    case v1::ConstraintSpec::CONSTRAINT_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(field), ": one of pin, attachment or position_target is required"));
}

}  // namespace contactsim::server
