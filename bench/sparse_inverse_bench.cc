// Sparse inverse factor S = L^{-1} (Zeng et al. 2024, Sec. 4) on square cloth grids without
// bending, the sizes of the paper's Table 1 (5.1k, 10.2k, 15.3k, 20.2k vertices):
//   - precompute: ordering + Cholesky of the scalar n x n Abar, then S (parallel over columns);
//   - nnz(S) and the memory of one CSR copy of S [MB = 2^20 B] (values 8 B + indices 4 B +
//     offsets), next to the paper's Table 1 S column (double, which factors the 3n x 3n A);
//   - the global step q = R^T (R b) on an n x 3 block (two SpMM, CpuBackend) against the
//     complete solve with the same factor (two sparse triangular solves), as a ratio in this
//     process, with the relative difference of the two results as a sanity check.
//
//   build-*/bench/sparse_inverse_bench [--reps 50] [--ordering nd|amd|both]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/median_time.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"

namespace contactsim::core {
namespace {

using bench::Clock;
using bench::MedianTime;
using bench::Seconds;

struct Size {
  int cells;        // grid cells per side: (cells + 1)^2 vertices
  double paper_mb;  // Table 1, S, no bending
};

int Run(int reps, const std::string& which) {
  const Size sizes[] = {{70, 34.80}, {100, 102.51}, {123, 183.79}, {141, 280.41}};
  std::vector<FillOrdering> orderings;
  if (which == "nd" || which == "both") orderings.push_back(FillOrdering::kNestedDissection);
  if (which == "amd" || which == "both") orderings.push_back(FillOrdering::kAmd);
  const int threads = tbb::info::default_concurrency();
  std::printf(
      "Sparse inverse S = L^-1 of the scalar cloth matrix Abar (n x n), %d threads, "
      "median of %d global steps\n",
      threads, reps);
  std::printf("%-5s %7s %9s %8s %11s %9s %9s %7s %10s %10s %10s %7s %7s %9s\n", "order", "verts",
              "factor_s", "S_s", "nnz(S)", "S_MB", "paper_MB", "ratio", "tri_ms", "S_ms", "S1t_ms",
              "tri/S", "tri/S1t", "rel_diff");
  for (const Size& size : sizes) {
    auto mesh = MakeClothGrid(1.0, 1.0, size.cells, size.cells);
    if (!mesh.ok()) {
      std::fprintf(stderr, "%s\n", std::string(mesh.status().message()).c_str());
      return 1;
    }
    // Cloth: areal density 0.2 kg/m^2, membrane stiffness 1e4 N/m, h = 1/60 s (the pattern,
    // and so nnz(S), does not depend on these).
    auto sys = AssembleSystemMatrix(*mesh, {0.2, 1.0e4, 1.0 / 60.0});
    if (!sys.ok()) {
      std::fprintf(stderr, "%s\n", std::string(sys.status().message()).c_str());
      return 1;
    }
    const int n = mesh->num_vertices();
    for (FillOrdering ordering : orderings) {
      const auto t0 = Clock::now();
      auto factor = OrderedCholesky::Compute(sys->a_bar, ordering);
      const auto t1 = Clock::now();
      if (!factor.ok()) {
        std::fprintf(stderr, "%s\n", std::string(factor.status().message()).c_str());
        return 1;
      }
      auto s = SparseInverseFactor::Compute(*factor);
      const auto t2 = Clock::now();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", std::string(s.status().message()).c_str());
        return 1;
      }
      CpuBackend backend;
      auto step = SparseInverseGlobalStep::Create(backend, *s, 3);
      auto b_id = backend.CreateDense(n, 3);
      auto q_id = backend.CreateDense(n, 3);
      if (!step.ok() || !b_id.ok() || !q_id.ok()) return 1;
      OrderedCholesky::Block b = OrderedCholesky::Block::Random(n, 3);
      *backend.dense(*b_id) = b;
      OrderedCholesky::Block complete;
      const double tri = MedianTime(reps, 3, [&] { complete = factor->Solve(b); });
      const double sparse_all = MedianTime(reps, 3, [&] { (void)step->Solve(*b_id, *q_id); });
      double sparse_one = 0.0;
      {
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        sparse_one = MedianTime(reps, 3, [&] { (void)step->Solve(*b_id, *q_id); });
      }
      const double rel = (*backend.dense(*q_id) - complete).norm() / complete.norm();
      const double mb = static_cast<double>(s->MemoryBytes()) / (1024.0 * 1024.0);
      std::printf(
          "%-5s %7d %9.3f %8.3f %11lld %9.2f %9.2f %7.3f %10.3f %10.3f %10.3f %7.2f %7.2f "
          "%9.1e\n",
          ordering == FillOrdering::kAmd ? "amd" : "nd", n, Seconds(t0, t1), Seconds(t1, t2),
          static_cast<long long>(s->nnz()), mb, size.paper_mb, mb / size.paper_mb, 1e3 * tri,
          1e3 * sparse_all, 1e3 * sparse_one, tri / sparse_all, tri / sparse_one, rel);
      std::fflush(stdout);
    }
  }
  std::printf(
      "S_MB: one CSR copy of the scalar S; the global step keeps R = S P and R^T (2x). "
      "ratio = S_MB / paper_MB.\n");
  return 0;
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) {
  CLI::App app{"Sparse inverse factor: precompute, memory and global-step timing on cloth grids"};
  int reps = 50;
  std::string ordering = "both";
  app.add_option("--reps", reps, "timed global steps per size (median)")
      ->check(CLI::PositiveNumber);
  app.add_option("--ordering", ordering, "nd, amd or both")
      ->check(CLI::IsMember({"nd", "amd", "both"}));
  CLI11_PARSE(app, argc, argv);
  return contactsim::core::Run(reps, ordering);
}
