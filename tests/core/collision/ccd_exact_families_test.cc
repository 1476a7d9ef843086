// Degenerate families with an exactly known contact (d = 0), and named regression cases.
//
// Exact families: every coordinate is a multiple of 2^-43 below 2^5 in magnitude (at most 48
// significant bits), so the constructions below are exact in binary64. The configuration at t* is
// built first: a contact point X = a + u (b - a) + v (c - a) (VF, u, v multiples of 1/8) or X on
// both edges (EE), then each point's start x_t0 and end x_t1 are chosen so that x(t*) is exactly
// that configuration (t* in {0, 1/4, 1/2, 1}: x_t1 = x_t0 + (x(t*) - x_t0) / t* is exact for t* =
// 1/4, 1/2). The real trajectories given by these doubles therefore touch at t*, and CCD must
// report a collision with toi <= t*: any miss, or a later toi, is a false negative. Around the
// contact the families are degenerate: coplanar motion, offsets of 2^-20 .. 2^-40 m (1e-6 .. 1e-12)
// out of a plane, collinear, coincident or parallel features, contacts at a vertex or an edge.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/separating_axis_filter.h"
#include "core/collision/ccd/vertex_face.h"
#include "scenes/testbeds/ccd_reference.h"

namespace contactsim::core {
namespace {

constexpr int kPerFamilyAndTime = 1500;
constexpr std::array<double, 4> kContactTimes = {0.0, 0.25, 0.5, 1.0};

class DyadicGenerator {
 public:
  explicit DyadicGenerator(uint64_t seed) : rng_(seed) {}

  // A multiple of 2^-20 in [-1, 1].
  double Coordinate() { return Integer(-(1 << 20), 1 << 20) * 0x1p-20; }
  Vec3 Point() { return Vec3(Coordinate(), Coordinate(), Coordinate()); }
  // A multiple of 1/8 in [lo/8, hi/8].
  double Eighths(int lo, int hi) { return Integer(lo, hi) / 8.0; }
  // 2^-k for k in [20, 40]: 1e-6 .. 1e-12.
  double Tiny() { return std::ldexp(1.0, -Integer(20, 40)); }
  int Integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  // Start and end positions through x_star at t_star (exact, see the file comment). `planar`
  // keeps the free end in the plane z = 0.
  void Through(const Vec3& x_star, double t_star, bool planar, Vec3* x_t0, Vec3* x_t1) {
    Vec3 free = Point();
    if (planar) free.z() = 0.0;
    if (t_star == 0.0) {
      *x_t0 = x_star;
      *x_t1 = free;
    } else if (t_star == 1.0) {
      *x_t0 = free;
      *x_t1 = x_star;
    } else {
      *x_t0 = free;
      *x_t1 = *x_t0 + (x_star - *x_t0) / t_star;
    }
  }

