// Corotational FEM (core/dynamics/corotational_fem.h) cost per tet of what one World step does:
// the update after the positions change (polar decompositions and elastic energy, timed through
// SetPositions) and the internal forces (Predict), on soft tet spheres deformed as in a landing
// (every vertex moved by up to --deformation (default 5 %) of the radius, then the whole ball
// rotated), with TBB limited to --threads (0: all cores). The Newton polar decomposition takes
// more iterations the more a tet is deformed.
//
// Usage: fem_force_bench [--resolution 6] [--balls 20] [--threads 1] [--reps 15]
//                        [--deformation 0.05]
#include <Eigen/Geometry>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/median_time.h"
#include "core/dynamics/corotational_fem.h"
#include "core/geometry/generators.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"

namespace contactsim::core {
namespace {

int Run(int resolution, int balls, int threads, int reps, double deformation) {
  constexpr double kRadiusM = 0.1;
  const int max_threads = tbb::info::default_concurrency();
  tbb::global_control control(tbb::global_control::max_allowed_parallelism,
                              threads > 0 ? threads : max_threads);
  const CorotationalFemParams params{.youngs_modulus_pa = 2e4,
                                     .poisson_ratio = 0.3,
                                     .density_kg_per_m3 = 1000.0,
                                     .mass_damping_per_s = 1.0,
                                     .stiffness_damping_s = 2e-5};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-deformation * kRadiusM, deformation * kRadiusM);
  std::vector<std::unique_ptr<CorotationalFem>> bodies;
  int64_t tets = 0;
  for (int b = 0; b < balls; ++b) {
    absl::StatusOr<TetMesh> mesh = MakeTetSphere(kRadiusM, resolution);
    if (!mesh.ok()) {
      std::fprintf(stderr, "%s\n", mesh.status().ToString().c_str());
      return 1;
    }
    absl::StatusOr<CorotationalFem> fem = CorotationalFem::Create(*std::move(mesh), params);
    if (!fem.ok()) {
      std::fprintf(stderr, "%s\n", fem.status().ToString().c_str());
      return 1;
    }
    Points3 x = fem->positions_t0();
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      for (int c = 0; c < 3; ++c) x(i, c) += jitter(rng);
    }
    const Mat3 rotation = Eigen::AngleAxisd(0.3 + b, Vec3(1, 2, 3).normalized()).matrix();
    Points3 v = Points3::Constant(x.rows(), 3, 0.01);
    if (!fem->SetPositions(Transformed(x, rotation, Vec3::Zero())).ok() ||
        !fem->SetVelocities(v).ok()) {
      return 1;
    }
    tets += fem->mesh().num_tets();
    bodies.push_back(std::make_unique<CorotationalFem>(*std::move(fem)));
  }
  std::vector<Points3> deformed;
  for (const auto& fem : bodies) deformed.push_back(fem->positions_t0());
  double checksum = 0.0;
  const double update_s = bench::MedianTime(reps, 2, [&] {
    for (size_t b = 0; b < bodies.size(); ++b) {
      if (!bodies[b]->SetPositions(deformed[b]).ok()) std::abort();
      checksum += bodies[b]->ElasticEnergy();
    }
  });
  const double force_s = bench::MedianTime(reps, 2, [&] {
    for (const auto& fem : bodies) checksum += fem->InternalForces()(0, 0);
  });
  std::printf(
      "resolution %d, %d balls, %lld tets, deformation %g, threads %d (of %d): positions update "
      "(rotations, "
      "energy) %.3f ms (%.3f us/tet), forces %.3f ms (%.3f us/tet), sum %.3f us/tet  "
      "[checksum %.6g]\n",
      resolution, balls, static_cast<long long>(tets), deformation, threads, max_threads,
      1e3 * update_s, 1e6 * update_s / tets, 1e3 * force_s, 1e6 * force_s / tets,
      1e6 * (update_s + force_s) / tets, checksum);
  return 0;
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) {
  CLI::App app("corotational FEM forces and energy: time per tet");
  int resolution = 6, balls = 20, threads = 1, reps = 15;
  double deformation = 0.05;
  app.add_option("--resolution", resolution, "tet sphere resolution")->check(CLI::Range(1, 64));
  app.add_option("--balls", balls, "number of balls")->check(CLI::Range(1, 10000));
  app.add_option("--threads", threads, "TBB threads (0: all cores)")->check(CLI::Range(0, 1024));
  app.add_option("--reps", reps, "timed repetitions (median)")->check(CLI::Range(1, 1000));
  app.add_option("--deformation", deformation, "vertex displacement / radius, at most")
      ->check(CLI::Range(0.0, 0.2));
  CLI11_PARSE(app, argc, argv);
  return contactsim::core::Run(resolution, balls, threads, reps, deformation);
}
