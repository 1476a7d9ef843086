// Local step of the local-global (ADMM-PD) integrator: ns per element of RunLocalSteps on one
// core, for each material, tets (3x3) and membranes (3x2), with the ratio against ARAP's
// proximal point (closed form) in the same process.
//
// Elements: random deformation gradients U diag(sigma) V^T, sigma in [0.7, 1.3] (10% of the tets
// inverted: sigma_2 < 0), rest volume 1e-6 m^3, E = 1e6 Pa, nu = 0.3, ADMM weight w = 2 mu vol,
// random duals; each run updates z and u, as in a local-global iteration. Every material is
// warmed up once, then timed `repetitions` times over all elements; the table shows the fastest.
//
// Usage: local_step_bench [elements (default 100000)] [repetitions (default 7)]
#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/dynamics/fem/local_step.h"
#include "core/dynamics/fem/material.h"

namespace contactsim::core {
namespace {

Mat3 RandomRotation(std::mt19937& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::Quaterniond q(normal(rng), normal(rng), normal(rng), normal(rng));
  q.normalize();
  return q.toRotationMatrix();
}

struct Case {
  std::string name;
  MaterialModel model;
  bool projection;
};

struct Row {
  std::string name;
  double ns_per_element;
  double newton_per_element;
  int64_t not_converged;
};

std::vector<Row> RunAll(int columns, int64_t n, int repetitions) {
  std::mt19937 rng(42);
  const int size = 3 * columns;
  std::vector<double> f(size * n), u(size * n), z(size * n), vol(n, 1e-6), w(n);
  std::uniform_real_distribution<double> stretch(0.7, 1.3);
  std::normal_distribution<double> dual(0.0, 0.01);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  for (int64_t e = 0; e < n; ++e) {
    const Mat3 r1 = RandomRotation(rng);
    const Mat3 r2 = RandomRotation(rng);
    if (columns == 3) {
      Eigen::Vector3d s(stretch(rng), stretch(rng), stretch(rng));
      if (e % 10 == 0) s[2] = -0.5 * s[2];
      Eigen::Map<Mat3>(f.data() + size * e) = r1 * s.asDiagonal() * r2.transpose();
    } else {
      const Eigen::Vector2d s(stretch(rng), stretch(rng));
      const Eigen::Matrix2d v = Eigen::Rotation2Dd(angle(rng)).toRotationMatrix();
      Eigen::Map<Mat32>(f.data() + size * e) = r1.leftCols<2>() * s.asDiagonal() * v.transpose();
    }
    for (int i = 0; i < size; ++i) u[size * e + i] = dual(rng);
  }
  const std::vector<double> u0 = u;
  const std::vector<Case> cases = {{"arap (prox)", MaterialModel::kArap, false},
                                   {"arap (PD projection)", MaterialModel::kArap, true},
                                   {"corotational", MaterialModel::kCorotational, false},
                                   {"neo_hookean", MaterialModel::kNeoHookean, false}};
  std::vector<Row> rows;
  for (const Case& c : cases) {
    LocalStepBatch batch;
    batch.material = MakeMaterial(c.model, {1e6, 0.3, 1000.0}).value();
    std::fill(w.begin(), w.end(), 2.0 * batch.material.mu * 1e-6);
    batch.columns = columns;
    batch.deformation_gradients = f;
    batch.volumes = vol;
    batch.weights = w;
    batch.duals = absl::MakeSpan(u);
    batch.projections = absl::MakeSpan(z);
    batch.options.arap_projection = c.projection;
    if (!ValidateLocalStepBatch(batch).ok()) std::abort();
    double best = 1e300;
    LocalStepStats stats;
    for (int rep = 0; rep <= repetitions; ++rep) {  // rep 0 warms up
      std::copy(u0.begin(), u0.end(), u.begin());
      const auto t0 = std::chrono::steady_clock::now();
      stats = RunLocalSteps(batch, 0, n);
      const auto t1 = std::chrono::steady_clock::now();
      if (rep > 0) best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    rows.push_back(
        {c.name, best / n, static_cast<double>(stats.newton_iterations) / n, stats.not_converged});
  }
  return rows;
}

void Print(const char* title, const std::vector<Row>& rows) {
  std::printf("\n%s\n", title);
  std::printf("%-22s %14s %12s %16s %14s\n", "material", "ns/element", "vs arap", "newton it/elem",
              "not converged");
  for (const Row& r : rows) {
    std::printf("%-22s %14.1f %12.2f %16.2f %14lld\n", r.name.c_str(), r.ns_per_element,
                r.ns_per_element / rows[0].ns_per_element, r.newton_per_element,
                static_cast<long long>(r.not_converged));
  }
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 7;
  if (n <= 0 || repetitions <= 0) {
    std::fprintf(stderr, "usage: local_step_bench [elements > 0] [repetitions > 0]\n");
    return 2;
  }
  std::printf("local step, one core, %lld elements, best of %d runs\n", static_cast<long long>(n),
              repetitions);
  contactsim::core::Print("tets (3x3 F)", contactsim::core::RunAll(3, n, repetitions));
  contactsim::core::Print("membranes (3x2 F)", contactsim::core::RunAll(2, n, repetitions));
  return 0;
}
