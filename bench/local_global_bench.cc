// Local-global pipeline (Zeng et al. 2024, Sec. 7, Table 3): per-frame phase times of
// LocalGlobalSolver::Step (LocalGlobalPhaseTimes) on 1 thread and on all threads, next to the
// paper's Table 3 row of the same scene where there is one; the sparse inverse S of each case
// (precompute time, nnz, MB) and its global step against the two triangular solves; and, with
// --convergence, the twisting bar's energy error against a Newton reference (Fig. 9).
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
//       [--convergence] [--convergence-cases bar5k] [--jacobi-iterations 1000]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "bench/median_time.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/implicit_euler_newton.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"
#include "scenes/local_global/cloth_on_knives.h"
#include "scenes/local_global/cloth_on_sharp_corner.h"
#include "scenes/local_global/pull_through_gap.h"
#include "scenes/local_global/pull_through_obstacles.h"
#include "scenes/local_global/soft_gripper.h"
#include "scenes/local_global/squeeze_through_rollers.h"

namespace contactsim::core {
namespace {

using bench::Clock;
using bench::MedianTime;
using bench::Seconds;
constexpr double kDt = 0.01;  // Table 3: h = 0.01 s
constexpr double kNa = std::nan("");

// One row of Zeng et al. 2024, Table 3 (arXiv text, Sec. 7): S [MB], max contacts, then the
// time columns [ms]: Schur., Local*, Global, Assem., Cst. Solve, Corr., Cst. Global, Frame max*.
// NaN where the paper prints N/A. Their Local* runs on a CPU, the rest on an RTX GPU.
struct PaperRow {
  const char* label;
  double s_mb, contacts, schur, local, global, assem, cst_solve, corr, cst_global, frame;
};
const PaperRow kTwistingBar5k = {
    "Twisting Bar 5.3k/26.4k", 125.02, kNa, kNa, 0.87, 0.27, kNa, kNa, kNa, kNa, 6.23};
const PaperRow kTwistingBar11k = {
    "Twisting Bar 11.3k/59.0k", 463.03, kNa, kNa, 1.67, 0.86, kNa, kNa, kNa, kNa, 13.55};
const PaperRow kTwistingBar21k = {
    "Twisting Bar 20.8k/111.1k", 1310.19, kNa, kNa, 2.99, 2.41, kNa, kNa, kNa, kNa, 28.55};
const PaperRow kPullingWooper5k = {
    "Pulling Wooper 5.3k/20.4k", 67.14, 420, 4.76, 1.25, 0.14, 0.26, 0.54, 0.19, 0.98, 19.95};
const PaperRow kGingerbreadMan11k = {
    "Gingerbread Man 11.1k/48.2k", 227.30, 740, 8.37, 2.77, 0.41, 0.59, 0.48, 0.45, 1.52, 34.75};
const PaperRow kGingerbreadMan19k = {
    "Gingerbread Man 19.5k/93.6k", 619.41, 800, 14.16, 5.03, 1.05, 1.30, 0.50, 1.15, 2.95, 59.76};
const PaperRow kPullingWooper12k = {
    "Pulling Wooper 11.8k/52.5k", 295.09, 730, 16.30, 3.06, 0.54, 0.77, 0.51, 0.59, 1.87, 46.20};
const PaperRow kGrabbingRaptor15k = {
    "Grabbing Raptor 15.3k/55.2k", 260.85, 130, 2.43, 2.63, 0.45, 0.62, 0.71, 0.51, 1.84, 29.68};
const PaperRow kGrabbingRaptor20k = {
    "Grabbing Raptor 20.4k/77.8k", 467.58, 140, 2.62, 3.51, 0.80, 1.08, 0.63, 0.89, 2.61, 38.62};
const PaperRow kGrabbingRaptor10k = {
    "Grabbing Raptor 10.3k/34.7k", 120.00, 140, 2.42, 1.72, 0.23, 0.37, 0.62, 0.28, 1.27, 21.49};
const PaperRow kSqueezingBall7k = {
    "Squeezing Ball 7.1k/37.5k", 266.87, 3180, 11.60, 2.75, 0.50, 0.99, 1.39, 0.51, 2.89, 46.15};
const PaperRow kSqueezingBall14k = {
    "Squeezing Ball 14.7k/81.7k", 946.97, 4620, 27.91, 6.09, 1.61, 2.46, 2.80, 1.67, 6.92, 102.01};
const PaperRow kClothExtension10k = {
    "Cloth Extension ARAP 10.2k/20.2k", 102.51, kNa, kNa, 0.39, 0.33, kNa, kNa, kNa, kNa, 4.44};
const PaperRow kClothExtension10kCorot = {"Cloth Extension Co-rotation 10.2k/20.2k",
                                          102.51,
                                          kNa,
                                          kNa,
                                          0.87,
                                          0.23,
                                          kNa,
                                          kNa,
                                          kNa,
                                          kNa,
                                          6.43};
const PaperRow kClothExtension10kNeoHookean = {"Cloth Extension Neo-Hookean 10.2k/20.2k",
                                               102.51,
                                               kNa,
                                               kNa,
                                               0.93,
                                               0.23,
                                               kNa,
                                               kNa,
                                               kNa,
                                               kNa,
                                               6.65};
const PaperRow kClothExtension20k = {
    "Cloth Extension ARAP 20.2k/40.0k", 280.41, kNa, kNa, 0.59, 0.58, kNa, kNa, kNa, kNa, 7.53};
const PaperRow kClothExtension20kCorot = {"Cloth Extension Co-rotation 20.2k/40.0k",
                                          280.41,
                                          kNa,
                                          kNa,
                                          1.59,
                                          0.51,
                                          kNa,
                                          kNa,
                                          kNa,
                                          kNa,
                                          12.11};
const PaperRow kClothExtension20kNeoHookean = {"Cloth Extension Neo-Hookean 20.2k/40.0k",
                                               280.41,
                                               kNa,
                                               kNa,
                                               1.73,
                                               0.52,
                                               kNa,
                                               kNa,
                                               kNa,
                                               kNa,
                                               12.88};

// Cloth on Knives and Sharp Corner (Table 3; Neo-Hookean 1000, 1E+5, 0.4).
const PaperRow kClothOnKnives5k = {
    "Cloth on Knives 5.1k/10.0k", 62.37, 760, 3.45, 0.47, 0.13, 0.25, 0.54, 0.18, 0.98, 14.73};
const PaperRow kClothOnKnives10k = {
    "Cloth on Knives 10.2k/20.2k", 183.82, 1190, 5.37, 0.79, 0.33, 0.46, 0.52, 0.36, 1.35, 21.42};
const PaperRow kClothOnKnives15k = {
    "Cloth on Knives 15.3k/30.3k", 342.68, 1780, 11.07, 1.09, 0.59, 0.80, 0.60, 0.62, 2.02, 33.02};
const PaperRow kSharpCorner5k = {
    "Sharp Corner 5.1k/10.0k", 62.37, 4570, 41.45, 0.34, 0.14, 0.87, 2.79, 0.15, 3.82, 70.77};
const PaperRow kSharpCorner10k = {
    "Sharp Corner 10.2k/20.2k", 183.82, 8620, 200.08, 0.49, 0.37, 2.66, 9.13, 0.37, 12.15, 277.36};

// A Cloth Extension case: "cloth10k" or "cloth20k", optionally suffixed "_corot" or "_nh".
struct ClothCase {
  int cells = 0;
  MaterialModel model = MaterialModel::kArap;
};
std::optional<ClothCase> ParseClothCase(const std::string& name) {
  ClothCase c;
  std::string size = name;
  if (const size_t underscore = name.find('_'); underscore != std::string::npos) {
    size = name.substr(0, underscore);
    const std::string model = name.substr(underscore + 1);
    if (model == "corot") {
      c.model = MaterialModel::kCorotational;
    } else if (model == "nh") {
      c.model = MaterialModel::kNeoHookean;
    } else {
      return std::nullopt;
    }
  }
  if (size == "cloth10k") {
    c.cells = 100;
  } else if (size == "cloth20k") {
    c.cells = 141;
  } else {
    return std::nullopt;
  }
  return c;
}

// A scene ready to step: solver, start state, external force, pinned targets per frame.
struct SceneRun {
  std::unique_ptr<LocalGlobalSolver> solver;
  LocalGlobalState start;
  Points3 f_ext_n;
  std::function<Points3(int frame)> pinned_targets;  // empty: no hard pins
  SystemMatrix system;                               // Abar of the mesh, for the S statistics
  double precompute_s = 0.0;                         // LocalGlobalSolver::Create
  bool has_contact = false;
  std::optional<TetMesh> tets;  // bar cases: the mesh (convergence study)
  std::vector<int32_t> pinned;
};

struct BarGrid {
  int nx, ny;
};

BarGrid BarGridOf(const std::string& name) {
  if (name == "bar11k") return {58, 13};
  if (name == "bar21k") return {94, 14};
  return {44, 10};
}

constexpr double kTwistRateRadPerS = 2.0;

// End-face targets at frame f: the x_min face turned by -rate t, the x_max face by +rate t.
Points3 TwistTargets(const Points3& rest_m, const std::vector<int32_t>& pinned, int frame) {
  const double angle = kTwistRateRadPerS * kDt * frame;
  const double x_min = rest_m.col(0).minCoeff();
  Points3 targets(pinned.size(), 3);
  for (size_t p = 0; p < pinned.size(); ++p) {
    const Eigen::RowVector3d r = rest_m.row(pinned[p]);
    const double a = r(0) - x_min < 1e-9 ? -angle : angle;
    targets.row(p) = Eigen::RowVector3d(r(0), std::cos(a) * r(1) - std::sin(a) * r(2),
                                        std::sin(a) * r(1) + std::cos(a) * r(2));
  }
  return targets;
}

absl::StatusOr<TetMesh> MakeBar(const std::string& name) {
  const BarGrid g = BarGridOf(name);
  return MakeTetBox(Vec3(0.8, 0.1, 0.1), g.nx, g.ny, g.ny);
}

std::vector<int32_t> EndFaces(const TetMesh& mesh) {
  const double x_min = mesh.vertices().col(0).minCoeff();
  const double x_max = mesh.vertices().col(0).maxCoeff();
  std::vector<int32_t> ends;
  for (int i = 0; i < mesh.num_vertices(); ++i) {
    const double x = mesh.vertices()(i, 0);
    if (std::abs(x - x_min) < 1e-9 || std::abs(x - x_max) < 1e-9) ends.push_back(i);
  }
  return ends;
}

absl::StatusOr<Material> BarMaterial(double youngs_pa) {
  return MakeMaterial(MaterialModel::kArap, {youngs_pa, 0.45, 1000.0});
}

absl::StatusOr<SceneRun> MakeBarScene(const std::string& name, GlobalStepKind kind, int iterations,
                                      double youngs_pa) {
  auto mesh = MakeBar(name);
  if (!mesh.ok()) return mesh.status();
  auto material = BarMaterial(youngs_pa);
  if (!material.ok()) return material.status();
  SceneRun run;
  run.pinned = EndFaces(*mesh);
  LocalGlobalOptions options;
  options.global_step = kind;
  options.iterations = iterations;
  options.pinned_vertices = run.pinned;
  const auto t0 = Clock::now();
  auto solver = LocalGlobalSolver::Create(*mesh, *material, kDt, options);
  if (!solver.ok()) return solver.status();
  run.precompute_s = Seconds(t0, Clock::now());
  run.solver = *std::move(solver);
  const int n = mesh->num_vertices();
  run.start = {mesh->vertices(), Points3::Zero(n, 3), 0.0};
  run.f_ext_n = Points3::Zero(n, 3);
  auto system = AssembleSystemMatrix(*mesh, {material->density, 2.0 * material->mu, kDt});
  if (!system.ok()) return system.status();
  run.system = *std::move(system);
  run.tets.emplace(*std::move(mesh));
  // Copies: the SceneRun is moved after this returns.
  run.pinned_targets = [rest = run.tets->vertices(), pinned = run.pinned](int frame) {
    return TwistTargets(rest, pinned, frame);
  };
  return run;
}

// A scene run with contact from a built scene (its solver, start state and gravity); t0: when
// building began, so the precompute time includes the meshes and the scene set-up.
template <typename Scene>
SceneRun ContactSceneRun(Scene& scene, Clock::time_point t0) {
  SceneRun run;
  run.precompute_s = Seconds(t0, Clock::now());
  run.solver = std::move(scene.solver);
  run.start = scene.state;
  run.f_ext_n = scene.gravity_n;
  run.has_contact = true;
  return run;
}

// ContactSceneRun for a tet-body scene, with its isotropic system matrix (weight 2 mu + lambda, as
// the solver's) for the S-versus-triangular-solve comparison.
template <typename Scene>
absl::StatusOr<SceneRun> TetContactSceneRun(Scene& scene, Clock::time_point t0, MaterialModel model,
                                            const MaterialParameters& parameters) {
  SceneRun run = ContactSceneRun(scene, t0);
  auto material = MakeMaterial(model, parameters);
  if (!material.ok()) return material.status();
  auto system = AssembleSystemMatrix(
      scene.mesh, {material->density, 2.0 * material->mu + material->lambda, kDt});
  if (!system.ok()) return system.status();
  run.system = *std::move(system);
  return run;
}

absl::StatusOr<SceneRun> MakeGapScene(const std::string& name) {
  PullThroughGapParams params;
  params.time_step_s = kDt;
  params.iterations = 5;
  if (name == "gap5k" || name == "gap12k") {
    const bool large = name == "gap12k";
    params.cells_x = large ? 69 : 54;
    params.cells_y = large ? 12 : 9;
    params.cells_z = large ? 12 : 9;
    params.model = MaterialModel::kNeoHookean;
    params.material = {1.0e7, 0.3, 1000.0};
  }
  const auto t0 = Clock::now();
  auto scene = BuildPullThroughGap(params);
  if (!scene.ok()) return scene.status();
  return TetContactSceneRun(*scene, t0, params.model, params.material);
}

// "obstacles11k", "obstacles19k": the body pulled through thin plates with Table 3's settings.
absl::StatusOr<SceneRun> MakeObstaclesScene(const std::string& name) {
  PullThroughObstaclesParams params;
  params.time_step_s = kDt;
  params.iterations = 5;
  params.cr_iterations = 10;
  // 5 mm, below the cell height (7.1 / 5.9 mm): with the default 1 cm the floor half-space would
  // also take the second vertex layer (interior vertices) and double the floor contacts.
  params.contact_proximity_m = 0.005;
  if (name == "obstacles11k") {
    params.cells_x = 48;
    params.cells_y = 14;
    params.cells_z = 14;
  } else {
    params.cells_x = 59;
    params.cells_y = 17;
    params.cells_z = 17;
  }
  const auto t0 = Clock::now();
  auto scene = BuildPullThroughObstacles(params);
  if (!scene.ok()) return scene.status();
  return TetContactSceneRun(*scene, t0, params.model, params.material);
}

absl::StatusOr<SceneRun> MakeGripperScene(const std::string& name) {
  SoftGripperParams params;
  params.time_step_s = kDt;
  params.iterations = 5;
  if (name == "gripper10k" || name == "gripper15k" || name == "gripper20k") {
    params.object_cells = name == "gripper10k" ? 14 : (name == "gripper15k" ? 19 : 23);
    params.finger_cells_x = 4;
    params.finger_cells_y = 12;
    params.finger_cells_z = 52;
  }
  const auto t0 = Clock::now();
  auto scene = BuildSoftGripper(params);
  if (!scene.ok()) return scene.status();
  SceneRun run = ContactSceneRun(*scene, t0);
  // The joined tets (same vertex order as the solver) for the S statistics.
  std::vector<Eigen::Matrix<int32_t, 1, 4>> rows;
  auto cube = MakeTetBox(Vec3(0.5, 0.5, 0.5), params.object_cells, params.object_cells,
                         params.object_cells);
  auto bar = MakeTetBox(Vec3(0.5, 0.5, 0.5), params.finger_cells_x, params.finger_cells_y,
                        params.finger_cells_z);
  if (!cube.ok()) return cube.status();
  if (!bar.ok()) return bar.status();
  const int32_t n_cube = cube->num_vertices(), n_bar = bar->num_vertices();
  IndexQuads tets(cube->num_tets() + 2 * bar->num_tets(), 4);
  tets << cube->tets(), bar->tets().array() + n_cube, bar->tets().array() + n_cube + n_bar;
  auto material = MakeMaterial(MaterialModel::kArap, params.finger_material);
  if (!material.ok()) return material.status();
  auto system =
      AssembleTetSystemMatrix(run.start.x_m, tets, {material->density, 2.0 * material->mu, kDt});
  if (!system.ok()) return system.status();
  run.system = *std::move(system);
  // Pinned targets at the end of frame f (the scene keeps only the base schedule now).
  auto schedule = std::make_shared<SoftGripperScene>(*std::move(scene));
  run.pinned_targets = [schedule](int frame) { return schedule->PinnedTargets(kDt * frame); };
  return run;
}

// "rollers" (coarse), "rollers7k", "rollers14k": the squeezing ball with Table 3's settings.
absl::StatusOr<SceneRun> MakeRollersScene(const std::string& name) {
  SqueezeThroughRollersParams params;
  params.time_step_s = kDt;
  params.iterations = 5;
  params.cr_iterations = 10;
  if (name == "rollers7k") params.ball_resolution = 18;
  if (name == "rollers14k") params.ball_resolution = 24;
  const auto t0 = Clock::now();
  auto scene = BuildSqueezeThroughRollers(params);
  if (!scene.ok()) return scene.status();
  return TetContactSceneRun(*scene, t0, params.model, params.material);
}

absl::StatusOr<SceneRun> MakeClothScene(const ClothCase& cloth) {
  constexpr double kThicknessM = 1e-3;
  constexpr double kPullSpeedMps = 0.1;
  auto mesh = MakeClothGrid(1.0, 1.0, cloth.cells, cloth.cells);
  if (!mesh.ok()) return mesh.status();
  auto material = MakeMaterial(cloth.model, {1.0e5, 0.45, 1000.0});
  if (!material.ok()) return material.status();
  material->lambda = PlaneStressLambda(material->mu, material->lambda);
  SceneRun run;
  const int n = mesh->num_vertices();
  std::vector<int32_t> left, right;
  for (int i = 0; i < n; ++i) {
    if (mesh->vertices()(i, 0) < -0.5 + 1e-9) left.push_back(i);
    if (mesh->vertices()(i, 0) > 0.5 - 1e-9) right.push_back(i);
  }
  run.pinned = left;
  run.pinned.insert(run.pinned.end(), right.begin(), right.end());
  LocalGlobalOptions options;
  options.iterations = 5;
  options.pinned_vertices = run.pinned;
  const auto t0 = Clock::now();
  auto solver = LocalGlobalSolver::Create(*mesh, kThicknessM, *material, kDt, options);
  if (!solver.ok()) return solver.status();
  run.precompute_s = Seconds(t0, Clock::now());
  run.solver = *std::move(solver);
  run.start = {mesh->vertices(), Points3::Zero(n, 3), 0.0};
  // Hanging in the xy plane with gravity along -y (the cloth's plane): it stretches in-plane.
  run.f_ext_n = Points3::Zero(n, 3);
  run.f_ext_n.col(1) = -9.81 * run.solver->lumped_mass_kg();
  const Points3 rest = mesh->vertices();
  const std::vector<int32_t> pinned = run.pinned;
  const size_t num_left = left.size();
  run.pinned_targets = [rest, pinned, num_left](int frame) {
    Points3 targets(pinned.size(), 3);
    for (size_t p = 0; p < pinned.size(); ++p) {
      targets.row(p) = rest.row(pinned[p]);
      if (p >= num_left) targets(p, 0) += kPullSpeedMps * kDt * frame;
    }
    return targets;
  };
  auto system = AssembleSystemMatrix(
      *mesh, {material->density * kThicknessM, 2.0 * material->mu * kThicknessM, kDt});
  if (!system.ok()) return system.status();
  run.system = *std::move(system);
  return run;
}

// ---- Cloth on Knives / Sharp Corner (cloth_on_knives.h, cloth_on_sharp_corner.h) ----

int g_cloth_settle_frames = 20;  // --cloth-settle-frames

int ClothObstacleCells(const std::string& name) {
  if (name == "knives5k" || name == "corner5k") return 71;
  if (name == "knives10k" || name == "corner10k") return 100;
  if (name == "knives15k") return 123;
  return 0;
}

// The scene's cloth, stepped g_cloth_settle_frames frames (untimed) so that the timed frames
// have the cloth in contact.
absl::StatusOr<SceneRun> MakeClothObstacleScene(const std::string& name) {
  ClothDropParams cloth;
  cloth.cells = ClothObstacleCells(name);
  cloth.time_step_s = kDt;
  const auto t0 = Clock::now();
  std::optional<ClothDrop> drop;
  if (name.rfind("knives", 0) == 0) {
    ClothOnKnivesParams params;
    params.cloth = cloth;
    auto scene = BuildClothOnKnives(params);
    if (!scene.ok()) return scene.status();
    drop.emplace(std::move(scene->cloth));
  } else {
    ClothOnSharpCornerParams params;
    params.cloth = cloth;
    auto scene = BuildClothOnSharpCorner(params);
    if (!scene.ok()) return scene.status();
    drop.emplace(std::move(scene->cloth));
  }
  SceneRun run = ContactSceneRun(*drop, t0);
  for (int f = 1; f <= g_cloth_settle_frames; ++f) {
    if (absl::Status s = run.solver->Step(run.f_ext_n, &run.start); !s.ok()) return s;
    if (f % 10 == 0) std::fprintf(stderr, "  [%s] settle frame %d\n", name.c_str(), f);
  }
  run.start.time_s = 0.0;
  auto material = MakeMaterial(MaterialModel::kNeoHookean, cloth.material);
  if (!material.ok()) return material.status();
  material->lambda = PlaneStressLambda(material->mu, material->lambda);
  auto system = AssembleSystemMatrix(
      drop->mesh, {material->density * cloth.thickness_m,
                   (2.0 * material->mu + material->lambda) * cloth.thickness_m, kDt});
  if (!system.ok()) return system.status();
  run.system = *std::move(system);
  return run;
}

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

absl::StatusOr<SceneRun> MakeScene(const std::string& name) {
  if (ClothObstacleCells(name) > 0) return MakeClothObstacleScene(name);
  if (name.rfind("bar", 0) == 0) {
    return MakeBarScene(name, GlobalStepKind::kSparseInverse, 5, 1e9);
  }
  if (name.rfind("gap", 0) == 0) return MakeGapScene(name);
  if (name.rfind("gripper", 0) == 0) return MakeGripperScene(name);
  if (name == "obstacles11k" || name == "obstacles19k") return MakeObstaclesScene(name);
  if (name == "rollers" || name == "rollers7k" || name == "rollers14k") {
    return MakeRollersScene(name);
  }
  if (const std::optional<ClothCase> cloth = ParseClothCase(name)) return MakeClothScene(*cloth);
  return absl::InvalidArgumentError(absl::StrCat("--cases: unknown case '", name, "'"));
}

const PaperRow* PaperRowOf(const std::string& name) {
  if (name == "bar5k") return &kTwistingBar5k;
  if (name == "bar11k") return &kTwistingBar11k;
  if (name == "bar21k") return &kTwistingBar21k;
  if (name == "gap5k") return &kPullingWooper5k;
  if (name == "gap12k") return &kPullingWooper12k;
  if (name == "gripper10k") return &kGrabbingRaptor10k;
  if (name == "gripper15k") return &kGrabbingRaptor15k;
  if (name == "gripper20k") return &kGrabbingRaptor20k;
  if (name == "obstacles11k") return &kGingerbreadMan11k;
  if (name == "obstacles19k") return &kGingerbreadMan19k;
  if (name == "rollers7k") return &kSqueezingBall7k;
  if (name == "rollers14k") return &kSqueezingBall14k;
  if (name == "cloth10k") return &kClothExtension10k;
  if (name == "cloth10k_corot") return &kClothExtension10kCorot;
  if (name == "cloth10k_nh") return &kClothExtension10kNeoHookean;
  if (name == "cloth20k") return &kClothExtension20k;
  if (name == "cloth20k_corot") return &kClothExtension20kCorot;
  if (name == "cloth20k_nh") return &kClothExtension20kNeoHookean;
  if (name == "knives5k") return &kClothOnKnives5k;
  if (name == "knives10k") return &kClothOnKnives10k;
  if (name == "knives15k") return &kClothOnKnives15k;
  if (name == "corner5k") return &kSharpCorner5k;
  if (name == "corner10k") return &kSharpCorner10k;
  return nullptr;
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

absl::Status RunPhaseCase(const std::string& name, int frames, int reps, int skip_frames) {
  const int threads = tbb::info::default_concurrency();
  std::fprintf(stderr, "[%s] building (precompute)\n", name.c_str());
  auto run = MakeScene(name);
  if (!run.ok()) return run.status();
  std::fprintf(stderr, "[%s] %d vertices, precompute %.2f s\n", name.c_str(),
               run->solver->num_vertices(), run->precompute_s);
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

// ---- Twisting bar convergence (Fig. 9) ----

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
      if (absl::Status s = warm->solver->Step(warm->f_ext_n, &start, &targets); !s.ok()) return s;
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
      auto observed = LocalGlobalSolver::Create(*warm->tets, *material, kDt, options);
      if (!observed.ok()) return observed.status();
      LocalGlobalState state = start;
      std::fprintf(stderr, "  %s: %d iterations\n", KindName(kind), iterations);
      if (absl::Status s = (*observed)->Step(warm->f_ext_n, &state, &targets); !s.ok()) return s;
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

std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

double LoadAverage() {
  double load = kNa;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = kNa;
    std::fclose(f);
  }
  return load;
}

int Main(int argc, char** argv) {
  CLI::App app{"Local-global pipeline: phase times (Zeng et al. 2024, Table 3) and convergence"};
  std::string cases = "bar5k,gap,gap5k,cloth10k";
  int frames = 10;
  int skip_frames = 0;
  int reps = 20;
  bool convergence = false;
  std::string convergence_cases = "bar5k";
  int warmup_frames = 10;
  int jacobi_iterations = 1000;
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
  app.add_flag("--convergence", convergence, "twisting bar energy error vs Newton (Fig. 9)");
  app.add_option("--convergence-cases", convergence_cases, "bars for --convergence");
  app.add_option("--warmup-frames", warmup_frames, "frames before the measured step")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--jacobi-iterations", jacobi_iterations, "Jacobi rounds in --convergence")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  std::printf(
      "local_global_bench: %d threads available, load average %.2f, h = %.3f s, "
      "5 local-global iterations\n",
      tbb::info::default_concurrency(), LoadAverage(), kDt);
  for (const std::string& name : SplitCommas(cases)) {
    if (absl::Status s = RunPhaseCase(name, frames, reps, skip_frames); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
      return 1;
    }
    std::fflush(stdout);
  }
  if (convergence) {
    for (const std::string& name : SplitCommas(convergence_cases)) {
      if (name.rfind("bar", 0) != 0) {
        std::fprintf(stderr, "--convergence-cases: '%s' is not a bar\n", name.c_str());
        return 1;
      }
      if (absl::Status s = RunConvergence(name, warmup_frames, jacobi_iterations); !s.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), std::string(s.message()).c_str());
        return 1;
      }
    }
  }
  std::printf("load average at the end %.2f\n", LoadAverage());
  return 0;
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) { return contactsim::core::Main(argc, argv); }
