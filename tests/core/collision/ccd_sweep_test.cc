// Tests for one step's CCD sweep (core/collision/ccd_sweep.h): an analytic time of impact, a
// scene that stays apart, equality with the narrow phase run on every non-adjacent pair, and
// thread-count independence.
#include "core/collision/ccd_sweep.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "core/collision/ccd/ccd_penetration.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"
#include "core/geometry/generators.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/global_control.h"
#include "tests/core/collision/owned_collision_body.h"

namespace contactsim::core {
namespace {

using SimBody = testing::OwnedCollisionBody;

// The generators' parameters are valid, so value() does not fail.
SimBody MakeBody(absl::StatusOr<TriangleMesh> mesh, int32_t id) {
  const Points3 rest = mesh.value().vertices();
  return SimBody{.mesh = std::move(mesh).value(), .x_t0 = rest, .x_t1 = rest, .id = id};
}

std::vector<CollisionBody> Views(const std::vector<SimBody>& bodies) {
  std::vector<CollisionBody> views;
  for (const SimBody& b : bodies) views.push_back(b.View());
  return views;
}

Mat3 RotationZ(double angle) { return Eigen::AngleAxisd(angle, Vec3::UnitZ()).toRotationMatrix(); }

// A 0.2 m cube above a static 2 x 2 x 1 m box (top face at z = 0.5), turned about z and shifted so
// no edges line up, moving straight down by `drop_m` over the step. Gap between the cube's bottom
// and the box top at t = 0: gap_m.
std::vector<SimBody> CubeOverBox(double gap_m, double drop_m) {
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeBox(Vec3(1.0, 1.0, 0.5)), 7));
  bodies[0].is_static = true;
  bodies.push_back(MakeBody(MakeBox(Vec3(0.1, 0.1, 0.1)), 3));
  const Vec3 start(0.13, -0.07, 0.5 + 0.1 + gap_m);
  bodies[1].x_t0 = Transformed(bodies[1].mesh.vertices(), RotationZ(0.3), start);
  bodies[1].x_t1 = Translated(bodies[1].x_t0, Vec3(0, 0, -drop_m));
  return bodies;
}

TEST(CcdSweepTest, CubeFallingOnBoxHitsAtTheAnalyticTime) {
  const double gap = 0.05, drop = 0.1, d = 1e-3;
  const std::vector<SimBody> bodies = CubeOverBox(gap, drop);
  CcdOptions options;
  options.min_separation_m = d;
  CcdSweep sweep;
  CcdSweepResult result;
  ASSERT_TRUE(sweep.Run(Views(bodies), options, &result).ok());
  ASSERT_FALSE(result.hits.empty());
  // The cube's bottom face stays parallel to the box top, their distance is gap - drop t, and it
  // reaches d at t* = (gap - d) / drop. A conservative toi lies in [t* - tol / drop, t*]: it may
  // precede the contact by the time needed to close tolerance_m (1e-6 m at 0.1 m per step, 1e-5),
  // never follow it. 1e-12 absorbs the rounding of t* itself.
  const double t_star = (gap - d) / drop;
  const double early = options.tolerance_m / drop;
  const CcdHit* earliest = EarliestHit(result.hits);
  ASSERT_NE(earliest, nullptr);
  EXPECT_LE(earliest->toi, t_star + 1e-12);
  EXPECT_GE(earliest->toi, t_star - early - 1e-12);
  for (const CcdHit& hit : result.hits) EXPECT_GE(hit.toi, t_star - early - 1e-12);
  EXPECT_EQ(result.stats.vertex_face_hits + result.stats.edge_edge_hits,
            static_cast<int64_t>(result.hits.size()));

  // The first hit is between the cube's bottom and the box top: its point on the cube is
  // d (+ the early margin) above z = 0.5, the other on the top face.
  const CollisionBody& a = earliest->body_a == 3 ? bodies[1].View() : bodies[0].View();
  const CollisionBody& b = earliest->body_b == 3 ? bodies[1].View() : bodies[0].View();
  const HitPoints points = ComputeHitPoints(*earliest, a, b);
  const Vec3 cube_point = earliest->body_a == 3 ? points.point_a : points.point_b;
  const Vec3 box_point = earliest->body_a == 3 ? points.point_b : points.point_a;
  EXPECT_NEAR(box_point.z(), 0.5, 1e-12);
  EXPECT_GE(cube_point.z() - 0.5, d - 1e-12);
  EXPECT_LE(cube_point.z() - 0.5, d + options.tolerance_m + 1e-12);
  EXPECT_LE(box_point.head<2>().cwiseAbs().maxCoeff(), 1.0 + 1e-12);

  // Every VF hit with a cube vertex is a bottom corner, every hit lies in the step.
  for (const CcdHit& hit : result.hits) {
    EXPECT_GE(hit.toi, 0.0);
    EXPECT_LE(hit.toi, 1.0);
    if (hit.kind == CcdPairKind::kVertexFace && hit.body_a == 3) {
      EXPECT_LT(bodies[1].mesh.vertices()(hit.feature_a, 2), 0.0) << "vertex " << hit.feature_a;
    }
  }
}

