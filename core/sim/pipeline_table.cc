#include "core/sim/pipeline_table.h"

#include <array>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/common/check.h"
#include "core/sim/local_global/local_global_pipeline.h"
#include "core/sim/penalty/penalty_schemes.h"
#include "core/sim/rigid_lcp/rigid_lcp_pipeline.h"

namespace contactsim::core {
namespace {

std::unique_ptr<Pipeline> MakeLocalGlobal(const WorldSettings& settings,
                                          std::shared_ptr<Backend> backend) {
  return std::make_unique<LocalGlobalPipeline>(settings, std::move(backend));
}

// Runs on the host: the backend is not used.
std::unique_ptr<Pipeline> MakeRigidLcp(const WorldSettings& settings,
                                       std::shared_ptr<Backend> /*backend*/) {
  return std::make_unique<RigidLcpPipeline>(settings);
}

// One name, two schemes: the contact model picks CCD tracking or the discrete query. Runs on the
// host: the backend is not used.
std::unique_ptr<Pipeline> MakePenalty(const WorldSettings& settings,
                                      std::shared_ptr<Backend> /*backend*/) {
  return MakePenaltyPipeline(settings);
}

constexpr std::array<PipelineEntry, 3> kPipelines = {{
    {PipelineKind::kPenalty, "penalty",
     "explicit stepping, continuous collision detection and penalty contact (Tang et al. 2012)",
     /*uses_backend=*/false, &MakePenalty},
    {PipelineKind::kLocalGlobal, "local_global",
     "implicit hyperelastic local-global solver with non-smooth Newton contact (Zeng et al. 2024)",
     /*uses_backend=*/true, &MakeLocalGlobal},
    {PipelineKind::kRigidLcp, "rigid_lcp",
     "Stewart-Trinkle time stepping of rigid convex polytopes, standard or PEG contact "
     "(Williams et al. 2016)",
     /*uses_backend=*/false, &MakeRigidLcp},
}};

}  // namespace

std::span<const PipelineEntry> PipelineTable() { return kPipelines; }

const PipelineEntry& PipelineEntryOf(PipelineKind kind) {
  for (const PipelineEntry& entry : kPipelines) {
    if (entry.kind == kind) return entry;
  }
  CONTACTSIM_CHECK(false, "a PipelineKind without a row in the pipeline table");
}

std::string_view PipelineName(PipelineKind kind) { return PipelineEntryOf(kind).name; }

absl::StatusOr<PipelineKind> PipelineKindFromName(std::string_view name, std::string_view field) {
  for (const PipelineEntry& entry : kPipelines) {
    if (entry.name == name) return entry.kind;
  }
  std::string available =
      absl::StrJoin(kPipelines, ", ", [](std::string* out, const auto& e) { out->append(e.name); });
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(field), ": unknown '", std::string(name), "' (available: ", available, ")"));
}

std::unique_ptr<Pipeline> MakePipeline(const WorldSettings& settings,
                                       std::shared_ptr<Backend> backend) {
  return PipelineEntryOf(settings.pipeline).make(settings, std::move(backend));
}

}  // namespace contactsim::core
