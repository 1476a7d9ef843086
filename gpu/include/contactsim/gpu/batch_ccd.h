// Batch continuous collision detection on the GPU: many vertex-face and edge-edge queries
// (core/collision/ccd/query_text.h's CcdQuery) answered by one CUDA kernel, one thread a query.
//
// The kernel runs the CPU's narrow phase itself, not a port: core/collision/ccd's implementation
// headers (*_impl.h) are CONTACTSIM_HOST_DEVICE and the CUDA files are compiled with -fmad=false,
// so each answer (hit flag, time of impact, weights, status, iterations) is bit-identical to
// core::VertexFaceCcd / core::EdgeEdgeCcd on the same query, with the same conservative guarantee
// (never a false negative). The one difference is where the root finder keeps its boxes: on the
// device a fixed per-thread heap; a query whose search outgrows it is answered on the host by the
// CPU code instead (counted in BatchCcdStats::host_answered), so no answer is ever truncated.
//
// Plain C++ (no CUDA types): a build without CUDA links too, and every entry point there answers
// Unimplemented (batch_ccd_without_cuda.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/collision/ccd/ccd_types.h"
#include "core/collision/ccd/query_text.h"

namespace contactsim::gpu {

// The checks the CPU queries make (core/collision/ccd/ccd_validation.h), as errors instead of
// kInvalidInput results: InvalidArgument naming the field, e.g.
//   "options.min_separation_m must be >= 0 and < 1e150, got -1"
//   "query 12: trajectory.x_t1[3][2] must be finite with |x| <= 1e150, got nan"
//   "query 4: kind 7 is neither kVertexFace (0) nor kEdgeEdge (1)".
absl::Status ValidateCcdOptions(const core::CcdOptions& options);
absl::Status ValidateCcdQuery(const core::CcdQuery& query, int64_t index);
absl::Status ValidateCcdBatch(absl::Span<const core::CcdQuery> queries,
                              const core::CcdOptions& options);

struct BatchCcdStats {
  int64_t queries = 0;
  int64_t device_answered = 0;
  // Queries whose root-finder search outgrew the device heap, answered by the CPU code.
  int64_t host_answered = 0;
  // The kernel alone (CUDA events around the launch), without transfers or host fallbacks [s].
  double kernel_seconds = 0.0;
};

// A CUDA stream and device buffers kept between calls (they grow to the largest batch seen), for
// callers that answer many batches. Not thread-safe: one Run at a time per object.
class BatchCcd {
 public:
  // On CUDA device `device_index`. The error of CudaUsable() when CUDA is not usable; Internal
  // naming the CUDA call that failed otherwise.
  static absl::StatusOr<std::unique_ptr<BatchCcd>> Create(int device_index = 0);
  ~BatchCcd();
  BatchCcd(const BatchCcd&) = delete;
  BatchCcd& operator=(const BatchCcd&) = delete;

  // results[i] answers queries[i]. InvalidArgument (ValidateCcdBatch) before any device work;
  // Internal naming the CUDA call on a device failure.
  absl::StatusOr<std::vector<core::CcdResult>> Run(absl::Span<const core::CcdQuery> queries,
                                                   const core::CcdOptions& options);

  // Of the last successful Run.
  const BatchCcdStats& last_stats() const { return stats_; }

  class Impl;

 private:
  explicit BatchCcd(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  BatchCcdStats stats_;
};

// One-shot: a BatchCcd on device 0 for one batch.
absl::StatusOr<std::vector<core::CcdResult>> BatchCcdOnDevice(
    absl::Span<const core::CcdQuery> queries, const core::CcdOptions& options);

}  // namespace contactsim::gpu