TEST(CcdSweepTest, CubeStoppingShortHitsOnlyWithinTheSeparation) {
  // Same scene, but the cube stops 2 mm above the box top.
  const double d = 1e-3;
  const std::vector<SimBody> bodies = CubeOverBox(0.05, 0.048);
  CcdOptions options;
  options.min_separation_m = d;
  CcdSweep sweep;
  CcdSweepResult result;
  ASSERT_TRUE(sweep.Run(Views(bodies), options, &result).ok());
  // With d = 1 mm the swept boxes (grown by d / 2 each) stay 1 mm apart: nothing at all.
  EXPECT_EQ(result.stats.vertex_face_candidates, 0);
  EXPECT_TRUE(result.hits.empty());
  // With d = 3 mm the swept boxes overlap, the narrow phase finds the 2 mm gap.
  options.min_separation_m = 3e-3;
  ASSERT_TRUE(sweep.Run(Views(bodies), options, &result).ok());
  EXPECT_GT(result.stats.vertex_face_candidates, 0);
  EXPECT_FALSE(result.hits.empty());
}

TEST(CcdSweepTest, SphereNearACornerStaysApart) {
  // A sphere of radius 0.1 whose centre moves from (1.06, 1.06, 0.56) to (1.07, 1.07, 0.57),
  // outside the corner (1, 1, 0.5) of the box: the closest distance is from the centre to the
  // corner minus the radius, sqrt(3) 0.06 - 0.1 = 3.9 mm > d = 1 mm at the start and growing (the
  // icosphere lies inside the sphere). Its swept box overlaps the box's faces' boxes.
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeBox(Vec3(1.0, 1.0, 0.5)), 1));
  bodies[0].is_static = true;
  bodies.push_back(MakeBody(MakeSphere(0.1, 2), 2));
  bodies[1].x_t0 = Translated(bodies[1].mesh.vertices(), Vec3(1.06, 1.06, 0.56));
  bodies[1].x_t1 = Translated(bodies[1].mesh.vertices(), Vec3(1.07, 1.07, 0.57));
  CcdOptions options;
  options.min_separation_m = 1e-3;
  CcdSweep sweep;
  CcdSweepResult result;
  ASSERT_TRUE(sweep.Run(Views(bodies), options, &result).ok());
  EXPECT_GT(result.stats.vertex_face_candidates + result.stats.edge_edge_candidates, 0);
  EXPECT_TRUE(result.hits.empty());
}

using HitKey = std::tuple<CcdPairKind, int32_t, int32_t, int32_t, int32_t>;

