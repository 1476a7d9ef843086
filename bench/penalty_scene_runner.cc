// Penalty scene runner: steps a scene of scenes/penalty/penalty_scenes.h with the contact models
// asked for, prints progress and a table (steps, simulated time, wall time, steps per second of
// wall time, deepest penetration, active pairs), and writes per model the contact force between
// the scene's force bodies and everything else (or the scene's force_against bodies: the chain's
// box) over time,
//   F_n = | sum over those contacts of the normal impulse J_n on the force bodies | / dt   [N],
// as CSV (step, time_s, force_n, active_pairs, max_penetration_m), plus a PNG plot like the
// paper's Fig. 8 when gnuplot is installed.
//
//   penalty_scene_runner --scene chain --steps 300 --out /tmp/chain
//   penalty_scene_runner --scene stick --model all --steps 80
//   penalty_scene_runner --scene rings --resolution 0.5 --count 4 --steps 500
//   penalty_scene_runner --scene bucket --model cpf --threads 1 --steps 50
//
//   penalty_scene_runner --scene rings --model dpf-dcd,cpf --dt 0.0333 --stiffness 20
//
// Per model the table also gives the force curve's smoothness (force_smoothness.h): the
// roughness (RMS second difference over the mean force) and the total variation per second over
// the mean, from the first step with a contact force to the end ("contact") and over the second
// half of the run ("late": for settling scenes, where the force should become constant).
//
// Deformable scenes (blob, tori_cloth, bucket) are also checked for bodies passing through their
// container or cloth (PenaltyScene::check_containment) every 10 steps and at the end; a run
// stops at the first failure. Wall times exclude scene building and these checks. --threads
// caps TBB's parallelism (tbb::global_control); a "summary" line per model gives milliseconds
// per step and steps per second for benchmark tables.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/common/status_macros.h"
#include "core/sim/world.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"
#include "scenes/penalty/force_smoothness.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct ModelChoice {
  const char* flag;
  core::ContactModel model;
};

constexpr ModelChoice kModels[] = {
    {"dpf", core::ContactModel::kDpf},
    {"dpf-ccd", core::ContactModel::kDpfCcdNormal},
    {"cpf", core::ContactModel::kCpf},
    {"cpf-exact", core::ContactModel::kCpfExact},
    {"dpf-dcd", core::ContactModel::kDpfProximity},
};

struct Sample {
  int64_t step = 0;
  double time_s = 0.0;
  double force_n = 0.0;
  int active_pairs = 0;
  double max_penetration_m = 0.0;
};

// Wall time per step of the pipeline's phases, summed over the run [ms] (StepDiagnostics).
struct PhaseTotals {
  double broad_ms = 0.0;        // CCD broad phase
  double narrow_ms = 0.0;       // CCD narrow phase (with each hit's penetration intervals)
  double pairs_ms = 0.0;        // tracking and normal impulses (CPF, DPF), plane contacts
  double friction_ms = 0.0;     // friction
  double integration_ms = 0.0;  // predict and correct
  double report_ms = 0.0;       // the contact report
  double candidates = 0.0;      // VF + EE candidates
  double hits = 0.0;            // VF + EE hits
};

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

struct RunResult {
  std::string model;
  int steps = 0;
  double sim_time_s = 0.0;
  double wall_s = 0.0;
  double cpu_s = 0.0;  // process CPU time (all threads) over the stepping, checks included
  PhaseTotals phases;
  double max_penetration_m = 0.0;
  int max_active_pairs = 0;
  double mean_active_pairs = 0.0;
  // Of the tracked VF/EE pair-steps, the share that were new contacts (found by CCD in that
  // step); the rest were pairs tracked from an earlier step (penalty_pair_bench prices both).
  double new_pair_share = 0.0;
  std::string stopped;            // why the run ended early; empty when it finished
  std::string containment = "-";  // deformable scenes: "ok" or what passed through where
  std::vector<Sample> samples;
  core::ForceSmoothness contact_smoothness;  // from the first nonzero force to the end
  core::ForceSmoothness late_smoothness;     // the second half of the run
};

// The smoothness of the samples' force from index `begin` to the end.
core::ForceSmoothness SmoothnessFrom(const std::vector<Sample>& samples, size_t begin,
                                     double dt_s) {
  std::vector<double> force;
  for (size_t i = begin; i < samples.size(); ++i) force.push_back(samples[i].force_n);
  return core::MeasureForceSmoothness(force, dt_s);
}