 private:
  std::mt19937_64 rng_;
};

// The configuration at t*: points {p, a, b, c} (VF) or {a, b, c, d} (EE), touching.
using Configuration = std::array<Vec3, 4>;

constexpr int kFamilies = 7;
constexpr int kPlanarFamily = 1;
constexpr int kCrossingFamily = 6;

Configuration VertexFaceFamily(int family, DyadicGenerator& g) {
  Vec3 a = g.Point(), b = g.Point(), c = g.Point();
  double u = g.Eighths(0, 8);
  double v = g.Eighths(0, 8 - static_cast<int>(u * 8));
  switch (family) {
    case 0:  // generic
      break;
    case kPlanarFamily:    // everything moves in the plane z = 0
    case kCrossingFamily:  // triangle in z = 0, vertex crossing it from 2^-k above
      a.z() = b.z() = c.z() = 0.0;
      break;
    case 2:  // collinear triangle (c beyond b on the line ab)
      c = a + 2.0 * (b - a);
      break;
    case 3:  // all three vertices coincide
      b = c = a;
      break;
    case 4:  // contact on edge bc or at vertex a or b
      if (g.Integer(0, 1) == 0) {
        v = 1.0 - u;
      } else {
        u = static_cast<double>(g.Integer(0, 1));
        v = 0.0;
      }
      break;
    default:  // sliver: c within 2^-20 .. 2^-40 of the line ab
      c = a + 0.5 * (b - a) + Vec3(g.Tiny(), -g.Tiny(), g.Tiny());
      break;
  }
  const Vec3 x = a + u * (b - a) + v * (c - a);
  return {x, a, b, c};
}

Configuration EdgeEdgeFamily(int family, DyadicGenerator& g) {
  Vec3 a = g.Point(), b = g.Point(), c = g.Point();
  if (family == kPlanarFamily) a.z() = b.z() = c.z() = 0.0;
  const double s = g.Eighths(0, 8);
  const Vec3 x = a + s * (b - a);
  switch (family) {
    case 0:  // generic: x = c + (d - c) / 2
      return {a, b, c, 2.0 * x - c};
    case kPlanarFamily:  // both edges in the plane z = 0: x = c + (d - c) / 4
      return {a, b, c, 4.0 * x - 3.0 * c};
    case 2:  // collinear, overlapping around x
      return {a, b, x - g.Eighths(0, 8) * (b - a), x + g.Eighths(1, 8) * (b - a)};
    case 3: {  // nearly parallel: d - c = (b - a) + 2 tiny, x = c + (d - c) / 2
      const Vec3 d = x + 0.5 * (b - a) + Vec3(g.Tiny(), g.Tiny(), -g.Tiny());
      return {a, b, 2.0 * x - d, d};
    }
    case 4:  // zero-length edge at x
      return {a, b, x, x};
    case 5:  // endpoint to endpoint
      return {a, b, s < 0.5 ? a : b, c};
    default:  // both edges zero-length, meeting at x
      return {x, x, x, x};
  }
}

TEST(CcdExactFamiliesTest, VertexFaceNeverMissesAnExactContact) {
  DyadicGenerator g(0xfa11);
  int checked = 0;
  for (int family = 0; family < kFamilies; ++family) {
    for (double t_star : kContactTimes) {
      for (int i = 0; i < kPerFamilyAndTime; ++i) {
        const Configuration x = VertexFaceFamily(family, g);
        PairTrajectory trajectory;
        for (int k = 0; k < 4; ++k) {
          g.Through(x[k], t_star, family == kPlanarFamily || family == kCrossingFamily,
                    &trajectory.x_t0[k], &trajectory.x_t1[k]);
        }
        if (family == kCrossingFamily) {
          // z(t) = delta (1 - t / t*): crosses z = 0 exactly at t* (exact for these t*).
          const double delta = g.Tiny();
          trajectory.x_t0[0].z() = t_star == 0.0 ? 0.0 : delta;
          trajectory.x_t1[0].z() = t_star == 0.0 ? delta : delta * (1.0 - 1.0 / t_star);
        }
        const CcdResult result = VertexFaceCcd(trajectory);
        ASSERT_TRUE(result.collides) << "family " << family << " t* " << t_star << " #" << i;
        ASSERT_LE(result.toi, t_star) << "family " << family << " #" << i;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, kFamilies * 4 * kPerFamilyAndTime);
}

TEST(CcdExactFamiliesTest, EdgeEdgeNeverMissesAnExactContact) {
  DyadicGenerator g(0xedce);
  int checked = 0;
  for (int family = 0; family < kFamilies; ++family) {
    for (double t_star : kContactTimes) {
      for (int i = 0; i < kPerFamilyAndTime; ++i) {
        const Configuration x = EdgeEdgeFamily(family, g);
        PairTrajectory trajectory;
        for (int k = 0; k < 4; ++k) {
          g.Through(x[k], t_star, family == kPlanarFamily, &trajectory.x_t0[k],
                    &trajectory.x_t1[k]);
        }
        const CcdResult result = EdgeEdgeCcd(trajectory);
        ASSERT_TRUE(result.collides) << "family " << family << " t* " << t_star << " #" << i;
        ASSERT_LE(result.toi, t_star) << "family " << family << " #" << i;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, kFamilies * 4 * kPerFamilyAndTime);
}

// Far from the origin the rounding bound eps grows with the coordinates (~1e-8 m at 1e6 m).
// Families whose points are multiples of 2^-23 stay exact when shifted by up to 2^20 m (at most
// 44 significant bits), so their contacts remain exact.
TEST(CcdExactFamiliesTest, ExactContactsFarFromTheOrigin) {
  DyadicGenerator g(0xfa7);
  const Vec3 shift(0x1p20, -0x1p19, 0x1p18);
  for (double t_star : kContactTimes) {
    for (int i = 0; i < kPerFamilyAndTime; ++i) {
      const int vf_family = std::array<int, 4>{0, 2, 3, 4}[i % 4];
      const int ee_family = std::array<int, 5>{0, kPlanarFamily, 2, 4, 6}[i % 5];
      const Configuration vf = VertexFaceFamily(vf_family, g);
      const Configuration ee = EdgeEdgeFamily(ee_family, g);
      PairTrajectory vf_trajectory, ee_trajectory;
      for (int k = 0; k < 4; ++k) {
        g.Through(vf[k], t_star, false, &vf_trajectory.x_t0[k], &vf_trajectory.x_t1[k]);
        g.Through(ee[k], t_star, ee_family == kPlanarFamily, &ee_trajectory.x_t0[k],
                  &ee_trajectory.x_t1[k]);
        for (PairTrajectory* x : {&vf_trajectory, &ee_trajectory}) {
          x->x_t0[k] += shift;
          x->x_t1[k] += shift;
        }
      }
      const CcdResult vf_result = VertexFaceCcd(vf_trajectory);
      ASSERT_TRUE(vf_result.collides) << "family " << vf_family << " t* " << t_star << " #" << i;
      ASSERT_LE(vf_result.toi, t_star);
      const CcdResult ee_result = EdgeEdgeCcd(ee_trajectory);
      ASSERT_TRUE(ee_result.collides) << "family " << ee_family << " t* " << t_star << " #" << i;
      ASSERT_LE(ee_result.toi, t_star);
    }
  }
}

// The separating-axis filter must never claim separation for these contacts either (the CCD
// calls above would catch it only through a miss; this checks the filter on its own).
TEST(CcdExactFamiliesTest, FilterNeverSeparatesAnExactContact) {
  DyadicGenerator g(0xf117);
  for (int family = 0; family < kFamilies; ++family) {
    for (double t_star : kContactTimes) {
      for (int i = 0; i < kPerFamilyAndTime / 4; ++i) {
        const Configuration vf = VertexFaceFamily(family, g);
        const Configuration ee = EdgeEdgeFamily(family, g);
        PairTrajectory vf_trajectory, ee_trajectory;
        for (int k = 0; k < 4; ++k) {
          g.Through(vf[k], t_star, false, &vf_trajectory.x_t0[k], &vf_trajectory.x_t1[k]);
          g.Through(ee[k], t_star, false, &ee_trajectory.x_t0[k], &ee_trajectory.x_t1[k]);
        }
        ASSERT_FALSE(VertexFaceSeparatedOnFixedAxis(vf_trajectory, 0.0)) << family << " #" << i;
        ASSERT_FALSE(EdgeEdgeSeparatedOnFixedAxis(ee_trajectory, 0.0)) << family << " #" << i;
      }
    }
  }
}

}  // namespace
}  // namespace contactsim::core
