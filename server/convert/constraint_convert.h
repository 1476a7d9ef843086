// contactsim.v1.ConstraintSpec -> core::ConstraintSpec (core/sim/constraints.h), and packed
// point arrays. Shapes and finiteness are checked here with errors naming the field; everything
// that depends on the session's bodies is the World's (its messages name the member, e.g.
// "pin.vertices[3]: ...", and the caller prefixes "constraint.").
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/scene.pb.h"
#include "core/common/eigen_types.h"
#include "core/sim/constraints.h"
#include "google/protobuf/repeated_field.h"

namespace contactsim::server {

// Packed xyz [m] -> n x 3. InvalidArgument "<field>: length 7 is not a multiple of 3" or
// "<field>[4]: must be finite, got nan".
absl::StatusOr<core::Points3> FinitePointsFromProto(
    const google::protobuf::RepeatedField<double>& packed, std::string_view field);

// `field` prefixes errors ("constraint"): InvalidArgument when no kind is set or targets_m is
// malformed.
absl::StatusOr<core::ConstraintSpec> ConstraintSpecFromProto(const v1::ConstraintSpec& message,
                                                             std::string_view field);

}  // namespace contactsim::server
