// One benchmark case's report: its frames timed on all threads and on 1 thread (phase times of
// LocalGlobalSolver::Step), printed as a table next to the paper's Table 3 row, and the sparse
// inverse S of its system matrix (precompute, nnz, MB, its global step against the triangular
// solves).
#pragma once

#include <string>

#include "absl/status/status.h"

namespace contactsim::core::local_global_bench {

// skip_frames: frames stepped untimed first (scenes whose contact-rich phase comes later).
absl::Status RunPhaseCase(const std::string& name, int frames, int reps, int skip_frames);

}  // namespace contactsim::core::local_global_bench
