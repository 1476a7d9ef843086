#include "scenes/rigid_lcp/pour3d_scene.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "core/common/check.h"
#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_intersection.h"
#include "core/geometry/polytope_mass_properties.h"
#include "core/geometry/polytope_union.h"

namespace contactsim::scenes {
namespace {

using core::ConvexPolytope;
using core::Mat3;
using core::PolytopeUnion;
using core::Vec3;

constexpr double kHalfWidth = 0.3, kWallHeight = 0.5, kThickness = 0.1;
constexpr double kBodyMass = 0.1, kReleaseHeight = 0.8, kCellSpacing = 0.18, kJitter = 0.01;

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  // The top 53 bits as a double in [0, 1): the same sequence on every platform.
  return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

Vec3 UnitVector(std::mt19937_64& rng) {
  while (true) {
    const Vec3 v(Uniform(rng, -1, 1), Uniform(rng, -1, 1), Uniform(rng, -1, 1));
    const double n = v.norm();
    if (n > 1e-3 && n <= 1.0) return v / n;
  }
}

struct Body {
  std::unique_ptr<PolytopeUnion> shape;  // centred on its centre of mass
  Mat3 inertia = Mat3::Identity();
  Vec3 release_position = Vec3::Zero();
  Eigen::Quaterniond release_orientation = Eigen::Quaterniond::Identity();
  int release_step = 0;
};

Body MakeBody(int i, const Pour3dOptions& options, std::mt19937_64& rng) {
  core::Points3 points(10, 3);
  for (int k = 0; k < 10; ++k) {
    points.row(k) = (Uniform(rng, 0.035, 0.05) * UnitVector(rng)).transpose();
  }
  absl::StatusOr<ConvexPolytope> hull = core::ConvexHull(points);
  CONTACTSIM_CHECK(hull.ok(), "pour3d: a random hull failed");
  absl::StatusOr<core::MassProperties> mass = core::ComputeMassPropertiesForMass(*hull, kBodyMass);
  CONTACTSIM_CHECK(mass.ok(), "pour3d: mass properties failed");
  std::vector<ConvexPolytope> pieces = {
      hull->Transformed(Mat3::Identity(), -mass->center_of_mass_m)};
  absl::StatusOr<PolytopeUnion> shape = PolytopeUnion::Create(std::move(pieces));
  CONTACTSIM_CHECK(shape.ok(), "pour3d: union failed");
  Body body;
  body.shape = std::make_unique<PolytopeUnion>(*std::move(shape));
  body.inertia = mass->inertia_about_com_kg_m2;
  const int cell = i % 9;
  body.release_position =
      Vec3((cell % 3 - 1) * kCellSpacing + Uniform(rng, -kJitter, kJitter),
           (cell / 3 - 1) * kCellSpacing + Uniform(rng, -kJitter, kJitter), kReleaseHeight);
  Eigen::Vector4d q(Uniform(rng, -1, 1), Uniform(rng, -1, 1), Uniform(rng, -1, 1),
                    Uniform(rng, -1, 1));
  while (q.norm() < 1e-3) q = Eigen::Vector4d(Uniform(rng, -1, 1), 0.5, 0.5, 0.5);
  q.normalize();
  body.release_orientation = Eigen::Quaterniond(q(0), q(1), q(2), q(3));
  body.release_step = static_cast<int>(std::llround(i * 5.0 / options.bodies / options.step_s));
  return body;
}

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

Pour3dReport RunPour3d(const Pour3dOptions& options,
                       const std::function<void(int, int)>& progress) {
  std::mt19937_64 rng(options.seed);
  std::vector<Body> bodies;
  for (int i = 0; i < options.bodies; ++i) bodies.push_back(MakeBody(i, options, rng));
  absl::StatusOr<PolytopeUnion> container =
      core::MakeOpenBoxContainer(kHalfWidth, kWallHeight, kThickness);
  CONTACTSIM_CHECK(container.ok(), "pour3d: container failed");

  core::PolytopeStepSettings settings;
  settings.dt_s = options.step_s;
  settings.model = options.model;
  settings.friction_coefficient = options.friction_coefficient;
  settings.projection_passes = options.projection_passes;
  settings.max_lcp_unknowns = 1 << 20;  // the bench reports sizes; the service has its limit
  if (options.direct_max_unknowns >= 0) settings.direct_max_unknowns = options.direct_max_unknowns;
  settings.projection_iterative = options.projection_iterative;
  settings.iterative.block_iterations = options.pgs_block_iterations;
  settings.iterative.stall_relaxation = options.pgs_stall_relaxation;
  settings.iterative.local_max_unknowns = options.pgs_local_max_unknowns;
  settings.iterative.local_stall_sweeps = options.pgs_local_stall_sweeps;
  settings.iterative.trace = options.pgs_trace;

  std::vector<core::PolytopeBodyInput> inputs(1);
  inputs[0].shape = &*container;
  inputs[0].kind = core::RigidBodyKind::kStatic;

  Pour3dReport report;
  const int total = static_cast<int>(std::floor(options.duration_s / options.step_s + 1e-9));
  size_t released = 0;
  core::PolytopeStepResult result, previous;  // previous: warm starts (same body indices)
  for (int step = 0; step < total; ++step) {
    while (released < bodies.size() && bodies[released].release_step <= step) {
      core::PolytopeBodyInput input;
      input.shape = bodies[released].shape.get();
      input.mass_kg = kBodyMass;
      input.inertia_body_kg_m2 = bodies[released].inertia;
      input.state.p_WB_m = bodies[released].release_position;
      input.state.q_WB = bodies[released].release_orientation;
      inputs.push_back(input);
      ++released;
    }
    const double cpu_start = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    const absl::Status status =
        core::StepPolytopes(inputs, {}, settings, &result, &previous.warm_start);
    report.stepper_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.stepper_cpu_seconds += ThreadCpuSeconds() - cpu_start;
    if (!status.ok()) {
      report.solver_failures = 1;
      report.failure = std::string(status.message());
      break;
    }
    for (size_t b = 0; b < inputs.size(); ++b) inputs[b].state = result.next[b];
    report.largest_lcp = std::max(report.largest_lcp, result.stats.largest_lcp);
    report.iterative_islands += result.stats.iterative_islands;
    report.iterative_fallbacks += result.stats.iterative_fallbacks;
    report.iterative_local_solves += result.stats.iterative_local_solves;
    report.uncorrected_islands += result.stats.uncorrected_islands;
    report.sweeps += result.stats.iterations;
    report.pivots += result.stats.pivots;
    report.projection_failures += result.stats.projection_failures;
    report.projection_iterative_islands += result.stats.projection_iterative_islands;
    report.projection_iterative_fallbacks += result.stats.projection_iterative_fallbacks;
    report.projection_sweeps += result.stats.projection_sweeps;
    report.projection_pivots += result.stats.projection_pivots;
    report.search_seconds += result.stats.search_seconds;
    report.islands_seconds += result.stats.islands_seconds;
    report.projection_seconds += result.stats.projection_seconds;
    std::swap(previous, result);
    ++report.steps;

    // Exact measures at the end of the step.
    std::vector<ConvexPolytope> posed;
    for (size_t b = 1; b < inputs.size(); ++b) {
      posed.push_back(inputs[b].shape->piece(0).Transformed(inputs[b].state.q_WB.toRotationMatrix(),
                                                            inputs[b].state.p_WB_m));
    }
    for (const ConvexPolytope& body : posed) {
      for (const ConvexPolytope& wall : container->pieces()) {
        report.max_container_depth_m = std::max(report.max_container_depth_m,
                                                core::DeepestVertexPenetration(body, wall).depth_m);
      }
    }
    double overlap = 0.0;
    for (size_t a = 0; a < posed.size(); ++a) {
      for (size_t b = a + 1; b < posed.size(); ++b) {
        const double reach = 0.1;  // two bodies of radius <= 50 mm
        if ((inputs[a + 1].state.p_WB_m - inputs[b + 1].state.p_WB_m).norm() > reach) continue;
        overlap += core::IntersectionVolume(posed[a], posed[b]);
      }
    }
    report.max_overlap_volume_m3 = std::max(report.max_overlap_volume_m3, overlap);
    if (progress && (step + 1) % 100 == 0) progress(step + 1, total);
  }
  for (size_t b = 1; b < inputs.size(); ++b) {
    const Vec3& p = inputs[b].state.p_WB_m;
    if (std::abs(p.x()) > kHalfWidth || std::abs(p.y()) > kHalfWidth || p.z() < 0.0) {
      ++report.escaped;
    }
  }
  return report;
}

}  // namespace contactsim::scenes
