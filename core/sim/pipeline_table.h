// The one table of a World's pipelines: each PipelineKind with the name the service, the World
// and snapshots use for it ("penalty", "local_global") and the factory that makes it. Adding a
// pipeline means one row here (docs/architecture.md, "Adding a pipeline").
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/linalg/backend.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

struct PipelineEntry {
  PipelineKind kind;
  std::string_view name;     // on the wire (CreateSessionRequest.pipeline) and in snapshots
  std::string_view summary;  // one line for help texts and errors
  // Whether its solvers run on the World's Backend (core/linalg/backend.h); a pipeline that does
  // not runs on the host and only accepts a CPU backend (World::Create).
  bool uses_backend;
  // backend: the World's (never null), shared by the pipeline's solvers.
  std::unique_ptr<Pipeline> (*make)(const WorldSettings& settings,
                                    std::shared_ptr<Backend> backend);
};

// Every pipeline, in PipelineKind order.
std::span<const PipelineEntry> PipelineTable();

// The entry of a kind (every PipelineKind has one).
const PipelineEntry& PipelineEntryOf(PipelineKind kind);
std::string_view PipelineName(PipelineKind kind);

// InvalidArgument "<field>: unknown 'x' (available: penalty, local_global)".
absl::StatusOr<PipelineKind> PipelineKindFromName(std::string_view name, std::string_view field);

// The pipeline settings.pipeline names, made with the settings, its solvers on `backend`.
std::unique_ptr<Pipeline> MakePipeline(const WorldSettings& settings,
                                       std::shared_ptr<Backend> backend);

}  // namespace contactsim::core
