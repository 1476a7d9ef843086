// LCP solvers of the rigid_lcp pipeline (core/contact/complementarity): lexicographic Lemke
// against projected Gauss–Seidel by size n, on two classes of scenes/testbeds/random_lcp.h:
//   spd  M = A A^T / n + 0.1 I (where PGS is guaranteed to converge), q standard normal;
//   peg  the PEG-shaped LCP of planar piles (n / 5 bodies, non-symmetric, not P0).
// Per n and class: the median over --instances problems of Lemke's pivots and time, PGS's sweeps
// and time (tolerance 1e-10 on the natural-map residual, at most 10000 sweeps, omega 1), the ratio
// Lemke time / PGS time, and how many solves each solver failed (PGS failures are not timed in the
// ratio: the median is over its solved problems only, "-" when none). One thread; times are the
// median of 3 runs after one warm-up.
// Second table, the fallback chain's robustness (lcp_solver_chain.h): --robustness-trials random
// 3 x 3 integer problems (entries of M in [-2, 3] with a positive diagonal, q in [-3, 2]; mostly
// not P0); those where Lemke fails are classified as feasible or infeasible by enumeration
// (scenes/testbeds/lcp_enumeration.h) and counted by the path that solved them, with a check that
// no accepted answer has a residual above 1e-9. Tables in docs/rigid_lcp.md ("LCP solvers").
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/median_time.h"
#include "core/contact/complementarity/lcp_solver_chain.h"
#include "core/contact/complementarity/lemke.h"
#include "core/contact/complementarity/projected_gauss_seidel.h"
#include "scenes/testbeds/lcp_enumeration.h"
#include "scenes/testbeds/random_lcp.h"

namespace contactsim::bench {
namespace {

using core::LcpProblem;
using core::LcpSolution;
using core::LcpSolveStatus;

double Median(std::vector<double> v) {
  if (v.empty()) return -1.0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct Row {
  std::vector<double> pivots, lemke_ms, sweeps, pgs_ms, ratio;
  int lemke_failed = 0, pgs_failed = 0;
};

void Measure(const LcpProblem& p, Row* row) {
  LcpSolution lemke, pgs;
  const double t_lemke = MedianTime(3, 1, [&] { lemke = *core::SolveLcpLemke(p); });
  core::ProjectedGaussSeidelOptions options;
  options.max_iterations = 10000;
  const double t_pgs =
      MedianTime(3, 1, [&] { pgs = *core::SolveLcpProjectedGaussSeidel(p, options); });
  if (lemke.status == LcpSolveStatus::kSolved) {
    row->pivots.push_back(lemke.pivots);
    row->lemke_ms.push_back(1e3 * t_lemke);
  } else {
    ++row->lemke_failed;
  }
  if (pgs.status == LcpSolveStatus::kSolved) {
    row->sweeps.push_back(pgs.iterations);
    row->pgs_ms.push_back(1e3 * t_pgs);
    if (lemke.status == LcpSolveStatus::kSolved) row->ratio.push_back(t_lemke / t_pgs);
  } else {
    ++row->pgs_failed;
  }
}

std::string Format(double v, const char* format) {
  if (v < 0.0) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

void ChainRobustness(int trials, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> entry(-2, 3), offset(-3, 2);
  constexpr int kN = 3;
  std::map<std::string, int> counts;
  int lemke_failed = 0, bad_accepted = 0;
  for (int t = 0; t < trials; ++t) {
    LcpProblem p;
    p.m.resize(kN, kN);
    p.q.resize(kN);
    for (int i = 0; i < kN * kN; ++i) p.m.data()[i] = entry(rng);
    for (int i = 0; i < kN; ++i) {
      p.q[i] = offset(rng);
      if (p.m(i, i) <= 0.0) p.m(i, i) = 1.0;
    }
    const core::LcpSolverChainResult r = *core::SolveLcpWithFallback(p);
    if (r.attempts.front().status == LcpSolveStatus::kSolved) continue;
    ++lemke_failed;
    const bool feasible = !core::testing::EnumerateLcpSolutions(p.m, p.q, 1e-12).empty();
    std::string key = feasible ? "feasible | " : "infeasible | ";
    if (r.solved) {
      key += std::string(core::LcpSolverPathName(r.path));
      const Eigen::VectorXd w = p.m * r.solution.z + p.q;
      if (w.cwiseMin(r.solution.z).cwiseAbs().maxCoeff() > 1e-9) ++bad_accepted;
    } else {
      key += "unsolved (reported)";
    }
    ++counts[key];
  }
  std::printf(
      "\n%d random 3 x 3 problems; Lemke failed on %d; accepted answers with residual > "
      "1e-9: %d\n\n| LCP | path that solved it | problems |\n|---|---|---|\n",
      trials, lemke_failed, bad_accepted);
  for (const auto& [key, count] : counts) std::printf("| %s | %d |\n", key.c_str(), count);
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) {
  using namespace contactsim;
  CLI::App app{"Lemke vs projected Gauss-Seidel on random LCPs, n = 10 ... 300"};
  std::vector<int> sizes = {10, 25, 50, 100, 200, 300};
  int instances = 5;
  uint64_t seed = 1;
  app.add_option("--sizes", sizes, "problem sizes n");
  app.add_option("--instances", instances, "random problems per size and class")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "random seed");
  int robustness_trials = 60000;
  uint64_t robustness_seed = 2;
  app.add_option("--robustness-trials", robustness_trials,
                 "random 3 x 3 problems for the fallback chain table (0: none)");
  app.add_option("--robustness-seed", robustness_seed, "random seed of that table");
  CLI11_PARSE(app, argc, argv);

  std::printf(
      "| class | n | Lemke pivots | Lemke ms | PGS sweeps | PGS ms | Lemke / PGS time | failed "
      "(Lemke, PGS) |\n|---|---|---|---|---|---|---|---|\n");
  for (const char* cls : {"spd", "peg"}) {
    for (const int n : sizes) {
      std::mt19937_64 rng(seed + n);
      bench::Row row;
      int actual_n = 0;
      for (int k = 0; k < instances; ++k) {
        const core::LcpProblem p =
            std::string(cls) == "spd"
                ? core::testing::RandomLcp(core::testing::RandomLcpKind::kSymmetricPositiveDefinite,
                                           n, rng)
                : core::testing::PegLikeLcp(std::max(1, n / 5), rng);
        actual_n = static_cast<int>(p.q.size());
        bench::Measure(p, &row);
      }
      std::printf("| %s | %d | %s | %s | %s | %s | %s | %d, %d |\n", cls, actual_n,
                  bench::Format(bench::Median(row.pivots), "%.0f").c_str(),
                  bench::Format(bench::Median(row.lemke_ms), "%.3f").c_str(),
                  bench::Format(bench::Median(row.sweeps), "%.0f").c_str(),
                  bench::Format(bench::Median(row.pgs_ms), "%.3f").c_str(),
                  bench::Format(bench::Median(row.ratio), "%.2f").c_str(), row.lemke_failed,
                  row.pgs_failed);
      std::fflush(stdout);
    }
  }
  if (robustness_trials > 0) bench::ChainRobustness(robustness_trials, robustness_seed);
  return 0;
}
