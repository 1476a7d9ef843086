#include "bench/local_global/scene_cases.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/local_global/twisting_bar.h"
#include "core/common/status_macros.h"
#include "core/dynamics/fem/material.h"
#include "core/geometry/generators.h"
#include "scenes/local_global/cloth_on_knives.h"
#include "scenes/local_global/cloth_on_sharp_corner.h"
#include "scenes/local_global/pull_through_gap.h"
#include "scenes/local_global/pull_through_obstacles.h"
#include "scenes/local_global/scene_backend.h"
#include "scenes/local_global/soft_gripper.h"
#include "scenes/local_global/squeeze_through_rollers.h"

namespace contactsim::core::local_global_bench {

int g_cloth_settle_frames = 20;

namespace {

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
  auto solver =
      LocalGlobalSolver::Create(*mesh, kThicknessM, *material, kDt, options, SceneBackend());
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
    RETURN_IF_ERROR(run.solver->Step(run.f_ext_n, &run.start));
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

}  // namespace

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

}  // namespace contactsim::core::local_global_bench