// The contact force between the force bodies and the rest, over the last step [N].
// `against` empty: with everything else; otherwise only with those bodies.
double ContactForce(const core::ContactReport& report, const std::unordered_set<int32_t>& bodies,
                    const std::unordered_set<int32_t>& against, double dt_s) {
  const auto counts = [&](int32_t other) {
    return against.empty() ? !bodies.contains(other) : against.contains(other);
  };
  core::Vec3 sum = core::Vec3::Zero();
  for (const core::ContactRecord& c : report.contacts) {
    if (bodies.contains(c.body_a) && counts(c.body_b)) sum += c.normal_impulse_n_s;
    if (bodies.contains(c.body_b) && counts(c.body_a)) sum -= c.normal_impulse_n_s;
  }
  return sum.norm() / dt_s;
}

absl::StatusOr<RunResult> RunModel(const std::string& scene_name, const ModelChoice& choice,
                                   const core::PenaltySceneOptions& base, int steps,
                                   int* triangles) {
  core::PenaltySceneOptions options = base;
  options.contact_model = choice.model;
  ASSIGN_OR_RETURN(core::PenaltyScene scene, core::MakePenaltyScene(scene_name, options));
  core::World& world = scene.world;
  *triangles = scene.num_triangles;
  const std::unordered_set<int32_t> force_bodies(scene.force_bodies.begin(),
                                                 scene.force_bodies.end());
  const std::unordered_set<int32_t> force_against(scene.force_against.begin(),
                                                  scene.force_against.end());
  std::printf("[%s] %s\n", choice.flag, scene.description.c_str());
  RunResult result;
  result.model = choice.flag;
  result.samples.reserve(steps);
  const double dt = world.settings().dt_s;
  const Clock::time_point start = Clock::now();
  const double cpu_start = ProcessCpuSeconds();
  Clock::time_point last_report = start;
  double active_sum = 0.0;
  int64_t new_pair_steps = 0, pair_steps = 0;
  // Deformable scenes: nothing may pass through the container or cloth; checked every
  // kCheckEvery steps and after the last, outside the timed stepping.
  constexpr int kCheckEvery = 10;
  double check_s = 0.0;
  const auto check = [&]() {
    if (!scene.check_containment) return true;
    const Clock::time_point check_start = Clock::now();
    const absl::Status status = scene.check_containment(world);
    check_s += std::chrono::duration<double>(Clock::now() - check_start).count();
    result.containment = status.ok() ? "ok" : std::string(status.message());
    return status.ok();
  };
  for (int i = 0; i < steps; ++i) {
    if (absl::Status status = world.Step(1); !status.ok()) {
      result.stopped = std::string(status.message());
      break;
    }
    const core::StepDiagnostics& d = world.last_diagnostics();
    Sample sample;
    sample.step = d.step;
    sample.time_s = d.time_s;
    sample.force_n = ContactForce(world.last_contact_report(), force_bodies, force_against, dt);
    sample.active_pairs = d.active_pairs + d.plane_contacts;
    sample.max_penetration_m = d.max_penetration_depth_m;
    result.samples.push_back(sample);
    result.max_penetration_m = std::max(result.max_penetration_m, sample.max_penetration_m);
    result.max_active_pairs = std::max(result.max_active_pairs, sample.active_pairs);
    active_sum += sample.active_pairs;
    new_pair_steps += d.new_pairs;
    pair_steps += d.active_pairs;
    PhaseTotals& p = result.phases;
    p.broad_ms += d.ccd.broad_phase_ms;
    p.narrow_ms += d.ccd.narrow_phase_ms;
    p.pairs_ms += d.stage_times.contacts_ms - d.ccd.total_ms;
    p.friction_ms += d.stage_times.friction_ms;
    p.integration_ms += d.stage_times.predict_ms + d.stage_times.correct_ms;
    p.report_ms += d.stage_times.report_ms;
    p.candidates += d.ccd.vertex_face_candidates + d.ccd.edge_edge_candidates;
    p.hits += d.ccd.vertex_face_hits + d.ccd.edge_edge_hits;
    if ((i + 1) % kCheckEvery == 0 && !check()) {
      result.stopped = "passed through";
      break;
    }
    const Clock::time_point now = Clock::now();
    if (now - last_report > std::chrono::seconds(2)) {
      last_report = now;
      std::printf("[%s] step %d/%d  t = %.3f s  F = %.4g N  pairs %d\n", choice.flag, i + 1, steps,
                  sample.time_s, sample.force_n, sample.active_pairs);
      std::fflush(stdout);
    }
  }
  if (result.stopped.empty()) check();
  result.wall_s = std::chrono::duration<double>(Clock::now() - start).count() - check_s;
  result.cpu_s = ProcessCpuSeconds() - cpu_start;
  result.steps = static_cast<int>(result.samples.size());
  result.sim_time_s = world.time_s();
  result.mean_active_pairs = result.steps > 0 ? active_sum / result.steps : 0.0;
  result.new_pair_share = pair_steps > 0 ? static_cast<double>(new_pair_steps) / pair_steps : 0.0;
  size_t first_contact = 0;
  while (first_contact < result.samples.size() && !(result.samples[first_contact].force_n > 0.0)) {
    ++first_contact;
  }
  result.contact_smoothness = SmoothnessFrom(result.samples, first_contact, dt);
  result.late_smoothness = SmoothnessFrom(result.samples, result.samples.size() / 2, dt);
  return result;
}

