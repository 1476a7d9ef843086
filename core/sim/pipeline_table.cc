#include "core/sim/pipeline_table.h"

#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/common/check.h"
#include "core/sim/local_global/local_global_pipeline.h"
#include "core/sim/penalty/penalty_pipeline.h"

namespace contactsim::core {
namespace {

template <typename PipelineType>
std::unique_ptr<Pipeline> Make(const WorldSettings& settings) {
  return std::make_unique<PipelineType>(settings);
}

constexpr std::array<PipelineEntry, 2> kPipelines = {{
    {PipelineKind::kPenalty, "penalty",
     "explicit stepping, continuous collision detection and penalty contact (Tang et al. 2012)",
     &Make<PenaltyPipeline>},
    {PipelineKind::kLocalGlobal, "local_global",
     "implicit hyperelastic local-global solver with non-smooth Newton contact (Zeng et al. 2024)",
     &Make<LocalGlobalPipeline>},
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

std::unique_ptr<Pipeline> MakePipeline(const WorldSettings& settings) {
  return PipelineEntryOf(settings.pipeline).make(settings);
}

}  // namespace contactsim::core
