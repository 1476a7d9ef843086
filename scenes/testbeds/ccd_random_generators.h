// Random trajectory families for the CCD property tests and the narrow-phase benchmark.
//
// Generic: features in the unit cube with displacements of similar size (about 5% of VF pairs
// and 13% of EE pairs collide at d = 5e-3). Near contact: the features are placed so that they
// pass within a few d of each other at a random time, at or just beyond the features' edges.
// Nearly degenerate: coplanar motion, (nearly) parallel or collinear edges, zero-area triangles
// and zero-length edges, each with offsets of 1e-12 .. 1e-6 m. Touching: an end of the step lands
// exactly on the other feature.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <random>

#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"

namespace contactsim::core::testing {

class TrajectoryGenerator {
 public:
  explicit TrajectoryGenerator(uint64_t seed) : rng_(seed) {}

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  Vec3 UniformVec(double lo, double hi) {
    return Vec3(Uniform(lo, hi), Uniform(lo, hi), Uniform(lo, hi));
  }
  Vec3 UnitVec() {
    Vec3 v;
    do {
      v = UniformVec(-1.0, 1.0);
    } while (v.squaredNorm() > 1.0 || v.squaredNorm() < 1e-4);
    return v.normalized();
  }
  // 10^U(lo_exp, hi_exp).
  double LogUniform(double lo_exp, double hi_exp) {
    return std::pow(10.0, Uniform(lo_exp, hi_exp));
  }
  int Index(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // Features in [0, 1]^3, displacements in [-0.5, 0.5]^3 (the first point, the vertex or edge 0's
  // start, moves up to twice as far).
  PairTrajectory Generic() {
    PairTrajectory trajectory;
    for (int i = 0; i < 4; ++i) {
      trajectory.x_t0[i] = UniformVec(0.0, 1.0);
      trajectory.x_t1[i] = trajectory.x_t0[i] + UniformVec(-0.5, 0.5) * (i == 0 ? 2.0 : 1.0);
    }
    return trajectory;
  }

  // The features' closest points are placed within a few d of each other at a random time.
  PairTrajectory NearContact(bool vertex_face, double d) {
    PairTrajectory trajectory = Generic();
    const double t = Uniform(0.0, 1.0);
    auto at = [&](int i) { return (1.0 - t) * trajectory.x_t0[i] + t * trajectory.x_t1[i]; };
    Vec3 target;
    // Feature parameters slightly beyond [0, 1] put a share of the targets just outside the
    // features (near-misses past an edge or a vertex).
    if (vertex_face) {
      double u = Uniform(-0.2, 1.0), v = Uniform(-0.2, 1.0);
      if (u + v > 1.2) {
        u = 1.0 - u;
        v = 1.0 - v;
      }
      target = at(1) + u * (at(2) - at(1)) + v * (at(3) - at(1));
    } else {
      target = at(2) + Uniform(-0.2, 1.2) * (at(3) - at(2)) - Uniform(-0.2, 1.2) * (at(1) - at(0));
    }
    // Shift feature 0 (vertex, or edge 0) so that at t its point lands near the target.
    const Vec3 offset = UnitVec() * d * Uniform(0.0, 3.0);
    const Vec3 shift = target + offset - at(0);
    const int moved = vertex_face ? 1 : 2;
    for (int i = 0; i < moved; ++i) {
      trajectory.x_t0[i] += shift;
      trajectory.x_t1[i] += shift;
    }
    return trajectory;
  }

  // Coplanar, parallel, collinear or degenerate configurations with tiny offsets.
  PairTrajectory NearlyDegenerate(bool vertex_face, double d) {
    const int kind = Index(4);
    const double tiny = LogUniform(-12.0, -6.0);
    PairTrajectory trajectory;
    switch (kind) {
      case 0: {  // everything in (nearly) the plane z = 0
        trajectory = Generic();
        for (int i = 0; i < 4; ++i) {
          trajectory.x_t0[i].z() = tiny * Uniform(-1.0, 1.0);
          trajectory.x_t1[i].z() = tiny * Uniform(-1.0, 1.0);
        }
        break;
      }
      case 1: {  // degenerate feature: zero-area triangle / zero-length edge, up to tiny
        trajectory = NearContact(vertex_face, d);
        for (auto* x : {&trajectory.x_t0, &trajectory.x_t1}) {
          if (vertex_face) {
            const Vec3 a = (*x)[1], b = (*x)[2];
            (*x)[3] = a + Uniform(-1.0, 2.0) * (b - a) + tiny * UnitVec();
          } else {
            (*x)[1] = (*x)[0] + tiny * UnitVec();
          }
        }
        break;
      }
      case 2: {  // VF: vertex moving parallel to a static triangle's plane at height ~ d.
                 // EE: (nearly) parallel edges at distance ~ d, sliding along each other.
        trajectory = Generic();
        const Vec3 direction = UnitVec();
        const Vec3 normal = direction.cross(UnitVec()).normalized();
        const double gap = d * Uniform(0.0, 3.0);
        if (vertex_face) {
          const Vec3 a = UniformVec(0.0, 1.0);
          const Vec3 b = a + 0.7 * direction;
          const Vec3 c = a + 0.7 * normal.cross(direction);
          const Vec3 p =
              a + Uniform(-0.5, 1.0) * direction + Uniform(-0.5, 1.0) * (c - a) + gap * normal;
          const Vec3 move =
              Uniform(-1.0, 1.0) * direction + Uniform(-1.0, 1.0) * (c - a) + tiny * UnitVec();
          trajectory.x_t0 = {p, a, b, c};
          trajectory.x_t1 = {p + move, a, b, c};
        } else {
          const Vec3 a = UniformVec(0.0, 1.0);
          const Vec3 b = a + Uniform(0.1, 1.0) * direction;
          const Vec3 side = normal.cross(direction);
          const Vec3 c = a + gap * side + Uniform(-1.0, 1.0) * direction;
          const Vec3 dd = c + Uniform(0.1, 1.0) * direction + tiny * UnitVec();
          const Vec3 move = Uniform(-1.0, 1.0) * direction + tiny * UnitVec();
          trajectory.x_t0 = {a, b, c, dd};
          trajectory.x_t1 = {a, b, c + move, dd + move};
        }
        break;
      }
      default: {  // collinear / in-plane: the moving feature stays in the other's plane
        trajectory = Generic();
        const Vec3 a0 = trajectory.x_t0[1], b0 = trajectory.x_t0[2], c0 = trajectory.x_t0[3];
        if (vertex_face) {
          // Static triangle; the vertex moves within its plane, offset by tiny.
          const Vec3 n = (b0 - a0).cross(c0 - a0).normalized();
          for (int i = 1; i < 4; ++i) trajectory.x_t1[i] = trajectory.x_t0[i];
          auto in_plane = [&](const Vec3& x) { return x - n * n.dot(x - a0); };
          trajectory.x_t0[0] = in_plane(trajectory.x_t0[0]) + tiny * n;
          trajectory.x_t1[0] = in_plane(trajectory.x_t1[0]) - tiny * n;
        } else {
          // Both edges on one line (x axis direction), up to tiny.
          const Vec3 origin = trajectory.x_t0[0];
          const Vec3 line = UnitVec();
          for (auto* x : {&trajectory.x_t0, &trajectory.x_t1}) {
            for (int i = 0; i < 4; ++i) {
              (*x)[i] = origin + Uniform(-1.0, 1.0) * line + tiny * UnitVec();
            }
          }
        }
        break;
      }
    }
    return trajectory;
  }

  // An end of the step lands exactly (up to the rounding of the construction) on the other
  // feature, at t = 0 or t = 1.
  PairTrajectory Touching(bool vertex_face) {
    PairTrajectory trajectory = Generic();
    auto& x = Index(2) == 0 ? trajectory.x_t0 : trajectory.x_t1;
    const double u = Uniform(0.0, 0.5), v = Uniform(0.0, 0.5);
    if (vertex_face) {
      x[0] = x[1] + u * (x[2] - x[1]) + v * (x[3] - x[1]);
    } else {
      const Vec3 point = x[2] + u * (x[3] - x[2]);
      const Vec3 direction = x[1] - x[0];
      x[0] = point - v * direction;
      x[1] = x[0] + direction;
    }
    return trajectory;
  }

  // The family mix used by the property test: 50% generic, 25% near contact, 15% nearly
  // degenerate, 10% touching.
  PairTrajectory Mixed(bool vertex_face, double d) {
    const int r = Index(20);
    if (r < 10) return Generic();
    if (r < 15) return NearContact(vertex_face, d);
    if (r < 18) return NearlyDegenerate(vertex_face, d);
    return Touching(vertex_face);
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace contactsim::core::testing
