// The paper's 2D polygon pouring (Williams, Lu & Trinkle 2016 §6, Fig. 21) with PEG and the
// standard model: scenes/rigid_lcp/pour2d_scene.h runs one (model, h, set); this runner sweeps
// them, prints progress and a table, and writes two CSVs (one row per run, one per (model, h)
// pooled over the sets: median, the authors' Q3, p75 and max of the per-step overlap area, solver
// failures and which fallback path solved the steps). bench/plot_peg_pour2d.py draws the figure.
//
//   build/bench/peg_pour2d --threads 2 --runs-csv pour2d_runs.csv --summary-csv pour2d_summary.csv
//
// Exit 77 (skip) when the body sets (shared/papers/peg-2d-body-sets.csv) are absent.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "scenes/rigid_lcp/pour2d_scene.h"

namespace {

using contactsim::core::LcpSolverPath;
using contactsim::core::LcpSolverPathName;
using contactsim::core::PolygonContactModel;
using contactsim::scenes::Pour2dRun;

// A model as the runner names it: peg, standard, and the same with the position projection
// (peg_projected, standard_projected; planar_lcp_stepper.h).
struct Variant {
  std::string name;
  PolygonContactModel model;
  int projection_iterations;
};

struct Job {
  Variant variant;
  double h;
  std::string set;
  Pour2dRun run;
  bool done = false;
};

bool ParseVariant(const std::string& name, Variant* v) {
  const bool projected = name.ends_with("_projected");
  const std::string base = projected ? name.substr(0, name.size() - 10) : name;
  if (base != "peg" && base != "standard") return false;
  *v = {name, base == "peg" ? PolygonContactModel::kPeg : PolygonContactModel::kStandard,
        projected ? 3 : 0};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"2D polygon pouring (paper §6): overlap area of PEG and the standard model"};
  std::string body_sets = std::string(CONTACTSIM_PAPERS_DIR) + "/peg-2d-body-sets.csv";
  std::string models = "peg,standard", sets = "abcdefghij";
  std::string steps =
      "0.001,0.002,0.003,0.004,0.005,0.006,0.007,0.008,0.009,0.010,0.011,0.012,"
      "0.013,0.014,0.015,0.016";
  std::string runs_csv = "pour2d_runs.csv", summary_csv = "pour2d_summary.csv";
  double duration = 5.0;
  int threads = 1;
  app.add_option("--body-sets", body_sets, "CSV of the ten polygon sets");
  int passes = 3;
  bool authors_feasibility = false, standard_applicable = false;
  app.add_option("--models", models,
                 "peg, standard, peg_projected, standard_projected (3 position projections)");
  app.add_option("--passes", passes, "contact-set passes per step (1: the authors' single pass)");
  app.add_flag("--authors-feasibility", authors_feasibility,
               "the authors' feasibility test alone (no swept test: polygons tunnel)");
  app.add_flag("--standard-applicable", standard_applicable,
               "standard model: only applicable candidates become U constraints");
  app.add_option("--sets", sets, "set letters");
  app.add_option("--h", steps, "time steps [s], comma separated");
  app.add_option("--duration", duration, "simulated time [s] (paper: 5)");
  app.add_option("--threads", threads, "runs in parallel");
  app.add_option("--runs-csv", runs_csv, "one row per (model, h, set)");
  app.add_option("--summary-csv", summary_csv, "one row per (model, h)");
  CLI11_PARSE(app, argc, argv);

