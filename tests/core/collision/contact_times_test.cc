// All contact times (core/collision/ccd/contact_times.h) on configurations with closed-form roots.
#include "core/collision/ccd/contact_times.h"

#include <gtest/gtest.h>

#include <cmath>

#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

using testing::MakeTrajectory;

// Roots are simple and found to ~1e-15; 1e-12 is generous.
constexpr double kTimeAccuracy = 1e-12;

const Vec3 kA(0.0, 0.0, 0.0), kB(1.0, 0.0, 0.0), kC(0.0, 1.0, 0.0);

// Static vertex p = (0.3, 0.1, z_p) under a triangle that slides and tilts: a = (s, 0, 0),
// b = (1 + s, 0, z_b), c = (s, 1, 0) with s(t) = 0.2 - 0.7 t and z_b(t) = k (1 - 2 t). Its plane
// is z = z_b (x - s); the vertex lies on it when z_p = k (1 - 2t)(0.1 + 0.7 t), i.e.
// 1.4 t^2 - 0.5 t + (z_p / k - 0.1) = 0, with 0.1 + 0.7 t in [0.1, 0.8]: always inside.
PairTrajectory TiltingTriangle(double z_p, double k) {
  const Vec3 p(0.3, 0.1, z_p);
  return MakeTrajectory({p, Vec3(0.2, 0.0, 0.0), Vec3(1.2, 0.0, k), Vec3(0.2, 1.0, 0.0)},
                        {p, Vec3(-0.5, 0.0, 0.0), Vec3(0.5, 0.0, -k), Vec3(-0.5, 1.0, 0.0)});
}

TEST(ContactTimesTest, VertexThroughTheInteriorOnce) {
  const ContactTimes times = VertexFaceAllContactTimes(
      MakeTrajectory({Vec3(0.2, 0.3, 0.4), kA, kB, kC}, {Vec3(0.2, 0.3, -0.6), kA, kB, kC}));
  EXPECT_FALSE(times.coplanar_for_all_t);
  ASSERT_EQ(times.count, 1);
  EXPECT_NEAR(times.t[0], 0.4, kTimeAccuracy);
}

TEST(ContactTimesTest, TwoContactsWithATiltingTriangle) {
  // z_p = 0.12, k = 1: 1.4 t^2 - 0.5 t + 0.02 = 0.
  const double root = std::sqrt(0.25 - 4.0 * 1.4 * 0.02);
  const ContactTimes times = VertexFaceAllContactTimes(TiltingTriangle(0.12, 1.0));
  ASSERT_EQ(times.count, 2);
  EXPECT_NEAR(times.t[0], (0.5 - root) / 2.8, kTimeAccuracy);
  EXPECT_NEAR(times.t[1], (0.5 + root) / 2.8, kTimeAccuracy);
}

TEST(ContactTimesTest, CoplanarityOutsideTheTriangleIsNoContact) {
  // Vertex (0.5 - t, 0.1, 0.1) over the plane z = (1 - 2t) x of a static-footprint triangle:
  // coplanar at t = (2 -+ sqrt(0.8)) / 4; the later one has x < 0, outside the triangle.
  const ContactTimes times = VertexFaceAllContactTimes(
      MakeTrajectory({Vec3(0.5, 0.1, 0.1), kA, Vec3(1.0, 0.0, 1.0), kC},
                     {Vec3(-0.5, 0.1, 0.1), kA, Vec3(1.0, 0.0, -1.0), kC}));
  ASSERT_EQ(times.count, 1);
  EXPECT_NEAR(times.t[0], (2.0 - std::sqrt(0.8)) / 4.0, kTimeAccuracy);
}

TEST(ContactTimesTest, TouchingAtTheEndsOfTheStep) {
  const ContactTimes start = VertexFaceAllContactTimes(
      MakeTrajectory({Vec3(0.2, 0.2, 0.0), kA, kB, kC}, {Vec3(0.2, 0.2, 1.0), kA, kB, kC}));
  ASSERT_EQ(start.count, 1);
  EXPECT_EQ(start.t[0], 0.0);
  const ContactTimes end = VertexFaceAllContactTimes(
      MakeTrajectory({Vec3(0.2, 0.2, 1.0), kA, kB, kC}, {Vec3(0.2, 0.2, 0.0), kA, kB, kC}));
  ASSERT_EQ(end.count, 1);
  EXPECT_NEAR(end.t[0], 1.0, kTimeAccuracy);
}

TEST(ContactTimesTest, CoplanarMotionIsReported) {
  const ContactTimes times = VertexFaceAllContactTimes(
      MakeTrajectory({Vec3(-1.0, 0.25, 0.0), kA, kB, kC}, {Vec3(1.0, 0.25, 0.0), kA, kB, kC}));
  EXPECT_TRUE(times.coplanar_for_all_t);
  EXPECT_EQ(times.count, 0);  // inside over t in [0.5, 0.875] only: no end of step touches
}

TEST(ContactTimesTest, EdgesCrossingAndMissing) {
  const Vec3 a(-1.0, 0.0, 0.0), b(1.0, 0.0, 0.0);
  const ContactTimes crossing =
      EdgeEdgeAllContactTimes(MakeTrajectory({a, b, Vec3(0.3, -1.0, 0.7), Vec3(0.3, 1.0, 0.7)},
                                             {a, b, Vec3(0.3, -1.0, -0.3), Vec3(0.3, 1.0, -0.3)}));
  ASSERT_EQ(crossing.count, 1);
  EXPECT_NEAR(crossing.t[0], 0.7, kTimeAccuracy);
  // Beyond the end of edge 0: coplanar at t = 0.7 but 0.5 m apart.
  const ContactTimes missing =
      EdgeEdgeAllContactTimes(MakeTrajectory({a, b, Vec3(1.5, -1.0, 0.7), Vec3(1.5, 1.0, 0.7)},
                                             {a, b, Vec3(1.5, -1.0, -0.3), Vec3(1.5, 1.0, -0.3)}));
  EXPECT_EQ(missing.count, 0);
}

TEST(ContactTimesTest, DegenerateFeatures) {
  // Collinear triangle: the vertex drops onto its segment at t = 0.4.
  const Vec3 c_on_line(2.0, 0.0, 0.0);
  const ContactTimes segment = VertexFaceAllContactTimes(MakeTrajectory(
      {Vec3(1.5, 0.0, 0.4), kA, kB, c_on_line}, {Vec3(1.5, 0.0, -0.6), kA, kB, c_on_line}));
  // f vanishes identically (a degenerate triangle has no normal): reported as coplanar.
  EXPECT_TRUE(segment.coplanar_for_all_t);
  // Zero-length edge 0 at (0.3, 0, 0); edge 1 sweeps through it at t = 0.5.
  const Vec3 point(0.3, 0.0, 0.0);
  const ContactTimes zero_length = EdgeEdgeAllContactTimes(
      MakeTrajectory({point, point, Vec3(0.0, 0.0, 0.5), Vec3(1.0, 0.0, 0.5)},
                     {point, point, Vec3(0.0, 0.0, -0.5), Vec3(1.0, 0.0, -0.5)}));
  EXPECT_TRUE(zero_length.coplanar_for_all_t);
}

}  // namespace
}  // namespace contactsim::core
