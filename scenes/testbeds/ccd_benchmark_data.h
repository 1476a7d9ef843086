// The public CCD benchmark's labelled queries (../shared/ccd-benchmark/data, README there: 38,090
// vertex-face and edge-edge queries with exact labels), read for tests and benchmarks. The files
// stay outside the repository; they are gzip-compressed, read through `gzip -dc`, or read
// directly where a decompressed copy (the name without ".gz") lies beside them.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/collision/ccd/query_text.h"

namespace contactsim::core::testing {

struct LabeledCcdQuery {
  CcdQuery query;
  bool collides = false;  // the benchmark's exact label
};

// The benchmark's four files, in a fixed order.
inline constexpr const char* kCcdBenchmarkFiles[] = {
    "vf_handcrafted.txt.gz", "vf_simulation.txt.gz", "ee_handcrafted.txt.gz",
    "ee_simulation.txt.gz"};
inline constexpr int kCcdBenchmarkQueryCount = 38'090;

// The data folder: $CONTACTSIM_CCD_BENCHMARK_DIR when set, else `default_dir` (the build passes
// <repo>/../shared/ccd-benchmark/data).
std::string CcdBenchmarkDir(const std::string& default_dir);

// Every query of the four files. NotFound naming the path when a file is missing; InvalidArgument
// naming the file and line when a line is not "<query> <label>".
absl::StatusOr<std::vector<LabeledCcdQuery>> LoadCcdBenchmark(const std::string& dir);

}  // namespace contactsim::core::testing
