// Which contactsim.v1.WorldSettings fields each pipeline reads (core/sim/pipeline_table.h):
//   every pipeline    dt_s, gravity_m_per_s2, energy_growth_factor
//   penalty           contact_model, stiffness_n_per_m, min_separation_m, friction,
//                     contact_restitution, self_collision
//   local_global      local_global, self_collision
//   rigid_lcp         rigid_lcp
// A field set for a pipeline that does not read it is refused rather than silently ignored: a
// user who tunes a setting that has no effect learns it at once.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "contactsim/v1/scene.pb.h"
#include "core/sim/world_settings.h"

namespace contactsim::server {

// Whether `pipeline` reads the top-level WorldSettings field of this name.
bool SettingAppliesTo(std::string_view field_name, core::PipelineKind pipeline);

// InvalidArgument naming the first field set in `message` that `pipeline` does not read, down to
// the member of a nested message ("settings.local_global.iterations: does not apply to the
// penalty pipeline (it reads ...)"); OK otherwise. Set: present for an optional field or a
// message with a member set, non-default for any other.
absl::Status CheckSettingsApply(const v1::WorldSettings& message, core::PipelineKind pipeline,
                                std::string_view field);

}  // namespace contactsim::server
