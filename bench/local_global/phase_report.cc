#include "bench/local_global/phase_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/local_global/paper_table3.h"
#include "bench/local_global/scene_cases.h"
#include "bench/local_global/scene_run.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/linalg/cpu_backend.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"

namespace contactsim::core::local_global_bench {
namespace {

// k, the distinct vertices the contacts touch (the Delassus G = Abar^-1[V, V] is k x k, dense).
int TouchedVertices(const std::vector<VertexContact>& contacts) {
  std::vector<int32_t> v;
  for (const VertexContact& c : contacts) {
    v.push_back(c.vertex);
    for (int32_t e : c.extra_vertices) {
      if (e >= 0) v.push_back(e);
    }
  }
  std::sort(v.begin(), v.end());
  return static_cast<int>(std::unique(v.begin(), v.end()) - v.begin());
}

// Mean phase times per frame over `frames` frames, the largest frame and contact count.
struct PhaseSummary {
  LocalGlobalPhaseTimes mean;
  double frame_max_ms = 0.0;
  int max_contacts = 0;
  int max_touched_vertices = 0;  // k of the Delassus G (k x k)
};

// The first skip_frames frames are stepped but not timed (scenes whose contact-rich phase comes
// later).
absl::StatusOr<PhaseSummary> RunFrames(SceneRun& run, int frames, const char* label,
                                       int skip_frames) {
  PhaseSummary out;
  LocalGlobalState state = run.start;
  LocalGlobalStepStats stats;
  auto& m = out.mean;
  for (int k = 1; k <= skip_frames + frames; ++k) {
    const int f = k - skip_frames;  // timed frames 1..frames
    Points3 targets;
    if (run.pinned_targets) targets = run.pinned_targets(k);
    if (absl::Status s =
            run.solver->Step(run.f_ext_n, &state, run.pinned_targets ? &targets : nullptr, &stats);
        !s.ok()) {
      return s;
    }
    if (f <= 0) {
      if (k % 10 == 0) {
        std::fprintf(stderr, "  [%s] skipped frame %d/%d (%.1f ms, %zu contacts)\n", label, k,
                     skip_frames, stats.phase_times.frame_ms, stats.contacts.size());
      }
      continue;
    }
    const LocalGlobalPhaseTimes& t = stats.phase_times;
    m.schur_ms += t.schur_ms;
    m.local_ms += t.local_ms;
    m.global_ms += t.global_ms;
    m.contact_assembly_ms += t.contact_assembly_ms;
    m.constraint_solve_ms += t.constraint_solve_ms;
    m.correction_ms += t.correction_ms;
    m.rhs_ms += t.rhs_ms;
    m.frame_ms += t.frame_ms;
    out.frame_max_ms = std::max(out.frame_max_ms, t.frame_ms);
    out.max_contacts = std::max(out.max_contacts, static_cast<int>(stats.contacts.size()));
    out.max_touched_vertices = std::max(out.max_touched_vertices, TouchedVertices(stats.contacts));
    if (f % 10 == 0 || f == frames || t.frame_ms > 1000.0) {
      std::fprintf(stderr, "  [%s] frame %d/%d (%.1f ms)\n", label, f, frames, t.frame_ms);
    }
  }
  for (double* v : {&m.schur_ms, &m.local_ms, &m.global_ms, &m.contact_assembly_ms,
                    &m.constraint_solve_ms, &m.correction_ms, &m.rhs_ms, &m.frame_ms}) {
    *v /= frames;
  }
  return out;
}

std::string Cell(double v) {
  if (std::isnan(v)) return "N/A";
  char buf[32];
  std::snprintf(buf, sizeof(buf), v >= 100 ? "%.0f" : "%.2f", v);
  return buf;
}

void PrintPhaseTable(const std::string& name, const SceneRun& run, const PhaseSummary& one,
                     const PhaseSummary& all, int threads, int frames, int skip_frames,
                     const PaperRow* paper) {
  std::printf(
      "\n### %s: %d vertices, %d elements, max %d contacts, %d frames (after %d untimed)\n\n",
      name.c_str(), run.solver->num_vertices(), run.solver->num_elements(),
      std::max(one.max_contacts, all.max_contacts), frames, skip_frames);
  if (one.max_touched_vertices > 0) {
    const double k = std::max(one.max_touched_vertices, all.max_touched_vertices);
    std::printf(
        "Delassus G = Abar^-1[V, V]: k = %.0f touched vertices, %.3g entries (%.1f MB "
        "as dense doubles)\n\n",
        k, k * k, k * k * 8.0 / (1024.0 * 1024.0));
  }
  std::printf(
      "| ms per frame | Schur. | Local | Global | Assem. | Cst. Solve | Corr. | Cst. Global | "
      "rhs | Frame (mean) | Frame max |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  auto row = [](const std::string& label, const PhaseSummary& s) {
    const auto& t = s.mean;
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label.c_str(),
                Cell(t.schur_ms).c_str(), Cell(t.local_ms).c_str(), Cell(t.global_ms).c_str(),
                Cell(t.contact_assembly_ms).c_str(), Cell(t.constraint_solve_ms).c_str(),
                Cell(t.correction_ms).c_str(),
                Cell(t.contact_assembly_ms + t.constraint_solve_ms + t.correction_ms).c_str(),
                Cell(t.rhs_ms).c_str(), Cell(t.frame_ms).c_str(), Cell(s.frame_max_ms).c_str());
  };
  row("1 thread", one);
  row(absl::StrCat(threads, " threads"), all);
  const auto& a = one.mean;
  const auto& b = all.mean;
  auto ratio = [](double x, double y) { return y > 0 ? x / y : kNa; };
  std::printf("| 1t / %dt | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", threads,
              Cell(ratio(a.schur_ms, b.schur_ms)).c_str(),
              Cell(ratio(a.local_ms, b.local_ms)).c_str(),
              Cell(ratio(a.global_ms, b.global_ms)).c_str(),
              Cell(ratio(a.contact_assembly_ms, b.contact_assembly_ms)).c_str(),
              Cell(ratio(a.constraint_solve_ms, b.constraint_solve_ms)).c_str(),
              Cell(ratio(a.correction_ms, b.correction_ms)).c_str(), "",
              Cell(ratio(a.rhs_ms, b.rhs_ms)).c_str(), Cell(ratio(a.frame_ms, b.frame_ms)).c_str(),
              Cell(ratio(one.frame_max_ms, all.frame_max_ms)).c_str());
  if (paper != nullptr) {
    std::printf("| paper: %s (max %s contacts) | %s | %s | %s | %s | %s | %s | %s | | | %s |\n",
                paper->label, Cell(paper->contacts).c_str(), Cell(paper->schur).c_str(),
                Cell(paper->local).c_str(), Cell(paper->global).c_str(), Cell(paper->assem).c_str(),
                Cell(paper->cst_solve).c_str(), Cell(paper->corr).c_str(),
                Cell(paper->cst_global).c_str(), Cell(paper->frame).c_str());
  }
}

// S of the mesh's Abar (pins not eliminated): precompute time, nnz, MB; one global step (n x 3
// block) with S on all threads and on 1 thread against the two triangular solves.
absl::Status PrintSparseInverseStats(const SceneRun& run, int reps, const PaperRow* paper) {
  const auto t0 = Clock::now();
  auto factor = OrderedCholesky::Compute(run.system.a_bar, FillOrdering::kNestedDissection);
  if (!factor.ok()) return factor.status();
  const auto t1 = Clock::now();
  auto s = SparseInverseFactor::Compute(*factor);
  if (!s.ok()) return s.status();
  const auto t2 = Clock::now();
  const int n = static_cast<int>(run.system.a_bar.rows());
  CpuBackend backend;
  auto step = SparseInverseGlobalStep::Create(backend, *s, 3);
  if (!step.ok()) return step.status();
  auto b_id = backend.CreateDense(n, 3);
  auto q_id = backend.CreateDense(n, 3);
  if (!b_id.ok() || !q_id.ok()) return absl::InternalError("CreateDense failed");
  const OrderedCholesky::Block b = OrderedCholesky::Block::Random(n, 3);
  *backend.dense(*b_id) = b;
  OrderedCholesky::Block complete;
  const double tri_s = MedianTime(reps, 2, [&] { complete = factor->Solve(b); });
  const double s_all = MedianTime(reps, 2, [&] { (void)step->Solve(*b_id, *q_id); });
  double s_one = 0.0, tri_one = 0.0;
  {
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    s_one = MedianTime(reps, 2, [&] { (void)step->Solve(*b_id, *q_id); });
    tri_one = MedianTime(reps, 2, [&] { complete = factor->Solve(b); });
  }
  const double rel = (*backend.dense(*q_id) - complete).norm() / complete.norm();
  const double mb = static_cast<double>(s->MemoryBytes()) / (1024.0 * 1024.0);
  std::printf(
      "\nS (scalar n x n, ND): ordering + Cholesky %.3f s, S %.3f s (solver Create %.3f s); "
      "nnz(S) %lld, %.2f MB (paper, 3n x 3n: %s MB)\n",
      Seconds(t0, t1), Seconds(t1, t2), run.precompute_s, static_cast<long long>(s->nnz()), mb,
      paper != nullptr ? Cell(paper->s_mb).c_str() : "-");
  std::printf(
      "global step (n x 3): triangular solves %.3f ms (1 thread %.3f), S^T(S b) %.3f ms all "
      "threads, %.3f ms 1 thread; tri/S %.2f (all), %.2f (1 thread); rel. diff %.1e\n",
      1e3 * tri_s, 1e3 * tri_one, 1e3 * s_all, 1e3 * s_one, tri_s / s_all, tri_one / s_one, rel);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunPhaseCase(const std::string& name, int frames, int reps, int skip_frames) {
  const int threads = tbb::info::default_concurrency();
  std::fprintf(stderr, "[%s] building (precompute)\n", name.c_str());
  auto run = MakeScene(name);
  if (!run.ok()) return run.status();
  std::fprintf(stderr, "[%s] %d vertices, precompute %.2f s\n", name.c_str(),
               run->solver->num_vertices(), run->precompute_s);
  std::printf("%s: global step by %s\n", name.c_str(),
              run->solver->global_step_on_host()
                  ? "triangular solves on the host (cpu backend)"
                  : ("S products on the " + run->solver->backend()->name() + " backend").c_str());
  auto all = RunFrames(*run, frames, "all threads", skip_frames);
  if (!all.ok()) return all.status();
  if (run->has_contact) {
    // A fresh solver: the contact warm start would otherwise carry over from the first run.
    auto again = MakeScene(name);
    if (!again.ok()) return again.status();
    run->solver = std::move(again->solver);
  }
  absl::StatusOr<PhaseSummary> one;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = RunFrames(*run, frames, "1 thread", skip_frames);
  }
  if (!one.ok()) return one.status();
  const PaperRow* paper = PaperRowOf(name);
  PrintPhaseTable(name, *run, *one, *all, threads, frames, skip_frames, paper);
  return PrintSparseInverseStats(*run, reps, paper);
}

}  // namespace contactsim::core::local_global_bench
