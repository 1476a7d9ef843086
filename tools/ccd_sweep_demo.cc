// CCD sweep demo: drops a mesh onto a static box with a large time step and reports, step by
// step, what one step's continuous collision detection (core/collision/ccd_sweep.h) finds.
//
// There are no dynamics here: the mesh falls freely, x(t) = x0 - (v0 t + g t^2 / 2) e_z, and stops
// where the sweep finds its first contact (moved to the earliest toi of that step), then rests.
// Each step's motion is the straight line between the step's end positions, as CCD assumes, so
// the exact first-contact time is where that line brings the lowest vertex to d above the box:
// the summary compares it with the sweep's answer.
//
//   ccd_sweep_demo                                   a torus dropped from 1 m, 12 steps of 0.1 s
//   ccd_sweep_demo --mesh sphere --height 0.3 --speed 2 --dt 0.05 --min-separation 1e-4
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "core/collision/ccd_sweep.h"
#include "core/geometry/generators.h"

namespace contactsim::bench {
namespace {

using core::CollisionBody;
using core::Points3;
using core::TriangleMesh;
using core::Vec3;

constexpr double kGravity = 9.81;  // [m/s^2]
constexpr double kBoxTopZ = 0.0;   // [m]
constexpr int kMovingId = 1;
constexpr int kBoxId = 0;

absl::StatusOr<TriangleMesh> MakeDropMesh(const std::string& name) {
  if (name == "torus") return core::MakeTorus(0.2, 0.05, 32, 12);
  if (name == "sphere") return core::MakeSphere(0.15, 3);
  return core::MakeBox(Vec3(0.15, 0.1, 0.05));
}

// Free-fall drop below the start position at time t [s] [m].
double Drop(double t, double speed) { return speed * t + 0.5 * kGravity * t * t; }

std::string FormatPoint(const Vec3& p) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "(%+.4f, %+.4f, %+.5f)", p.x(), p.y(), p.z());
  return buffer;
}