// Every non-adjacent VF and EE pair through the narrow phase, no broad phase.
std::vector<CcdHit> AllPairsNarrowPhase(const std::vector<SimBody>& bodies,
                                        const CcdOptions& options) {
  std::vector<CcdHit> hits;
  PairTrajectory tr;
  for (const SimBody& a : bodies) {
    for (const SimBody& b : bodies) {
      const bool same = &a == &b;
      if ((a.is_static && b.is_static) || (same && !a.self_collision)) continue;
      const IndexTriples& faces = b.mesh.faces();
      for (int v = 0; v < a.mesh.num_vertices(); ++v) {
        for (int f = 0; f < b.mesh.num_faces(); ++f) {
          if (same && (faces(f, 0) == v || faces(f, 1) == v || faces(f, 2) == v)) continue;
          tr.x_t0[0] = a.x_t0.row(v).transpose();
          tr.x_t1[0] = a.x_t1.row(v).transpose();
          for (int i = 0; i < 3; ++i) {
            tr.x_t0[i + 1] = b.x_t0.row(faces(f, i)).transpose();
            tr.x_t1[i + 1] = b.x_t1.row(faces(f, i)).transpose();
          }
          const CcdPenetration found = VertexFaceCcdPenetration(tr, options);
          const CcdResult& r = found.ccd;
          if (r.collides) {
            hits.push_back({CcdPairKind::kVertexFace, a.id, v, b.id, f, r.toi, r.weights, r.status,
                            found.penetration});
          }
        }
      }
      if (a.id > b.id) continue;
      const IndexPairs& ea = a.mesh.edges();
      const IndexPairs& eb = b.mesh.edges();
      for (int e = 0; e < a.mesh.num_edges(); ++e) {
        for (int g = same ? e + 1 : 0; g < b.mesh.num_edges(); ++g) {
          if (same && (ea(e, 0) == eb(g, 0) || ea(e, 0) == eb(g, 1) || ea(e, 1) == eb(g, 0) ||
                       ea(e, 1) == eb(g, 1))) {
            continue;
          }
          for (int i = 0; i < 2; ++i) {
            tr.x_t0[i] = a.x_t0.row(ea(e, i)).transpose();
            tr.x_t1[i] = a.x_t1.row(ea(e, i)).transpose();
            tr.x_t0[i + 2] = b.x_t0.row(eb(g, i)).transpose();
            tr.x_t1[i + 2] = b.x_t1.row(eb(g, i)).transpose();
          }
          const CcdPenetration found = EdgeEdgeCcdPenetration(tr, options);
          const CcdResult& r = found.ccd;
          if (r.collides) {
            hits.push_back({CcdPairKind::kEdgeEdge, a.id, e, b.id, g, r.toi, r.weights, r.status,
                            found.penetration});
          }
        }
      }
    }
  }
  return hits;
}

void SortByKey(std::vector<CcdHit>* hits) {
  std::sort(hits->begin(), hits->end(), [](const CcdHit& x, const CcdHit& y) {
    return HitKey(x.kind, x.body_a, x.feature_a, x.body_b, x.feature_b) <
           HitKey(y.kind, y.body_a, y.feature_a, y.body_b, y.feature_b);
  });
}

void ExpectIdenticalHits(const std::vector<CcdHit>& got, const std::vector<CcdHit>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const CcdHit& g = got[i];
    const CcdHit& e = expected[i];
    EXPECT_EQ(HitKey(g.kind, g.body_a, g.feature_a, g.body_b, g.feature_b),
              HitKey(e.kind, e.body_a, e.feature_a, e.body_b, e.feature_b));
    // Same inputs to the same function: bit-identical.
    EXPECT_EQ(g.toi, e.toi);
    EXPECT_EQ(g.weights, e.weights);
    EXPECT_EQ(g.status, e.status);
    EXPECT_EQ(g.penetration.penetrating_sign, e.penetration.penetrating_sign);
    ASSERT_EQ(g.penetration.intervals.count, e.penetration.intervals.count);
    for (int j = 0; j < e.penetration.intervals.count; ++j) {
      EXPECT_EQ(g.penetration.intervals.intervals[j].t_a, e.penetration.intervals.intervals[j].t_a);
      EXPECT_EQ(g.penetration.intervals.intervals[j].t_b, e.penetration.intervals.intervals[j].t_b);
    }
  }
}

