// contactsim.v1.WorldSettings / GroundPlane <-> core::WorldSettings / planes. Unset optional
// fields take core's defaults; every error names the proto field ("settings.dt_s: ...").
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/scene.pb.h"
#include "core/common/eigen_types.h"
#include "core/sim/sim_body.h"
#include "core/sim/world_settings.h"
#include "server/common/limits.h"

namespace contactsim::server {

// Iteration counts above `limits.max_solver_iterations` are refused (InvalidArgument naming the
// field and the limit).
absl::StatusOr<core::WorldSettings> WorldSettingsFromProto(const v1::WorldSettings& message,
                                                           std::string_view field,
                                                           const ServerLimits& limits);
// Every field the settings' pipeline reads (settings_scope.h), defaults filled in; the others
// left unset.
v1::WorldSettings ToProto(const core::WorldSettings& settings);

// A plane to add (its id is the World's to assign; 0 here).
absl::StatusOr<core::GroundPlane> GroundPlaneFromProto(const v1::GroundPlane& message,
                                                       std::string_view field);
v1::GroundPlane ToProto(const core::GroundPlane& plane);

}  // namespace contactsim::server
