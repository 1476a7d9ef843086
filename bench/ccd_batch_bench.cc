// ccd_batch_bench: queries per second of the GPU batch CCD (contactsim/gpu/batch_ccd.h) against
// one CPU core running the same CCD (core/collision/ccd) on the same queries, and whether they
// agree: the GPU runs the CPU's code compiled for the device, so any answer that differs in its
// hit flag or time-of-impact bits counts as a miss.
//
//   ccd_batch_bench [--random N] [--repeats R] [--min-separation D]
//
// Sets: the public benchmark (../shared/ccd-benchmark/data or $CONTACTSIM_CCD_BENCHMARK_DIR,
// 38,090 labelled queries; also counted: false negatives against the exact labels) and N random
// queries from the CPU property test's family mix (TrajectoryGenerator::Mixed, vf and ee
// alternating). CPU: one thread, each query once, in order. GPU: the whole set as one batch,
// the best of R runs after a warm-up run, host-device transfers and host fallbacks included;
// "kernel q/s" is the kernel alone (CUDA events), the best of the same runs.
// Without a CUDA device the GPU column says why it was skipped.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "contactsim/gpu/batch_ccd.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_benchmark_data.h"
#include "scenes/testbeds/ccd_random_generators.h"

namespace contactsim::bench {
namespace {

using core::CcdOptions;
using core::CcdQuery;
using core::CcdResult;

struct Set {
  std::string name;
  std::vector<CcdQuery> queries;
  std::vector<int8_t> labels;  // 1/0 where known (the benchmark), empty otherwise
};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<CcdResult> RunCpu(const std::vector<CcdQuery>& queries, const CcdOptions& options,
                              double* seconds) {
  std::vector<CcdResult> results(queries.size());
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < queries.size(); ++i) {
    results[i] = queries[i].kind == core::CcdQueryKind::kVertexFace
                     ? core::VertexFaceCcd(queries[i].trajectory, options)
                     : core::EdgeEdgeCcd(queries[i].trajectory, options);
  }
  *seconds = Seconds(start);
  return results;
}

int Main(int argc, char** argv) {
  CLI::App app{"GPU batch CCD against one CPU core: queries/s and agreement."};
  int64_t random_count = 1'000'000;
  int repeats = 3;
  CcdOptions options;
  app.add_option("--random", random_count, "random queries (property-test family mix)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeats", repeats, "timed GPU runs per set (best reported)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-separation", options.min_separation_m, "thickness d [m]")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);

  std::vector<Set> sets;
  absl::StatusOr<std::vector<core::testing::LabeledCcdQuery>> labelled =
      core::testing::LoadCcdBenchmark(core::testing::CcdBenchmarkDir(CONTACTSIM_CCD_BENCHMARK_DIR));
  if (labelled.ok()) {
    Set set{"benchmark", {}, {}};
    for (const auto& q : *labelled) {
      set.queries.push_back(q.query);
      set.labels.push_back(q.collides ? 1 : 0);
    }
    sets.push_back(std::move(set));
  } else {
    std::printf("benchmark set skipped: %s\n", std::string(labelled.status().message()).c_str());
  }
  if (random_count > 0) {
    Set set{"random", {}, {}};
    core::testing::TrajectoryGenerator generator(0xbe7c4);
    set.queries.resize(static_cast<size_t>(random_count));
    for (int64_t i = 0; i < random_count; ++i) {
      const bool vertex_face = i % 2 == 0;
      set.queries[i].kind =
          vertex_face ? core::CcdQueryKind::kVertexFace : core::CcdQueryKind::kEdgeEdge;
      set.queries[i].trajectory = generator.Mixed(vertex_face, 5e-3);
    }
    sets.push_back(std::move(set));
  }

  absl::StatusOr<std::unique_ptr<gpu::BatchCcd>> batch = gpu::BatchCcd::Create(0);
  std::printf(
      "d = %g m; GPU: %s\n\n", options.min_separation_m,
      batch.ok() ? "device 0" : ("skipped: " + std::string(batch.status().message())).c_str());
  std::printf("%-10s %9s %14s %14s %9s %15s %8s %8s %8s %10s\n", "set", "queries", "CPU 1 core q/s",
              "GPU q/s", "GPU/CPU", "kernel q/s", "misses", "GPU FN", "CPU FN", "on host");
  bool all_agree = true;
  for (const Set& set : sets) {
    double cpu_seconds = 0.0;
    const std::vector<CcdResult> cpu = RunCpu(set.queries, options, &cpu_seconds);
    const double n = static_cast<double>(set.queries.size());
    int64_t cpu_false_negatives = 0;
    for (size_t i = 0; i < set.labels.size(); ++i) {
      cpu_false_negatives += set.labels[i] == 1 && !cpu[i].collides;
    }
    const std::string cpu_fn = set.labels.empty() ? "-" : std::to_string(cpu_false_negatives);
    if (!batch.ok()) {
      std::printf("%-10s %9zu %14.0f %14s %9s %15s %8s %8s %8s %10s\n", set.name.c_str(),
                  set.queries.size(), n / cpu_seconds, "skipped", "-", "-", "-", "-",
                  cpu_fn.c_str(), "-");
      continue;
    }
    absl::StatusOr<std::vector<CcdResult>> gpu = (*batch)->Run(set.queries, options);  // warm-up
    double best = 0.0, best_kernel = 0.0;
    for (int r = 0; r < repeats && gpu.ok(); ++r) {
      const auto start = std::chrono::steady_clock::now();
      gpu = (*batch)->Run(set.queries, options);
      const double seconds = Seconds(start);
      const double kernel = (*batch)->last_stats().kernel_seconds;
      if (r == 0 || seconds < best) best = seconds;
      if (r == 0 || kernel < best_kernel) best_kernel = kernel;
    }
    if (!gpu.ok()) {
      std::printf("%s: GPU failed: %s\n", set.name.c_str(),
                  std::string(gpu.status().message()).c_str());
      return 1;
    }
    int64_t misses = 0, gpu_false_negatives = 0;
    for (size_t i = 0; i < set.queries.size(); ++i) {
      const CcdResult& a = cpu[i];
      const CcdResult& b = (*gpu)[i];
      misses += a.collides != b.collides || std::memcmp(&a.toi, &b.toi, sizeof(double)) != 0;
      if (i < set.labels.size()) gpu_false_negatives += set.labels[i] == 1 && !b.collides;
    }
    all_agree = all_agree && misses == 0 && gpu_false_negatives == 0;
    const std::string gpu_fn = set.labels.empty() ? "-" : std::to_string(gpu_false_negatives);
    std::printf("%-10s %9zu %14.0f %14.0f %8.1fx %15.0f %8lld %8s %8s %10lld\n", set.name.c_str(),
                set.queries.size(), n / cpu_seconds, n / best, cpu_seconds / best,
                best_kernel > 0.0 ? n / best_kernel : 0.0, static_cast<long long>(misses),
                gpu_fn.c_str(), cpu_fn.c_str(),
                static_cast<long long>((*batch)->last_stats().host_answered));
  }
  std::printf(
      "\nmisses: answers (hit flag or toi bits) where the GPU differs from the CPU; FN: false\n"
      "negatives against the benchmark's exact labels; on host: queries whose search outgrew the\n"
      "device's box heap, answered by the CPU code inside the GPU timing.\n");
  return all_agree ? 0 : 1;
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) { return contactsim::bench::Main(argc, argv); }
