// Local-global pipeline (Zeng et al. 2024, Sec. 7, Table 3): per-frame phase times of
// LocalGlobalSolver::Step (LocalGlobalPhaseTimes) on 1 thread and on all threads, next to the
// paper's Table 3 row of the same scene where there is one; the sparse inverse S of each case
// (precompute time, nnz, MB) and its global step against the two triangular solves. The twisting
// bar's energy error against a Newton reference (Fig. 9) is local_global_convergence_bench.
//
// Cases (h = 0.01 s and 5 local-global iterations as Table 3):
//   bar5k, bar11k, bar21k  twisting bar 1.6 x 0.2 x 0.2 m, ARAP rho 1000, E 1e9, nu 0.45 (the
//                          paper's), ends pinned and turned at +-2 rad/s; grids 44x10x10 (5,445
//                          vertices, 26,400 tets; paper 5.3k / 26.4k), 58x13x13 (11,564 / 58,812;
//                          paper 11.3k / 59.0k), 94x14x14 (21,375 / 110,544; paper 20.8k / 111.1k)
//   gap                    pull_through_gap.h default scene (117 vertices), no paper row
//   gap5k, gap12k          the same scene on a 54x9x9 grid (5,500 vertices, 26,244 tets) or a
//                          69x12x12 grid (11,830 / 59,616) with the "Pulling Wooper" material
//                          (Neo-Hookean, E 1e7, nu 0.3); paper rows Pulling Wooper 5.3k / 20.4k
//                          and 11.8k / 52.5k (a different mesh and cylinders, not planes)
//   cloth10k, cloth20k     "Cloth Extension": 1 x 1 m cloth, 100 x 100 cells (10,201 vertices,
//                          20,000 triangles; paper 10.2k / 20.2k) or 141 x 141 (20,164 / 39,762;
//                          paper 20.2k / 40.0k), rho 1000, E 1e5, nu 0.45, t = 1 mm, left edge
//                          pinned, right edge pulled out at 0.1 m/s, gravity; ARAP, and with the
//                          suffix _corot co-rotational, _nh Neo-Hookean (the paper's three rows per
//                          size); no contact (a cloth lying in contact makes G dense:
//                          docs/local_global.md)
//   gripper, gripper10k,   soft_gripper.h (Sec. 7.8, "Grabbing Raptor"): two cable-driven soft
//   gripper15k,            fingers and a soft cube (Table 3's rho 10, E 2e4, nu 0.1) on a floor,
//   gripper20k             three bodies in one system with body-body contact; the default scene
//                          (226 vertices) and fingers 4 x 12 x 52 cells (6,890 vertices) with a
//                          cube of 14^3, 19^3 or 23^3 cells: 10,265 / 46,416, 14,890 / 71,106 and
//                          20,714 / 102,954 vertices / tets (paper 10.3k / 34.7k, 15.3k / 55.2k,
//                          20.4k / 77.8k: the raptor refined, the fingers unchanged); frames
//                          from t = 0 (the fingers close on the object); S statistics from the
//                          joined mesh's Abar pattern (the bodies' materials differ, the pattern
//                          does not)
//   rollers, rollers7k,    squeeze_through_rollers.h: a soft ball (Neo-Hookean rho 1000, E 1e4,
//   rollers14k             nu 0.4, R 0.1 m) dropped onto two rollers (r 0.2 m, 64 facets,
//                          gap 0.1 m, mu 0.5) rolling inward at 0.4 m/s, 10 CR iterations;
//                          MakeTetSphere resolutions 4 (125 vertices), 18 (6,859 / 34,992 tets;
//                          paper "Squeezing Ball" 7.1k / 37.5k) and 24 (15,625 / 82,944; paper
//                          14.7k / 81.7k). The ball is squeezed in the gap from frame ~25 to
//                          ~60: --skip-frames steps untimed frames first (e.g. 30)
//
//   knives5k, knives10k,   "Cloth on Knives" (cloth_on_knives.h): 1 x 1 m Neo-Hookean cloth (rho
//   1000, knives15k              E 1e5, nu 0.4, t = 1 mm) dropped on 4 two-sided knife blades, 71 /
//   100 /
//                          123 cells (5,184 / 10,201 / 15,376 vertices; paper 5.1k / 10.2k /
//                          15.3k); timed after --cloth-settle-frames untimed frames (contacts on)
//   obstacles11k,          "Crossing Gingerbread Man" (pull_through_obstacles.h): a Neo-Hookean
//   obstacles19k           tet box 0.3 x 0.1 x 0.1 m (rho 1000, E 1e6, nu 0.3, Table 3's), 48 x 14
//                          x 14 cells (11,025 vertices, 56,448 tets; paper 11.1k / 48.2k) or 59 x
//                          17 x 17 (19,440 / 102,306; paper 19.5k / 93.6k), pulled at 0.5 m/s by
//                          its front-face centre through two funnel gates of thin two-sided plates
//                          (slots 0.08 m), 10 CR iterations, proximity 5 mm; the front enters the
//                          first slot at frame ~42: --skip-frames 50 times it while squeezed
//   corner5k, corner10k    "Sharp Corner" (cloth_on_sharp_corner.h): the same cloth dropped on a
//                          0.3 m cube standing on the floor, 71 / 100 cells; timed likewise
//
//   build/bench/local_global_bench [--cases bar5k,gap,cloth10k] [--frames 10] [--skip-frames 0]
//       [--cloth-settle-frames 20] [--reps 20] [--device cpu|cuda] [--parity-frames 100]
//
// --device cuda builds every case's solver on one CUDA backend (gpu/; the global step, Delassus
// operator and non-smooth Newton products on the GPU, the rest on the host: docs/gpu.md).
// --parity-frames N instead steps each case N frames on the CPU and on --device and compares
// the positions (bench/local_global/device_parity.h), failing above --parity-tolerance-m.
//
// Files (bench/local_global/): scene_run.h (a case ready to step), twisting_bar.h and
// scene_cases.h (the cases), paper_table3.h (the paper's rows), phase_report.h (timing and
// tables), bench_cli.h.
#include <cstdio>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "bench/local_global/bench_cli.h"
#include "bench/local_global/device_parity.h"
#include "bench/local_global/phase_report.h"
#include "bench/local_global/scene_cases.h"
#include "bench/local_global/scene_run.h"
#include "contactsim/gpu/cuda_backend.h"
#include "core/linalg/cpu_backend.h"
#include "oneapi/tbb/info.h"
#include "scenes/local_global/scene_backend.h"