absl::Status WriteCsv(const std::filesystem::path& path, const RunResult& result) {
  std::ofstream out(path);
  if (!out) return absl::InternalError(absl::StrFormat("cannot write %s", path.string()));
  out << "step,time_s,force_n,active_pairs,max_penetration_m\n";
  for (const Sample& s : result.samples) {
    out << absl::StrFormat("%d,%.9g,%.9g,%d,%.9g\n", s.step, s.time_s, s.force_n, s.active_pairs,
                           s.max_penetration_m);
  }
  return out.good() ? absl::OkStatus()
                    : absl::InternalError(absl::StrFormat("write failed: %s", path.string()));
}

bool HaveGnuplot() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

// Writes the gnuplot script next to the CSVs; runs it when gnuplot is installed.
void Plot(const std::filesystem::path& dir, const std::string& scene,
          const std::vector<RunResult>& results) {
  const std::filesystem::path script = dir / (scene + "_force.gp");
  const std::filesystem::path png = dir / (scene + "_force.png");
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 1000,600\n";
  gp << "set output '" << png.string() << "'\n";
  gp << "set datafile separator ','\n";
  gp << "set title 'Contact force, " << scene << " scene'\n";
  gp << "set xlabel 'time [s]'\nset ylabel 'contact force magnitude [N]'\nset grid\n";
  std::vector<std::string> curves;
  for (const RunResult& r : results) {
    curves.push_back(absl::StrFormat("'%s' using 2:3 with lines title '%s'",
                                     (dir / (scene + "_" + r.model + ".csv")).string(), r.model));
  }
  gp << "plot " << absl::StrJoin(curves, ", \\\n     ") << "\n";
  gp.close();
  if (HaveGnuplot()) {
    const std::string command = absl::StrFormat("gnuplot '%s'", script.string());
    if (std::system(command.c_str()) == 0) {
      std::printf("plot: %s\n", png.string().c_str());
      return;
    }
    std::printf("gnuplot failed on %s\n", script.string().c_str());
    return;
  }
  std::printf(
      "gnuplot not found: no PNG. Install it (apt-get install gnuplot-nox) and run\n"
      "  gnuplot '%s'\n",
      script.string().c_str());
}