  auto loaded = contactsim::scenes::LoadPour2dBodySets(body_sets);
  if (!loaded.ok()) {
    std::fprintf(stderr, "skipped: %s (the body sets are in shared/papers/)\n",
                 loaded.status().ToString().c_str());
    return 77;
  }
  std::vector<Job> jobs;
  const std::vector<std::string> model_names = absl::StrSplit(models, ',', absl::SkipEmpty());
  const std::vector<std::string> step_values = absl::StrSplit(steps, ',', absl::SkipEmpty());
  for (const std::string& m : model_names) {
    Variant variant;
    if (!ParseVariant(m, &variant)) {
      std::fprintf(stderr, "unknown model %s\n", m.c_str());
      return 2;
    }
    for (const std::string& hs : step_values) {
      for (char s : sets) {
        if (loaded->count(std::string(1, s)) == 0) {
          std::fprintf(stderr, "no set %c in %s\n", s, body_sets.c_str());
          return 2;
        }
        jobs.push_back({variant, std::stod(hs), std::string(1, s), {}});
      }
    }
  }
  std::atomic<int> next{0};
  std::mutex mutex;
  int finished = 0;
  bool error = false;
  auto worker = [&] {
    for (int j = next++; j < static_cast<int>(jobs.size()); j = next++) {
      Job& job = jobs[j];
      contactsim::scenes::Pour2dOptions options;
      options.model = job.variant.model;
      options.projection_iterations = job.variant.projection_iterations;
      options.contact_set_passes = passes;
      options.swept_feasibility = !authors_feasibility;
      options.standard_requires_applicability = standard_applicable;
      options.h = job.h;
      options.duration_s = duration;
      auto run = contactsim::scenes::RunPour2d(loaded->at(job.set), options);
      std::lock_guard<std::mutex> lock(mutex);
      if (!run.ok()) {
        std::fprintf(stderr, "%s h=%g set %s: %s\n", job.variant.name.c_str(), job.h,
                     job.set.c_str(), run.status().ToString().c_str());
        error = true;
        continue;
      }
      job.run = *std::move(run);
      job.done = true;
      const auto s = contactsim::scenes::SummarizeOverlap(job.run.overlap_m2);
      std::fprintf(stderr,
                   "[%d/%zu] %-18s h=%.3f set %s: %d steps %.1f s, failed %d, escaped %d, "
                   "median %.2e max %.2e m^2, largest LCP %d\n",
                   ++finished, jobs.size(), job.variant.name.c_str(), job.h, job.set.c_str(),
                   job.run.steps, job.run.wall_s, job.run.failed_steps, job.run.escaped, s.median,
                   s.max, job.run.largest_lcp);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (error) return 1;

  std::ofstream runs(runs_csv);
  runs << "model,h,set,steps,bodies,escaped,failed_steps,projection_failures,resolved_steps";
  for (int p = 0; p < 4; ++p) runs << ",steps_" << LcpSolverPathName(static_cast<LcpSolverPath>(p));
  runs << ",steps_with_I,U,I_vertex_vertex,I_from_X,largest_lcp,max_residual,median_m2,q3_m2,"
          "p75_m2,max_m2,wall_s\n";
  std::map<std::pair<std::string, double>, std::vector<const Job*>> groups;
  for (const Job& job : jobs) {
    const auto s = contactsim::scenes::SummarizeOverlap(job.run.overlap_m2);
    const Pour2dRun& r = job.run;
    runs << absl::StrFormat("%s,%.3f,%s,%d,%d,%d,%d,%d,%d", job.variant.name, job.h, job.set,
                            r.steps, r.bodies_spawned, r.escaped, r.failed_steps,
                            r.projection_failures, r.contact_set_resolves);
    for (int p = 0; p < 4; ++p) runs << "," << r.steps_by_path[p];
    runs << absl::StrFormat(",%d,%d,%d,%d,%d,%.3e,%.6e,%.6e,%.6e,%.6e,%.2f\n",
                            r.steps_with_intercontact, r.unilateral, r.intercontact,
                            r.cross_contact, r.largest_lcp, r.max_residual, s.median, s.q3, s.p75,
                            s.max, r.wall_s);
    groups[{job.variant.name, job.h}].push_back(&job);
  }
  std::ofstream summary(summary_csv);
  summary << "model,h,sets,samples,median_m2,q3_m2,p75_m2,max_m2,failed_steps,steps,"
             "steps_lemke,steps_other_paths,I_step_fraction,escaped\n";
  std::printf(
      "| model | h | median m^2 | Q3 m^2 | max m^2 | failed steps | steps not by Lemke "
      "| steps with I | escaped |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [key, group] : groups) {
    std::vector<double> pooled;
    int failed = 0, steps_total = 0, lemke = 0, other = 0, with_i = 0, escaped = 0;
    for (const Job* job : group) {
      pooled.insert(pooled.end(), job->run.overlap_m2.begin(), job->run.overlap_m2.end());
      failed += job->run.failed_steps;
      steps_total += job->run.steps;
      lemke += job->run.steps_by_path[0];
      other += job->run.steps_by_path[1] + job->run.steps_by_path[2] + job->run.steps_by_path[3];
      with_i += job->run.steps_with_intercontact;
      escaped += job->run.escaped;
    }
    const auto s = contactsim::scenes::SummarizeOverlap(pooled);
    const char* name = key.first.c_str();
    summary << absl::StrFormat("%s,%.3f,%d,%d,%.6e,%.6e,%.6e,%.6e,%d,%d,%d,%d,%.4f,%d\n", name,
                               key.second, group.size(), s.samples, s.median, s.q3, s.p75, s.max,
                               failed, steps_total, lemke, other,
                               static_cast<double>(with_i) / steps_total, escaped);
    std::printf("| %s | %.3f | %.2e | %.2e | %.2e | %d | %d | %.2f | %d |\n", name, key.second,
                s.median, s.q3, s.max, failed, other, static_cast<double>(with_i) / steps_total,
                escaped);
  }
  return 0;
}