// Two icospheres coming into contact while deforming; the larger one self-colliding: one of its
// vertices is pulled through the centre and out through the far side.
std::vector<SimBody> TouchingSpheres() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeSphere(0.3, 1), 2));
  bodies.push_back(MakeBody(MakeSphere(0.25, 1), 9));
  bodies[0].self_collision = true;
  const Vec3 centre_a(-0.25, 0.02, 0);
  bodies[0].x_t0 = Translated(bodies[0].mesh.vertices(), Vec3(-0.45, 0, 0));
  bodies[0].x_t1 = Translated(bodies[0].mesh.vertices(), centre_a);
  bodies[1].x_t0 = Translated(bodies[1].mesh.vertices(), Vec3(0.4, 0.05, 0));
  bodies[1].x_t1 = Translated(bodies[1].mesh.vertices(), Vec3(0.28, 0, 0.03));
  for (SimBody& b : bodies) {
    for (int i = 0; i < b.x_t1.rows(); ++i) {
      b.x_t1.row(i) += Eigen::RowVector3d(u(rng), u(rng), u(rng));
    }
  }
  const Vec3 p = bodies[0].x_t1.row(0).transpose();
  bodies[0].x_t1.row(0) = (centre_a - 1.3 * (p - centre_a)).transpose();
  return bodies;
}

// The narrow phase may take ~10^4 box evaluations on a grazing edge-edge pair; capping them keeps
// the test quick and is still conservative (such pairs report kMaxIterationsReached). The sweep
// and the reference use the same options, so the comparison stays exact.
CcdOptions TestOptions() {
  CcdOptions options;
  options.min_separation_m = 2e-3;
  options.max_iterations = 20'000;
  return options;
}

TEST(CcdSweepTest, HitsEqualTheNarrowPhaseOnEveryPair) {
  const std::vector<SimBody> bodies = TouchingSpheres();
  const CcdOptions options = TestOptions();
  CcdSweep sweep;
  CcdSweepResult result;
  ASSERT_TRUE(sweep.Run(Views(bodies), options, &result).ok());
  std::vector<CcdHit> expected = AllPairsNarrowPhase(bodies, options);
  ASSERT_GE(expected.size(), 5u);
  bool self_hit = false;
  int penetrating = 0;  // hits whose penetration (CcdHit::penetration) has an interval
  for (const CcdHit& h : expected) {
    self_hit |= h.body_a == h.body_b;
    penetrating += h.penetration.intervals.count > 0 ? 1 : 0;
  }
  EXPECT_TRUE(self_hit);
  EXPECT_GT(penetrating, 0);
  std::vector<CcdHit> got = result.hits;
  SortByKey(&got);
  SortByKey(&expected);
  ExpectIdenticalHits(got, expected);
  // The candidates are a (much) smaller superset of the hits.
  EXPECT_LT(result.stats.vertex_face_candidates + result.stats.edge_edge_candidates,
            42 * 80 * 3 + 120 * 120 * 2);
}

TEST(CcdSweepTest, SameHitsWithOneAndTwoThreads) {
  const std::vector<SimBody> bodies = TouchingSpheres();
  const CcdOptions options = TestOptions();
  CcdSweepResult one, two;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    CcdSweep sweep;
    ASSERT_TRUE(sweep.Run(Views(bodies), options, &one).ok());
  }
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
    CcdSweep sweep;
    ASSERT_TRUE(sweep.Run(Views(bodies), options, &two).ok());
  }
  ASSERT_FALSE(one.hits.empty());
  ExpectIdenticalHits(one.hits, two.hits);  // same order too, not only the same set
}

TEST(CcdSweepTest, RejectsBadOptions) {
  const std::vector<SimBody> bodies = CubeOverBox(0.05, 0.1);
  CcdSweep sweep;
  CcdSweepResult result;
  CcdOptions options;
  options.min_separation_m = -1e-3;
  EXPECT_EQ(sweep.Run(Views(bodies), options, &result).code(), absl::StatusCode::kInvalidArgument);
  options = CcdOptions();
  options.tolerance_m = 0.0;
  EXPECT_EQ(sweep.Run(Views(bodies), options, &result).code(), absl::StatusCode::kInvalidArgument);
  options = CcdOptions();
  options.max_iterations = 0;
  EXPECT_EQ(sweep.Run(Views(bodies), options, &result).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace contactsim::core
