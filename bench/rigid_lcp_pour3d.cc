// The 3D pouring scene of issue 18 (scenes/rigid_lcp/pour3d_scene.h) with PEG and the standard
// model: per run the steps/s of the stepper (one thread), the deepest vertex inside the container,
// the largest total overlap volume between bodies, escapes, solver failures and the largest LCP.
//
//   rigid_lcp_pour3d --bodies 10,20 --steps-ms 1,2,4,8,16 --models peg,standard [--duration-s 5]
// Steps/s by the wall clock and by the thread's CPU time (this machine is shared: the CPU figure is
// the one to compare across runs). Beside the outcome it prints where the stepper's CPU time went
// (contact search, islands, projection) and the position projection's own solves.
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/pgs_stall_trace.h"
#include "scenes/rigid_lcp/pour3d_scene.h"

int main(int argc, char** argv) {
  CLI::App app{"3D pouring with the rigid_lcp stepper: PEG against the standard model"};
  std::vector<int> bodies = {10};
  std::vector<double> steps_ms = {1, 2, 4, 8, 16};
  std::vector<std::string> models = {"peg", "standard"};
  double duration_s = 5.0;
  uint64_t seed = 1;
  double friction = 1.0;
  int projection_passes = 0;
  int direct_max_unknowns = -1;
  app.add_option("--bodies", bodies, "N values (comma separated)")->delimiter(',');
  app.add_option("--steps-ms", steps_ms, "time steps h [ms] (comma separated)")->delimiter(',');
  app.add_option("--models", models, "peg and/or standard")
      ->delimiter(',')
      ->check(CLI::IsMember({"peg", "standard"}));
  app.add_option("--duration-s", duration_s, "simulated time [s]")->check(CLI::PositiveNumber);
  app.add_option("--seed", seed, "random bodies' seed");
  app.add_option("--friction", friction, "Coulomb coefficient (the issue's scene: 1)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--projection-passes", projection_passes,
                 "position projection passes after each step (0: the paper's stepper)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--direct-max-unknowns", direct_max_unknowns,
                 "islands up to this LCP size pivot, larger ones use PGS (0: pivot always; "
                 "default: the stepper's)");
  bool projection_iterative = false;
  int pgs_block_iterations = 1;
  double pgs_stall_relaxation = 1.0;
  app.add_flag("--projection-pgs", projection_iterative,
               "the projection's islands above --direct-max-unknowns by PGS too");
  app.add_option("--pgs-block-iterations", pgs_block_iterations,
                 "PGS passes over each contact's normal and friction per sweep")
      ->check(CLI::PositiveNumber);
  app.add_option("--pgs-stall-relaxation", pgs_stall_relaxation,
                 "PGS under-relaxation after a stall (1: a stall ends the run)")
      ->check(CLI::Range(1e-3, 1.0));
  int pgs_local_max_unknowns = 0;
  int pgs_local_stall_sweeps = 20;
  std::string pgs_trace_path;
  app.add_option("--pgs-local-max-unknowns", pgs_local_max_unknowns,
                 "PGS: solve the stalled contacts exactly (pivoting, the rest held) up to this "
                 "many LCP unknowns (0: never)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--pgs-local-stall-sweeps", pgs_local_stall_sweeps,
                 "PGS: sweeps without a 1 % improvement before a local exact solve")
      ->check(CLI::PositiveNumber);
  app.add_option("--pgs-trace", pgs_trace_path,
                 "write why each unconverged PGS run stalled to this file");
  CLI11_PARSE(app, argc, argv);
  std::FILE* trace_file = nullptr;
  if (!pgs_trace_path.empty()) {
    trace_file = std::fopen(pgs_trace_path.c_str(), "w");
    if (trace_file == nullptr) {
      std::fprintf(stderr, "--pgs-trace: cannot write %s\n", pgs_trace_path.c_str());
      return 1;
    }
  }
  contactsim::bench::PgsStallTrace trace(trace_file);

  std::printf(
      "| model | N | h [ms] | steps | steps/s | steps/s (CPU) | max depth in container [m] | max "
      "overlap [m^3] "
      "| escaped | failures | largest LCP | PGS islands | PGS fallbacks | local solves | sweeps "
      "| pivots "
      "| uncorrected islands | projection: failures | PGS islands | PGS fallbacks | sweeps "
      "| pivots | time [s]: search | islands | projection |\n");
  std::printf(
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
      "---|---|---|---|---|\n");
  for (const std::string& model : models) {
    for (const int n : bodies) {
      for (const double h_ms : steps_ms) {
        contactsim::scenes::Pour3dOptions options;
        options.bodies = n;
        options.step_s = h_ms * 1e-3;
        options.duration_s = duration_s;
        options.seed = seed;
        options.friction_coefficient = friction;
        options.projection_passes = projection_passes;
        options.direct_max_unknowns = direct_max_unknowns;
        options.projection_iterative = projection_iterative;
        options.pgs_block_iterations = pgs_block_iterations;
        options.pgs_stall_relaxation = pgs_stall_relaxation;
        options.pgs_local_max_unknowns = pgs_local_max_unknowns;
        options.pgs_local_stall_sweeps = pgs_local_stall_sweeps;
        if (trace_file != nullptr) {
          options.pgs_trace = [&](const contactsim::core::SpatialContactPgsSweep& sweep) {
            trace(sweep);
          };
        }
        options.model = model == "peg" ? contactsim::core::PolytopeContactModel::kPeg
                                       : contactsim::core::PolytopeContactModel::kStandard;
        const auto report = contactsim::scenes::RunPour3d(options, [&](int step, int total) {
          std::fprintf(stderr, "\r%s N=%d h=%g ms: step %d / %d", model.c_str(), n, h_ms, step,
                       total);
        });
        std::fprintf(stderr, "\n");
        std::printf(
            "| %s | %d | %g | %d | %.0f | %.0f | %.3g | %.3g | %d | %d | %d | %d | %d | %d | %lld "
            "| %lld | %d "
            "| %d | %d | %d | %lld | %lld | %.1f | %.1f | %.1f |\n",
            model.c_str(), n, h_ms, report.steps, report.steps / report.stepper_seconds,
            report.steps / report.stepper_cpu_seconds, report.max_container_depth_m,
            report.max_overlap_volume_m3, report.escaped, report.solver_failures,
            report.largest_lcp, report.iterative_islands, report.iterative_fallbacks,
            report.iterative_local_solves, static_cast<long long>(report.sweeps),
            static_cast<long long>(report.pivots), report.uncorrected_islands,
            report.projection_failures, report.projection_iterative_islands,
            report.projection_iterative_fallbacks, static_cast<long long>(report.projection_sweeps),
            static_cast<long long>(report.projection_pivots), report.search_seconds,
            report.islands_seconds, report.projection_seconds);
        if (!report.failure.empty()) std::printf("  failure: %s\n", report.failure.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (trace_file != nullptr) {
    trace.Summarize(trace_file);
    trace.Summarize(stderr);
    std::fclose(trace_file);
  }
  return 0;
}