namespace contactsim::core::local_global_bench {
namespace {

int Main(int argc, char** argv) {
  CLI::App app{"Local-global pipeline: phase times (Zeng et al. 2024, Table 3)"};
  std::string cases = "bar5k,gap,gap5k,cloth10k";
  int frames = 10;
  int skip_frames = 0;
  int reps = 20;
  app.add_option("--cases", cases,
                 "comma list of bar5k, bar11k, bar21k, gap, gap5k, gap12k, gripper, gripper10k, "
                 "gripper15k, gripper20k, cloth10k, "
                 "cloth20k (cloth: add _corot or _nh for the other materials), rollers, "
                 "rollers7k, rollers14k, knives5k, knives10k, knives15k, corner5k, corner10k, "
                 "obstacles11k, obstacles19k "
                 "(empty: none)");
  app.add_option("--frames", frames, "frames per thread setting")->check(CLI::PositiveNumber);
  app.add_option("--cloth-settle-frames", g_cloth_settle_frames,
                 "untimed frames before timing knives*/corner* (the cloth reaches the obstacles)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--skip-frames", skip_frames,
                 "untimed frames stepped before the timed ones (per thread setting)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--reps", reps, "repetitions of the global-step timing")
      ->check(CLI::PositiveNumber);
  std::string device = "cpu";
  int parity_frames = 0;
  double parity_tolerance_m = 1e-6;
  app.add_option("--device", device, "where the solvers run: cpu or cuda")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--parity-frames", parity_frames,
                 "compare --device against the cpu after this many frames instead of timing")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--parity-tolerance-m", parity_tolerance_m,
                 "largest vertex distance [m] --parity-frames accepts")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  std::shared_ptr<Backend> backend;
  if (device == "cuda") {
    auto created = gpu::CreateCudaBackend({});
    if (!created.ok()) {
      std::fprintf(stderr, "--device cuda: %s\n", std::string(created.status().message()).c_str());
      return 1;
    }
    backend = *std::move(created);
  } else {
    backend = std::make_shared<CpuBackend>();
  }
  if (parity_frames > 0) {
    int failures = 0;
    for (const std::string& name : SplitCommas(cases)) {
      if (absl::Status s = RunDeviceParity(name, parity_frames, backend, parity_tolerance_m);
          !s.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
        ++failures;
      }
      std::fflush(stdout);
    }
    return failures == 0 ? 0 : 1;
  }
  // Every case's solvers on one backend (a CUDA one keeps its stream and workspace).
  if (device == "cuda") SetSceneBackend(backend);
  std::printf(
      "local_global_bench: %d threads available, load average %.2f, h = %.3f s, "
      "5 local-global iterations, device %s\n",
      tbb::info::default_concurrency(), LoadAverage(), kDt, backend->name().c_str());
  for (const std::string& name : SplitCommas(cases)) {
    if (absl::Status s = RunPhaseCase(name, frames, reps, skip_frames); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
      return 1;
    }
    std::fflush(stdout);
  }
  std::printf("load average at the end %.2f\n", LoadAverage());
  return 0;
}

}  // namespace
}  // namespace contactsim::core::local_global_bench

int main(int argc, char** argv) { return contactsim::core::local_global_bench::Main(argc, argv); }