int Main(int argc, char** argv) {
  CLI::App app{"Runs a penalty-pipeline scene with DPF and CPF and plots the contact force"};
  std::string scene = "chain";
  int steps = 300;
  std::vector<std::string> models = {"dpf", "cpf"};
  std::string out_dir = "penalty_scene_out";
  core::PenaltySceneOptions options;
  app.add_option("--scene", scene, absl::StrJoin(core::PenaltySceneNames(), ", "));
  app.add_option("--steps", steps, "steps per model")->check(CLI::PositiveNumber);
  app.add_option("--model", models, "dpf, dpf-ccd, dpf-dcd, cpf, cpf-exact or all (repeatable)")
      ->delimiter(',');
  app.add_option("--out", out_dir, "folder for the CSV files, gnuplot script and PNG");
  app.add_option("--resolution", options.resolution, "mesh resolution in (0, 1]");
  app.add_option("--count", options.count,
                 "links, rings, tori or balls (<= 0: the scene's full size)");
  app.add_option("--dt", options.dt_s, "time step [s] (0: the scene's)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--stiffness", options.stiffness_n_per_m,
                 "penalty stiffness k [N/m] (0: the scene's)")
      ->check(CLI::NonNegativeNumber);
  int threads = 0;
  app.add_option("--threads", threads, "worker threads (TBB), 0: all cores")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  const int threads_used = threads > 0 ? threads : tbb::info::default_concurrency();
  tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, threads_used);
  std::printf("threads: %d (of %d cores)\n", threads_used, tbb::info::default_concurrency());

  std::vector<ModelChoice> chosen;
  for (const ModelChoice& m : kModels) {
    const bool wanted = std::find(models.begin(), models.end(), m.flag) != models.end() ||
                        std::find(models.begin(), models.end(), "all") != models.end();
    if (wanted) chosen.push_back(m);
  }
  for (const std::string& m : models) {
    const bool known = m == "all" || std::any_of(std::begin(kModels), std::end(kModels),
                                                 [&](const ModelChoice& c) { return m == c.flag; });
    if (!known) {
      std::fprintf(stderr, "--model: unknown '%s' (dpf, dpf-ccd, dpf-dcd, cpf, cpf-exact, all)\n",
                   m.c_str());
      return 2;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "--out: cannot create %s: %s\n", out_dir.c_str(), ec.message().c_str());
    return 1;
  }

  std::vector<RunResult> results;
  int triangles = 0;
  for (const ModelChoice& m : chosen) {
    absl::StatusOr<RunResult> r = RunModel(scene, m, options, steps, &triangles);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", std::string(r.status().message()).c_str());
      return 1;
    }
    const std::filesystem::path csv =
        std::filesystem::path(out_dir) / (scene + "_" + r->model + ".csv");
    if (absl::Status s = WriteCsv(csv, *r); !s.ok()) {
      std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
      return 1;
    }
    results.push_back(*std::move(r));
  }

  std::printf("\n%-10s %7s %9s %9s %12s %9s %14s %12s %12s  %s\n", "model", "steps", "sim [s]",
              "wall [s]", "ms per step", "steps/s", "max pen. [m]", "pairs max", "pairs mean",
              "note");
  for (const RunResult& r : results) {
    const double fps = r.wall_s > 0.0 ? r.steps / r.wall_s : 0.0;
    const double ms_per_step = r.steps > 0 ? 1e3 * r.wall_s / r.steps : 0.0;
    std::string note = r.stopped.empty() ? "" : "stopped: " + r.stopped + "; ";
    if (r.containment != "-") note += "containment: " + r.containment;
    std::printf("%-10s %7d %9.3f %9.3f %12.3f %9.1f %14.4e %12d %12.1f  %s\n", r.model.c_str(),
                r.steps, r.sim_time_s, r.wall_s, ms_per_step, fps, r.max_penetration_m,
                r.max_active_pairs, r.mean_active_pairs, note.c_str());
  }
  std::printf("\n%-10s %10s %12s %12s %12s %12s\n", "model", "mean F [N]", "rough", "var [1/s]",
              "late rough", "late var");
  for (const RunResult& r : results) {
    std::printf("%-10s %10.4g %12.4f %12.4f %12.4f %12.4f\n", r.model.c_str(),
                r.contact_smoothness.mean_force_n, r.contact_smoothness.roughness,
                r.contact_smoothness.variation_per_s, r.late_smoothness.roughness,
                r.late_smoothness.variation_per_s);
  }
  // One machine-readable line per model for benchmark tables.
  for (const RunResult& r : results) {
    std::printf(
        "summary scene=%s model=%s threads=%d triangles=%d steps=%d wall_s=%.3f "
        "ms_per_step=%.3f steps_per_s=%.2f roughness=%.4f variation_per_s=%.4f "
        "late_roughness=%.4f late_variation_per_s=%.4f new_pair_share=%.4f\n",
        scene.c_str(), r.model.c_str(), threads_used, triangles, r.steps, r.wall_s,
        r.steps > 0 ? 1e3 * r.wall_s / r.steps : 0.0, r.wall_s > 0.0 ? r.steps / r.wall_s : 0.0,
        r.contact_smoothness.roughness, r.contact_smoothness.variation_per_s,
        r.late_smoothness.roughness, r.late_smoothness.variation_per_s, r.new_pair_share);
  }
  // Per phase, mean wall time per step (StepDiagnostics), and the CPU time per step.
  for (const RunResult& r : results) {
    const double n = std::max(r.steps, 1);
    const PhaseTotals& p = r.phases;
    std::printf(
        "phases scene=%s model=%s threads=%d broad_ms=%.4f narrow_ms=%.4f pairs_ms=%.4f "
        "friction_ms=%.4f integration_ms=%.4f report_ms=%.4f cpu_ms_per_step=%.4f "
        "candidates=%.0f hits=%.1f\n",
        scene.c_str(), r.model.c_str(), threads_used, p.broad_ms / n, p.narrow_ms / n,
        p.pairs_ms / n, p.friction_ms / n, p.integration_ms / n, p.report_ms / n, 1e3 * r.cpu_s / n,
        p.candidates / n, p.hits / n);
  }
  std::printf("\nCSV per model in %s (step, time_s, force_n, active_pairs, max_penetration_m)\n",
              out_dir.c_str());
  Plot(out_dir, scene, results);
  return 0;
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) { return contactsim::bench::Main(argc, argv); }