int Main(int argc, char** argv) {
  CLI::App app{"Drops a mesh onto a static box and prints what each step's CCD sweep finds"};
  std::string mesh_name = "torus";
  double height = 1.0, speed = 0.0, dt = 0.1, min_separation = 1e-3, tilt_deg = 15.0;
  int steps = 12;
  app.add_option("--mesh", mesh_name, "torus, sphere or box")
      ->check(CLI::IsMember({"torus", "sphere", "box"}));
  app.add_option("--height", height, "gap between the mesh's lowest point and the box top [m]")
      ->check(CLI::PositiveNumber);
  app.add_option("--speed", speed, "initial downward speed [m/s]")->check(CLI::NonNegativeNumber);
  app.add_option("--steps", steps, "steps")->check(CLI::Range(1, 100000));
  app.add_option("--dt", dt, "time step [s]")->check(CLI::PositiveNumber);
  app.add_option("--min-separation", min_separation, "CCD minimum separation d [m]")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--tilt", tilt_deg, "tilt of the mesh about the x axis [deg]");
  CLI11_PARSE(app, argc, argv);

  absl::StatusOr<TriangleMesh> mesh = MakeDropMesh(mesh_name);
  absl::StatusOr<TriangleMesh> box = core::MakeBox(Vec3(1.0, 1.0, 0.25));
  if (!mesh.ok() || !box.ok()) {
    std::fprintf(stderr, "mesh: %s\n", (mesh.ok() ? box : mesh).status().ToString().c_str());
    return 1;
  }
  // The mesh, tilted, with its lowest vertex `height` above the box top.
  const core::Mat3 tilt =
      Eigen::AngleAxisd(tilt_deg * std::numbers::pi / 180.0, Vec3::UnitX()).toRotationMatrix();
  Points3 start = core::Transformed(mesh->vertices(), tilt, Vec3::Zero());
  const double lowest = start.col(2).minCoeff();
  start = core::Translated(start, Vec3(0.1, -0.05, kBoxTopZ + height - lowest));
  const Points3 box_x = core::Translated(box->vertices(), Vec3(0, 0, kBoxTopZ - 0.25));

  Points3 x_t0 = start, x_t1 = start;
  bool stopped = false;  // the mesh rests after its first contact
  core::CcdSweep sweep;
  core::CcdSweepResult result;
  core::CcdOptions options;
  options.min_separation_m = min_separation;

  std::printf("ccd_sweep_demo: %s (%d triangles) falls %.3f m onto a static box (12 triangles)\n",
              mesh_name.c_str(), mesh->num_faces(), height);
  std::printf(
      "dt = %.4g s, v0 = %.4g m/s, d = %.3g m, %d steps; the mesh stops at its first "
      "contact (no dynamics)\n\n",
      dt, speed, min_separation, steps);
  std::printf("%4s %8s %8s %8s %7s %7s %12s %10s  %-32s %s\n", "step", "t0 [s]", "VF cand",
              "EE cand", "VF hit", "EE hit", "earliest toi", "t_hit [s]", "contact point [m]",
              "state");

  std::optional<double> first_contact_time;
  std::optional<Vec3> first_contact_point;
  int first_contact_step = -1;
  double total_ms = 0.0;
  for (int k = 0; k < steps; ++k) {
    const double t0 = k * dt, t1 = (k + 1) * dt;
    const bool resting = stopped;
    x_t0 = x_t1;
    x_t1 = resting ? x_t0 : core::Translated(start, Vec3(0, 0, -Drop(t1, speed)));
    const std::vector<CollisionBody> bodies = {
        {.id = kBoxId, .mesh = &*box, .x_t0 = &box_x, .x_t1 = &box_x, .is_static = true},
        {.id = kMovingId, .mesh = &*mesh, .x_t0 = &x_t0, .x_t1 = &x_t1}};
    if (absl::Status status = sweep.Run(bodies, options, &result); !status.ok()) {
      std::fprintf(stderr, "step %d: %s\n", k, status.ToString().c_str());
      return 1;
    }
    total_ms += result.stats.total_ms;
    const core::CcdHit* hit = core::EarliestHit(result.hits);
    std::string toi = "-", t_hit = "-", point = "-";
    std::string state = "falling";
    if (resting) {
      char buffer[48];
      std::snprintf(buffer, sizeof(buffer), "resting, gap %.3e m",
                    x_t1.col(2).minCoeff() - kBoxTopZ);
      state = buffer;
    }
    if (hit != nullptr) {
      const CollisionBody& a = hit->body_a == kBoxId ? bodies[0] : bodies[1];
      const CollisionBody& b = hit->body_b == kBoxId ? bodies[0] : bodies[1];
      const core::HitPoints points = core::ComputeHitPoints(*hit, a, b);
      const Vec3 contact = 0.5 * (points.point_a + points.point_b);
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.6f", hit->toi);
      toi = buffer;
      std::snprintf(buffer, sizeof(buffer), "%.5f", t0 + hit->toi * dt);
      t_hit = buffer;
      point = FormatPoint(contact);
      if (!resting) {
        // Stop at the earliest toi: every vertex at its position on the step's straight line.
        x_t1 = x_t0 + hit->toi * (x_t1 - x_t0);
        stopped = true;
        first_contact_time = t0 + hit->toi * dt;
        first_contact_point = contact;
        first_contact_step = k;
        state = "contact -> stop";
      }
    }
    std::printf("%4d %8.3f %8lld %8lld %7lld %7lld %12s %10s  %-32s %s\n", k, t0,
                static_cast<long long>(result.stats.vertex_face_candidates),
                static_cast<long long>(result.stats.edge_edge_candidates),
                static_cast<long long>(result.stats.vertex_face_hits),
                static_cast<long long>(result.stats.edge_edge_hits), toi.c_str(), t_hit.c_str(),
                point.c_str(), state.c_str());
  }

  // Exact first contact of the piecewise-linear motion: the first step whose end drop exceeds
  // height - d, interpolated linearly within it; and the smooth free-fall time for reference.
  const double target = height - min_separation;
  std::optional<double> exact_linear;
  for (int k = 0; k < steps && !exact_linear; ++k) {
    const double d0 = Drop(k * dt, speed), d1 = Drop((k + 1) * dt, speed);
    if (d1 >= target) exact_linear = k * dt + dt * (target - d0) / (d1 - d0);
  }
  const double free_fall = (-speed + std::sqrt(speed * speed + 2.0 * kGravity * target)) / kGravity;
  std::printf("\n");
  if (first_contact_time) {
    std::printf(
        "summary: first contact at t = %.6f s (step %d) at %s; exact for the stepped motion "
        "%.6f s (error %.2e s), smooth free fall %.6f s; CCD %.2f ms/step\n",
        *first_contact_time, first_contact_step, FormatPoint(*first_contact_point).c_str(),
        exact_linear.value_or(-1.0), *first_contact_time - exact_linear.value_or(0.0), free_fall,
        total_ms / steps);
  } else {
    std::printf(
        "summary: no contact within %d steps (%.3f s); the mesh reaches the box at "
        "t = %.6f s in free fall; CCD %.2f ms/step\n",
        steps, steps * dt, free_fall, total_ms / steps);
  }
  return 0;
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) { return contactsim::bench::Main(argc, argv); }
