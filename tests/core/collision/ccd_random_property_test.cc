// Property test: VertexFaceCcd and EdgeEdgeCcd against an independent dense-sampling reference
// (ccd_reference.h) on 500,000 random trajectories each (ccd_random_generators.h, fixed seeds).
//
// Checked for every trajectory:
//   * no false negative: a definite reference hit (distance < d at a sampled time or at a
//     coplanarity root) must be reported as colliding;
//   * toi <= the earliest reference hit time (CCD's toi is a lower bound of the true first time
//     the distance reaches d; every reference hit time is a time when it is below d);
//   * tightness: at a reported toi (status kOk) the features are within
//     1.24 d + 2 (tolerance + 2 eps) (inclusion_root_finder.h; 1.24 > sqrt(1 + (sqrt(3) - 1)^2)),
//     checked with 1e-9 m for the 2 eps (eps ~ 1e-14 m for these unit-scale inputs).
// The false-positive rate (CCD hit, no reference hit) is printed and recorded; it includes
// genuine contacts the sampling missed, so it is an upper bound.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <string>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_random_generators.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::DenseReference;
using testing::RefDistance;
using testing::TrajectoryGenerator;

constexpr int kTrajectories = 500'000;
constexpr int kReferenceSamples = 512;
constexpr double kMinSeparation = 5e-3;  // [m]: reference hits at sampled times are genuine

std::string Describe(const PairTrajectory& trajectory) {
  std::string text;
  char buffer[160];
  for (const auto* x : {&trajectory.x_t0, &trajectory.x_t1}) {
    for (const Vec3& point : *x) {
      std::snprintf(buffer, sizeof(buffer), "Vec3(%.17g, %.17g, %.17g), ", point.x(), point.y(),
                    point.z());
      text += buffer;
    }
    text += "\n";
  }
  return text;
}

// d: the minimum separation under test (the generator always mixes near-misses at kMinSeparation
// scale). d = 0 exercises the exact-contact fast path (coplanarity_fast_path.h); its reference
// hits are the clearly-inside coplanarity crossings.
void RunProperty(bool vertex_face, uint64_t seed, double d, int trajectories) {
  TrajectoryGenerator generator(seed);
  CcdOptions options;
  options.min_separation_m = d;
  const double tightness = 1.2395 * d + 2.0 * options.tolerance_m + 1e-9;

  int64_t reference_hits = 0, ccd_hits = 0, false_positives = 0, capped = 0;
  int64_t total_iterations = 0, max_iterations = 0;
  int failures = 0;
  for (int i = 0; i < trajectories && failures < 5; ++i) {
    const PairTrajectory trajectory = generator.Mixed(vertex_face, kMinSeparation);
    const CcdResult result =
        vertex_face ? VertexFaceCcd(trajectory, options) : EdgeEdgeCcd(trajectory, options);
    const testing::ReferenceResult reference =
        DenseReference(vertex_face, trajectory, d, kReferenceSamples);
    total_iterations += result.iterations;
    max_iterations = std::max<int64_t>(max_iterations, result.iterations);
    capped += result.status == CcdStatus::kMaxIterationsReached;
    reference_hits += reference.hit;
    ccd_hits += result.collides;
    false_positives += result.collides && !reference.hit;
    if (reference.hit && !result.collides) {
      ADD_FAILURE() << "missed collision #" << i
                    << " (reference hit at t = " << reference.earliest_hit_t << ")\n"
                    << Describe(trajectory);
      ++failures;
    } else if (reference.hit && result.toi > reference.earliest_hit_t) {
      ADD_FAILURE() << "toi " << result.toi << " after the reference hit at "
                    << reference.earliest_hit_t << " #" << i << "\n"
                    << Describe(trajectory);
      ++failures;
    }
    if (result.collides && result.status == CcdStatus::kOk) {
      const double distance = RefDistance(vertex_face, trajectory, result.toi);
      if (distance > tightness) {
        ADD_FAILURE() << "distance " << distance << " at toi " << result.toi
                      << " exceeds 1.24 d + 2 tolerance #" << i << "\n"
                      << Describe(trajectory);
        ++failures;
      }
    }
  }
  const double fp_rate = static_cast<double>(false_positives) / trajectories;
  const std::string name = std::string(vertex_face ? "vf" : "ee") + (d == 0.0 ? "_d0" : "");
  std::printf("%s: %d trajectories, reference hits %" PRId64 ", CCD hits %" PRId64
              ", false positives %" PRId64 " (%.3f%% of all, %.2f%% of CCD hits), capped %" PRId64
              ", mean boxes %.1f, max boxes %" PRId64 "\n",
              name.c_str(), trajectories, reference_hits, ccd_hits, false_positives,
              100.0 * fp_rate, ccd_hits > 0 ? 100.0 * false_positives / ccd_hits : 0.0, capped,
              static_cast<double>(total_iterations) / trajectories, max_iterations);
  ::testing::Test::RecordProperty(name + "_false_positive_rate", std::to_string(fp_rate));
  ::testing::Test::RecordProperty(name + "_reference_hits", std::to_string(reference_hits));
  // The mix must exercise both outcomes in quantity, or the test proves little.
  EXPECT_GT(reference_hits, trajectories / 20);
  EXPECT_LT(reference_hits, trajectories - trajectories / 20);
}

TEST(CcdRandomPropertyTest, VertexFaceNeverMissesTheReference) {
  RunProperty(true, 0x5eed0001, kMinSeparation, kTrajectories);
}

TEST(CcdRandomPropertyTest, EdgeEdgeNeverMissesTheReference) {
  RunProperty(false, 0x5eed0002, kMinSeparation, kTrajectories);
}

// Exact contact (d = 0): 250k more trajectories per kind through the fast path.
TEST(CcdRandomPropertyTest, VertexFaceExactContactNeverMissesTheReference) {
  RunProperty(true, 0x5eed0003, 0.0, kTrajectories / 2);
}

TEST(CcdRandomPropertyTest, EdgeEdgeExactContactNeverMissesTheReference) {
  RunProperty(false, 0x5eed0004, 0.0, kTrajectories / 2);
}

}  // namespace
}  // namespace contactsim::core
