// Input checks of the batch CCD (batch_ccd.h), shared by the CUDA and the CUDA-less builds. They
// accept exactly what core/collision/ccd/ccd_validation.h accepts, so a batch that passes gets no
// kInvalidInput result.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "contactsim/gpu/batch_ccd.h"
#include "core/collision/ccd/ccd_validation.h"

namespace contactsim::gpu {
namespace {

using core::internal::kMaxCcdCoordinate;

absl::Status CheckLength(double value, const char* field) {
  // NaN fails both comparisons.
  if (value >= 0.0 && value < kMaxCcdCoordinate) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("options.", field, " must be >= 0 and < 1e150, got ", value));
}

}  // namespace

absl::Status ValidateCcdOptions(const core::CcdOptions& options) {
  if (absl::Status status = CheckLength(options.min_separation_m, "min_separation_m");
      !status.ok()) {
    return status;
  }
  return CheckLength(options.tolerance_m, "tolerance_m");
}

absl::Status ValidateCcdQuery(const core::CcdQuery& query, int64_t index) {
  if (query.kind != core::CcdQueryKind::kVertexFace &&
      query.kind != core::CcdQueryKind::kEdgeEdge) {
    return absl::InvalidArgumentError(
        absl::StrCat("query ", index, ": kind ", static_cast<int>(query.kind),
                     " is neither kVertexFace (0) nor kEdgeEdge (1)"));
  }
  for (int end = 0; end < 2; ++end) {
    const auto& points = end == 0 ? query.trajectory.x_t0 : query.trajectory.x_t1;
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 3; ++k) {
        const double x = points[i][k];
        if (!(std::abs(x) <= kMaxCcdCoordinate)) {  // NaN fails too
          return absl::InvalidArgumentError(
              absl::StrCat("query ", index, ": trajectory.x_t", end, "[", i, "][", k,
                           "] must be finite with |x| <= 1e150, got ", x));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateCcdBatch(absl::Span<const core::CcdQuery> queries,
                              const core::CcdOptions& options) {
  if (absl::Status status = ValidateCcdOptions(options); !status.ok()) return status;
  for (size_t i = 0; i < queries.size(); ++i) {
    if (absl::Status status = ValidateCcdQuery(queries[i], static_cast<int64_t>(i)); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace contactsim::gpu
