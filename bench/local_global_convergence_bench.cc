// Twisting bar convergence (Zeng et al. 2024, Sec. 7.3, Fig. 9): one step of the bar (after
// --warmup-frames frames of twisting) by the complete solve, the sparse inverse S (20
// local-global iterations each) and Jacobi (--jacobi-iterations), with the incremental potential
// g(x^k) after every iteration against a Newton reference g*, for E = 1e5 .. 1e9 Pa. Two tables:
// (g(x^k) - g*) / |g*| and the paper's (g(x^k) - g*) / (g(x^0) - g*).
//
//   build/bench/local_global_convergence_bench [--cases bar5k] [--warmup-frames 10]
//       [--jacobi-iterations 1000]

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/local_global/bench_cli.h"
#include "bench/local_global/scene_run.h"
#include "bench/local_global/twisting_bar.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/implicit_euler_newton.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/linalg/cpu_backend.h"
#include "oneapi/tbb/info.h"

namespace contactsim::core::local_global_bench {
namespace {

const char* KindName(GlobalStepKind kind) {
  switch (kind) {
    case GlobalStepKind::kCompleteSolve:
      return "complete solve";
    case GlobalStepKind::kSparseInverse:
      return "sparse inverse";
    case GlobalStepKind::kJacobi:
      return "Jacobi";
  }
  return "?";
}

absl::Status RunConvergence(const std::string& name, int warmup_frames, int jacobi_iterations) {
  const std::vector<double> youngs_list = {1e5, 1e6, 1e7, 1e8, 1e9};
  const std::vector<GlobalStepKind> kinds = {
      GlobalStepKind::kCompleteSolve, GlobalStepKind::kSparseInverse, GlobalStepKind::kJacobi};
  constexpr int kRows = 20;
  const std::vector<int> jacobi_extra = {50, 100, 200, 500, 1000, 2000, 5000};
  // error[kind][E] -> per iteration (issue measure) and the paper's normalized measure.
  std::map<int, std::map<double, std::map<int, double>>> err, paper_err;
  std::map<double, std::string> newton_info;
  for (double youngs : youngs_list) {
    std::fprintf(stderr, "[%s convergence] E = %.0e: warm-up %d frames\n", name.c_str(), youngs,
                 warmup_frames);
    auto warm = MakeBarScene(name, GlobalStepKind::kCompleteSolve, 20, youngs);
    if (!warm.ok()) return warm.status();
    LocalGlobalState start = warm->start;
    for (int f = 1; f <= warmup_frames; ++f) {
      const Points3 targets = warm->pinned_targets(f);
      RETURN_IF_ERROR(warm->solver->Step(warm->f_ext_n, &start, &targets));
    }
    const Points3 targets = warm->pinned_targets(warmup_frames + 1);
    const Points3 predictor = warm->solver->Predictor(start, warm->f_ext_n);
    Points3 x_zero = predictor;
    for (size_t p = 0; p < warm->pinned.size(); ++p) x_zero.row(warm->pinned[p]) = targets.row(p);
    std::map<int, std::map<int, double>> g_of;  // kind -> k -> g(x^k)
    Points3 last_complete;
    for (GlobalStepKind kind : kinds) {
      const int iterations = kind == GlobalStepKind::kJacobi ? jacobi_iterations : kRows;
      std::map<int, double>& g = g_of[static_cast<int>(kind)];
      // g(x^k) with the warm-up solver (same mesh, material, h).
      LocalGlobalSolver* evaluator = warm->solver.get();
      auto material = BarMaterial(youngs);
      if (!material.ok()) return material.status();
      LocalGlobalOptions options;
      options.global_step = kind;
      options.iterations = iterations;
      options.pinned_vertices = warm->pinned;
      options.iteration_observer = [&](int k, const Points3& x) {
        if (k <= kRows ||
            std::find(jacobi_extra.begin(), jacobi_extra.end(), k) != jacobi_extra.end()) {
          g[k] = evaluator->IncrementalPotential(x, predictor);
        }
        if (kind == GlobalStepKind::kCompleteSolve && k == iterations) last_complete = x;
      };
      auto observed = LocalGlobalSolver::Create(*warm->tets, *material, kDt, options,
                                                std::make_shared<CpuBackend>());
      if (!observed.ok()) return observed.status();
      LocalGlobalState state = start;
      std::fprintf(stderr, "  %s: %d iterations\n", KindName(kind), iterations);
      RETURN_IF_ERROR((*observed)->Step(warm->f_ext_n, &state, &targets));
    }
    std::fprintf(stderr, "  Newton reference\n");
    const auto t0 = Clock::now();
    auto material = BarMaterial(youngs);
    if (!material.ok()) return material.status();
    auto newton = MinimizeIncrementalPotential(*warm->tets, *material, kDt, predictor,
                                               last_complete, warm->pinned, targets);
    if (!newton.ok()) return newton.status();
    const double g_star = warm->solver->IncrementalPotential(newton->x_m, predictor);
    const double g_zero = warm->solver->IncrementalPotential(x_zero, predictor);
    char info[200];
    std::snprintf(info, sizeof(info),
                  "%d iterations, |grad| %.2e N, converged %s, %.1f s, g* = %.6e J",
                  newton->iterations, newton->gradient_norm_n, newton->converged ? "yes" : "no",
                  Seconds(t0, Clock::now()), g_star);
    newton_info[youngs] = info;
    for (auto& [kind, g] : g_of) {
      for (auto& [k, value] : g) {
        err[kind][youngs][k] = (value - g_star) / std::abs(g_star);
        paper_err[kind][youngs][k] = (value - g_star) / (g_zero - g_star);
      }
    }
    for (auto& [kind, per_k] : paper_err) {  // progress: the paper's measure at a few k
      std::fprintf(stderr, "  %s (paper measure): k=5 %.2e, k=20 %.2e, last %.2e; %s\n",
                   KindName(static_cast<GlobalStepKind>(kind)), per_k[youngs][5], per_k[youngs][20],
                   per_k[youngs].rbegin()->second, info);
    }
  }
  BarGrid grid = BarGridOf(name);
  std::printf("\n### Twisting bar %s (%dx%dx%d cells), one step after %d frames, vs Newton\n",
              name.c_str(), grid.nx, grid.ny, grid.ny, warmup_frames);
  for (double youngs : youngs_list) {
    std::printf("- E = %.0e Pa Newton: %s\n", youngs, newton_info[youngs].c_str());
  }
  for (const auto* table : {&err, &paper_err}) {
    std::printf("\n%s\n\n| k |", table == &err
                                     ? "(g(x^k) - g*) / |g*| (issue measure)"
                                     : "(g(x^k) - g*) / (g(x^0) - g*) (paper's Fig. 9 measure)");
    for (double youngs : youngs_list) {
      for (GlobalStepKind kind : kinds) {
        std::printf(" %.0e %s |", youngs,
                    kind == GlobalStepKind::kCompleteSolve   ? "complete"
                    : kind == GlobalStepKind::kSparseInverse ? "S"
                                                             : "Jacobi");
      }
    }
    std::printf("\n|---|");
    for (size_t i = 0; i < youngs_list.size() * kinds.size(); ++i) std::printf("---|");
    std::printf("\n");
    std::vector<int> ks;
    for (int k = 1; k <= kRows; ++k) ks.push_back(k);
    for (int k : jacobi_extra) {
      if (k <= jacobi_iterations) ks.push_back(k);
    }
    for (int k : ks) {
      std::printf("| %d |", k);
      for (double youngs : youngs_list) {
        for (GlobalStepKind kind : kinds) {
          const auto& per_k = (*table).at(static_cast<int>(kind)).at(youngs);
          const auto it = per_k.find(k);
          if (it == per_k.end()) {
            std::printf(" |");
          } else {
            std::printf(" %.1e |", it->second);
          }
        }
      }
      std::printf("\n");
    }
  }
  std::fflush(stdout);
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  CLI::App app{
      "Twisting bar convergence: energy error vs a Newton reference (Zeng et al. 2024, Fig. 9)"};
  std::string cases = "bar5k";
  int warmup_frames = 10;
  int jacobi_iterations = 1000;
  app.add_option("--cases", cases, "comma list of bars: bar5k, bar11k, bar21k");
  app.add_option("--warmup-frames", warmup_frames, "frames before the measured step")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--jacobi-iterations", jacobi_iterations, "Jacobi rounds")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  std::printf(
      "local_global_convergence_bench: %d threads available, load average %.2f, h = %.3f s\n",
      tbb::info::default_concurrency(), LoadAverage(), kDt);
  for (const std::string& name : SplitCommas(cases)) {
    if (name.rfind("bar", 0) != 0) {
      std::fprintf(stderr, "--cases: '%s' is not a bar\n", name.c_str());
      return 1;
    }
    if (absl::Status s = RunConvergence(name, warmup_frames, jacobi_iterations); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
      return 1;
    }
  }
  std::printf("load average at the end %.2f\n", LoadAverage());
  return 0;
}

}  // namespace
}  // namespace contactsim::core::local_global_bench

int main(int argc, char** argv) { return contactsim::core::local_global_bench::Main(argc, argv); }
