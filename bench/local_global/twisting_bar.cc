#include "bench/local_global/twisting_bar.h"

#include <cmath>
#include <utility>
#include <vector>

#include "core/geometry/generators.h"
#include "scenes/local_global/scene_backend.h"

namespace contactsim::core::local_global_bench {

BarGrid BarGridOf(const std::string& name) {
  if (name == "bar11k") return {58, 13};
  if (name == "bar21k") return {94, 14};
  return {44, 10};
}

namespace {

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

}  // namespace

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
  auto solver = LocalGlobalSolver::Create(*mesh, *material, kDt, options, SceneBackend());
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

}  // namespace contactsim::core::local_global_bench
