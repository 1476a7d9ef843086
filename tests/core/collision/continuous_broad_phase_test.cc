// Tests for the continuous broad phase (core/collision/continuous_broad_phase.h): the candidates
// equal a brute-force enumeration of every non-adjacent VF/EE pair with overlapping swept boxes,
// adjacency is excluded, body flags are honoured, trees are reused, and the order does not
// depend on the thread count.
#include "core/collision/continuous_broad_phase.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "core/collision/broad_phase/aabb.h"
#include "core/geometry/generators.h"
#include "core/geometry/tet_mesh.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oneapi/tbb/global_control.h"
#include "tests/core/collision/owned_collision_body.h"

namespace contactsim::core {
namespace {

using SimBody = testing::OwnedCollisionBody;

std::vector<CollisionBody> Views(const std::vector<SimBody>& bodies) {
  std::vector<CollisionBody> views;
  for (const SimBody& b : bodies) views.push_back(b.View());
  return views;
}

bool UsedByAFace(const TriangleMesh& mesh, int v) {
  return mesh.vertex_faces_begin(v) != mesh.vertex_faces_end(v);
}

// The definition, feature pair by feature pair: O(V F + E^2) per body pair.
CandidatePairs BruteForce(const std::vector<SimBody>& bodies, double min_separation) {
  const double margin = 0.5 * min_separation;
  CandidatePairs out;
  for (const SimBody& a : bodies) {
    for (const SimBody& b : bodies) {
      const bool same = &a == &b;
      if (a.is_static && b.is_static) continue;
      if (same && !a.self_collision) continue;
      const IndexTriples& faces = b.mesh.faces();
      for (int v = 0; v < a.mesh.num_vertices(); ++v) {
        if (!UsedByAFace(a.mesh, v)) continue;
        const Aabb box_v = SweptAabb(a.x_t0, a.x_t1, {v}, margin);
        for (int f = 0; f < b.mesh.num_faces(); ++f) {
          if (same && (faces(f, 0) == v || faces(f, 1) == v || faces(f, 2) == v)) continue;
          const int32_t ids[] = {faces(f, 0), faces(f, 1), faces(f, 2)};
          if (Overlaps(box_v, SweptAabb(b.x_t0, b.x_t1, ids, margin))) {
            out.vertex_face.push_back({a.id, v, b.id, f});
          }
        }
      }
      if (a.id > b.id) continue;  // each unordered body pair once, (body_a, edge_a) smallest
      const IndexPairs& ea = a.mesh.edges();
      const IndexPairs& eb = b.mesh.edges();
      for (int e = 0; e < a.mesh.num_edges(); ++e) {
        const int32_t ids_e[] = {ea(e, 0), ea(e, 1)};
        const Aabb box_e = SweptAabb(a.x_t0, a.x_t1, ids_e, margin);
        for (int g = same ? e + 1 : 0; g < b.mesh.num_edges(); ++g) {
          if (same && (ea(e, 0) == eb(g, 0) || ea(e, 0) == eb(g, 1) || ea(e, 1) == eb(g, 0) ||
                       ea(e, 1) == eb(g, 1))) {
            continue;
          }
          const int32_t ids_g[] = {eb(g, 0), eb(g, 1)};
          if (Overlaps(box_e, SweptAabb(b.x_t0, b.x_t1, ids_g, margin))) {
            out.edge_edge.push_back({a.id, e, b.id, g});
          }
        }
      }
    }
  }
  std::sort(out.vertex_face.begin(), out.vertex_face.end());
  std::sort(out.edge_edge.begin(), out.edge_edge.end());
  return out;
}

// The generators' parameters are valid, so value() does not fail.
SimBody MakeBody(absl::StatusOr<TriangleMesh> mesh, int32_t id) {
  const Points3 rest = mesh.value().vertices();
  return SimBody{.mesh = std::move(mesh).value(), .x_t0 = rest, .x_t1 = rest, .id = id};
}

Points3 Jittered(const Points3& x, double amplitude, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  Points3 out = x;
  for (int i = 0; i < out.rows(); ++i) out.row(i) += Eigen::RowVector3d(u(rng), u(rng), u(rng));
  return out;
}

void ExpectSameCandidates(const CandidatePairs& got, const CandidatePairs& expected) {
  EXPECT_EQ(got.vertex_face.size(), expected.vertex_face.size());
  EXPECT_EQ(got.edge_edge.size(), expected.edge_edge.size());
  EXPECT_TRUE(got.vertex_face == expected.vertex_face);
  EXPECT_TRUE(got.edge_edge == expected.edge_edge);
}

TEST(ContinuousBroadPhaseTest, TwoDeformingSpheresEqualBruteForceOverManySteps) {
  std::mt19937 rng(7);
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeSphere(0.5, 2), 10));
  bodies.push_back(MakeBody(MakeSphere(0.4, 1), 4));
  bodies[0].self_collision = true;
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  // The spheres approach, pass through each other and separate; vertices jitter (deformation).
  for (int step = 0; step < 8; ++step) {
    const double s0 = -1.2 + 0.3 * step, s1 = s0 + 0.3;
    bodies[0].x_t0 = Jittered(Translated(bodies[0].mesh.vertices(), Vec3(s0, 0, 0)), 0.03, rng);
    bodies[0].x_t1 = Jittered(Translated(bodies[0].mesh.vertices(), Vec3(s1, 0, 0)), 0.03, rng);
    bodies[1].x_t0 = Jittered(bodies[1].mesh.vertices(), 0.02, rng);
    bodies[1].x_t1 = Jittered(Translated(bodies[1].mesh.vertices(), Vec3(0, 0.05, 0)), 0.02, rng);
    const double d = 0.01;
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), d, &got).ok());
    const CandidatePairs expected = BruteForce(bodies, d);
    ExpectSameCandidates(got, expected);
    EXPECT_EQ(got.stats.trees_built, step == 0 ? 6 : 0);
  }
}

TEST(ContinuousBroadPhaseTest, FewAndManyCandidatesPerFeatureEqualBruteForce) {
  // The canonical merge concatenates and sorts when there are fewer candidates than half the
  // first features (vertices for VF, edges for EE: kKeysPerCandidateForSort), and counting-sorts
  // otherwise; growing the separation takes the same two spheres from the first regime to the
  // second, and every answer must be the definition's, in its order.
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeSphere(0.5, 2), 3));
  bodies.push_back(MakeBody(MakeSphere(0.4, 2), 8));
  bodies[1].x_t0 = Translated(bodies[1].mesh.vertices(), Vec3(0.85, 0, 0));
  bodies[1].x_t1 = Translated(bodies[1].mesh.vertices(), Vec3(0.8, 0.02, 0));
  int64_t num_vertices = 0, num_edges = 0;
  for (const SimBody& b : bodies) {
    num_vertices += b.mesh.num_vertices();
    num_edges += b.mesh.num_edges();
  }
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  bool few_seen = false, many_seen = false;
  for (const double d : {0.001, 0.05, 0.3, 2.0}) {
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), d, &got).ok());
    ExpectSameCandidates(got, BruteForce(bodies, d));
    for (const auto& [candidates, keys] :
         {std::pair<int64_t, int64_t>(got.vertex_face.size(), num_vertices),
          std::pair<int64_t, int64_t>(got.edge_edge.size(), num_edges)}) {
      (2 * candidates < keys ? few_seen : many_seen) = true;
    }
  }
  EXPECT_TRUE(few_seen);
  EXPECT_TRUE(many_seen);
}

TEST(ContinuousBroadPhaseTest, ClothOnStaticBoxWithSelfCollision) {
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeClothGrid(1.0, 1.0, 9, 9), 1));
  bodies.push_back(MakeBody(MakeBox(Vec3(0.3, 0.3, 0.2)), 2));
  bodies[0].self_collision = true;
  bodies[1].is_static = true;
  std::mt19937 rng(3);
  // The cloth falls onto the box top (z = 0.2) and crumples: random vertical motion.
  bodies[0].x_t0 = Jittered(Translated(bodies[0].mesh.vertices(), Vec3(0, 0, 0.25)), 0.02, rng);
  bodies[0].x_t1 = Jittered(Translated(bodies[0].mesh.vertices(), Vec3(0, 0, 0.15)), 0.05, rng);
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  for (const double d : {0.0, 0.02}) {
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), d, &got).ok());
    const CandidatePairs expected = BruteForce(bodies, d);
    ASSERT_FALSE(expected.vertex_face.empty());
    ExpectSameCandidates(got, expected);
    EXPECT_EQ(got.stats.body_pairs, 1);
  }
}

TEST(ContinuousBroadPhaseTest, PolicyRebuildsKeepCandidatesExact) {
  // A cloth scrambled a little more every step degrades its refitted trees; with a rebuild factor
  // of 1 the policy rebuilds on any degradation. Either way the candidates stay exact.
  SimBody cloth = MakeBody(MakeClothGrid(1.0, 1.0, 10, 10), 0);
  cloth.self_collision = true;
  SimBody ball = MakeBody(MakeSphere(0.2, 1), 1);
  std::vector<SimBody> bodies = {cloth, ball};
  ContinuousBroadPhase broad_phase(BvhOptions{.rebuild_quality_factor = 1.0});
  CandidatePairs got;
  std::mt19937 rng(17);
  int rebuilt = 0;
  for (int step = 0; step < 6; ++step) {
    // Vertices scatter (the same at t0 and t1, so feature boxes keep their size while subtrees
    // spread out).
    bodies[0].x_t0 = Jittered(cloth.mesh.vertices(), 0.1 * step, rng);
    bodies[0].x_t1 = bodies[0].x_t0;
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.01, &got).ok());
    ExpectSameCandidates(got, BruteForce(bodies, 0.01));
    rebuilt += got.stats.trees_rebuilt;
  }
  EXPECT_GT(rebuilt, 0);
}

TEST(ContinuousBroadPhaseTest, FoldedClothSelfCollisionEqualsBruteForce) {
  // The right half of a cloth folds over the left half about the line x = 0, ending 4 mm above
  // it (closer than d = 1 cm): most feature pairs of the two halves come close.
  SimBody cloth = MakeBody(MakeClothGrid(1.0, 0.6, 12, 8), 0);
  cloth.self_collision = true;
  const auto folded = [&](double angle) {
    Points3 x = cloth.mesh.vertices();
    for (int i = 0; i < x.rows(); ++i) {
      const double r = x(i, 0);
      if (r <= 0) continue;
      x(i, 0) = r * std::cos(angle);
      x(i, 2) = r * std::sin(angle) + 0.004 * angle / std::numbers::pi;
    }
    return x;
  };
  std::vector<SimBody> bodies = {cloth};
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  for (const double angle : {2.6, 2.95, std::numbers::pi}) {
    bodies[0].x_t0 = folded(angle);
    bodies[0].x_t1 = folded(std::min(angle + 0.25, std::numbers::pi));
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.01, &got).ok());
    const CandidatePairs expected = BruteForce(bodies, 0.01);
    // Once the step ends folded, features across the fold are paired, not only grid
    // neighbours: some candidate edges are more than 0.3 m apart in the flat cloth.
    const IndexPairs& edges = cloth.mesh.edges();
    const Points3& rest = cloth.mesh.vertices();
    const auto rest_distance = [&](const EdgeEdgeCandidate& c) {
      return (rest.row(edges(c.edge_a, 0)) - rest.row(edges(c.edge_b, 0))).norm();
    };
    if (angle > 2.9) {
      EXPECT_TRUE(std::any_of(expected.edge_edge.begin(), expected.edge_edge.end(),
                              [&](const EdgeEdgeCandidate& c) { return rest_distance(c) > 0.3; }));
    }
    ExpectSameCandidates(got, expected);
  }
}

TEST(ContinuousBroadPhaseTest, HugeMarginGivesEveryNonAdjacentPair) {
  // With a margin larger than the mesh every swept box overlaps every other, so the candidates
  // are all non-adjacent pairs, counted independently from the topology:
  //   VF: sum over vertices of (F - faces around v);
  //   EE: E (E - 1) / 2 - sum over vertices of deg(v) (deg(v) - 1) / 2, as two distinct edges
  //       share at most one vertex.
  SimBody cloth = MakeBody(MakeClothGrid(1.0, 1.0, 3, 2), 5);
  cloth.self_collision = true;
  const TriangleMesh& m = cloth.mesh;
  int64_t vf = 0;
  std::vector<int64_t> degree(m.num_vertices(), 0);
  for (int e = 0; e < m.num_edges(); ++e) {
    ++degree[m.edges()(e, 0)];
    ++degree[m.edges()(e, 1)];
  }
  int64_t adjacent_edge_pairs = 0;
  for (int v = 0; v < m.num_vertices(); ++v) {
    vf += m.num_faces() - (m.vertex_faces_end(v) - m.vertex_faces_begin(v));
    adjacent_edge_pairs += degree[v] * (degree[v] - 1) / 2;
  }
  const int64_t e = m.num_edges();
  const int64_t ee = e * (e - 1) / 2 - adjacent_edge_pairs;

  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  ASSERT_TRUE(broad_phase.FindCandidates({cloth.View()}, 10.0, &got).ok());
  EXPECT_EQ(static_cast<int64_t>(got.vertex_face.size()), vf);
  EXPECT_EQ(static_cast<int64_t>(got.edge_edge.size()), ee);
  for (const VertexFaceCandidate& c : got.vertex_face) {
    for (int k = 0; k < 3; ++k) EXPECT_NE(m.faces()(c.face, k), c.vertex);
  }
  for (const EdgeEdgeCandidate& c : got.edge_edge) {
    EXPECT_LT(c.edge_a, c.edge_b);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) EXPECT_NE(m.edges()(c.edge_a, i), m.edges()(c.edge_b, j));
    }
  }
}

TEST(ContinuousBroadPhaseTest, FlagsStaticAndSelfCollision) {
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeBox(Vec3(0.5, 0.5, 0.5)), 1));
  bodies.push_back(MakeBody(MakeBox(Vec3(0.4, 0.4, 0.4)), 2));
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  // Two overlapping static boxes: nothing, even with self collision requested.
  bodies[0].is_static = bodies[1].is_static = true;
  bodies[0].self_collision = bodies[1].self_collision = true;
  ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.1, &got).ok());
  EXPECT_TRUE(got.vertex_face.empty());
  EXPECT_TRUE(got.edge_edge.empty());
  // One dynamic without self collision: only pairs between the two bodies.
  bodies[1].is_static = false;
  bodies[1].self_collision = false;
  bodies[0].self_collision = false;
  ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.1, &got).ok());
  EXPECT_FALSE(got.vertex_face.empty());
  for (const VertexFaceCandidate& c : got.vertex_face) EXPECT_NE(c.body_a, c.body_b);
  for (const EdgeEdgeCandidate& c : got.edge_edge) {
    EXPECT_EQ(c.body_a, 1);
    EXPECT_EQ(c.body_b, 2);
  }
  ExpectSameCandidates(got, BruteForce(bodies, 0.1));
  // Far apart: no body pair.
  bodies[1].x_t0 = Translated(bodies[1].mesh.vertices(), Vec3(5, 0, 0));
  bodies[1].x_t1 = bodies[1].x_t0;
  ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.1, &got).ok());
  EXPECT_EQ(got.stats.body_pairs, 0);
  EXPECT_TRUE(got.vertex_face.empty());
}

// A lone body without self collision can have no candidate: the early exit builds no tree, and
// a body joining later still gets exactly the brute-force candidates (the skipped calls leave
// the lone body's cached trees to be refitted from the new positions).
TEST(ContinuousBroadPhaseTest, LoneBodySkipsTheTreesAndAJoiningBodyIsExact) {
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeSphere(0.3, 2), 1));
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.01, &got).ok());
  EXPECT_EQ(got.stats.trees_built, 0);
  EXPECT_TRUE(got.vertex_face.empty());
  EXPECT_TRUE(got.edge_edge.empty());
  // The sphere moves on alone (no trees updated), then a box arrives next to it.
  bodies[0].x_t0 = Translated(bodies[0].mesh.vertices(), Vec3(0.2, 0, 0));
  bodies[0].x_t1 = Translated(bodies[0].mesh.vertices(), Vec3(0.25, 0, 0));
  ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.01, &got).ok());
  bodies.push_back(MakeBody(MakeBox(Vec3(0.2, 0.2, 0.2)), 2));
  bodies[1].x_t0 = Translated(bodies[1].mesh.vertices(), Vec3(0.7, 0, 0));
  bodies[1].x_t1 = bodies[1].x_t0;
  bodies[1].is_static = true;
  ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.01, &got).ok());
  EXPECT_EQ(got.stats.body_pairs, 1);
  EXPECT_FALSE(got.vertex_face.empty());
  ExpectSameCandidates(got, BruteForce(bodies, 0.01));
}

TEST(ContinuousBroadPhaseTest, InteriorVerticesOfATetMeshAreNotFeatures) {
  absl::StatusOr<TetMesh> tets = MakeTetBox(Vec3(0.5, 0.5, 0.5), 2, 2, 2);
  ASSERT_TRUE(tets.ok()) << tets.status();
  const TriangleMesh& surface = tets->surface();
  SimBody box{.mesh = surface, .x_t0 = tets->vertices(), .x_t1 = tets->vertices(), .id = 0};
  box.self_collision = true;
  ContinuousBroadPhase broad_phase;
  CandidatePairs got;
  ASSERT_TRUE(broad_phase.FindCandidates({box.View()}, 10.0, &got).ok());
  ASSERT_FALSE(got.vertex_face.empty());
  for (const VertexFaceCandidate& c : got.vertex_face) {
    EXPECT_TRUE(UsedByAFace(surface, c.vertex)) << c.vertex;
  }
  ExpectSameCandidates(got, BruteForce({box}, 10.0));
}

TEST(ContinuousBroadPhaseTest, SameOrderWithOneAndTwoThreads) {
  std::vector<SimBody> bodies;
  bodies.push_back(MakeBody(MakeClothGrid(1.0, 1.0, 40, 40), 3));
  bodies.push_back(MakeBody(MakeSphere(0.3, 3), 1));
  bodies[0].self_collision = true;
  std::mt19937 rng(9);
  bodies[0].x_t0 = Jittered(Translated(bodies[0].mesh.vertices(), Vec3(0, 0, 0.32)), 0.01, rng);
  bodies[0].x_t1 = Jittered(Translated(bodies[0].mesh.vertices(), Vec3(0, 0, 0.25)), 0.03, rng);
  CandidatePairs one, two;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    ContinuousBroadPhase broad_phase;
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.005, &one).ok());
  }
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
    ContinuousBroadPhase broad_phase;
    ASSERT_TRUE(broad_phase.FindCandidates(Views(bodies), 0.005, &two).ok());
  }
  EXPECT_GT(one.vertex_face.size(), 1000u);
  EXPECT_TRUE(one.vertex_face == two.vertex_face);
  EXPECT_TRUE(one.edge_edge == two.edge_edge);
  EXPECT_TRUE(std::is_sorted(one.vertex_face.begin(), one.vertex_face.end()));
  EXPECT_TRUE(std::is_sorted(one.edge_edge.begin(), one.edge_edge.end()));
}

TEST(ContinuousBroadPhaseTest, RejectsBadInput) {
  SimBody a = MakeBody(MakeBox(Vec3(1, 1, 1)), 1);
  SimBody b = MakeBody(MakeBox(Vec3(1, 1, 1)), 2);
  ContinuousBroadPhase broad_phase;
  CandidatePairs out;
  const auto code = [&](std::vector<CollisionBody> views, double d) {
    return broad_phase.FindCandidates(views, d, &out).code();
  };
  EXPECT_EQ(code({a.View(), b.View()}, -1.0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({a.View(), b.View()}, std::nan("")), absl::StatusCode::kInvalidArgument);
  b.id = 1;
  EXPECT_EQ(code({a.View(), b.View()}, 0.0), absl::StatusCode::kInvalidArgument);
  b.id = 2;
  CollisionBody no_mesh = b.View();
  no_mesh.mesh = nullptr;
  EXPECT_EQ(code({a.View(), no_mesh}, 0.0), absl::StatusCode::kInvalidArgument);
  CollisionBody no_positions = b.View();
  no_positions.x_t1 = nullptr;
  EXPECT_EQ(code({a.View(), no_positions}, 0.0), absl::StatusCode::kInvalidArgument);
  b.x_t1 = b.x_t1.topRows(5);
  EXPECT_EQ(code({a.View(), b.View()}, 0.0), absl::StatusCode::kInvalidArgument);
  b.x_t1 = b.x_t0;
  b.x_t1(3, 1) = std::numeric_limits<double>::infinity();
  const absl::Status status = broad_phase.FindCandidates({a.View(), b.View()}, 0.0, &out);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("bodies[1] (id 2)"));
  b.x_t1 = b.x_t0;
  EXPECT_TRUE(broad_phase.FindCandidates({a.View(), b.View()}, 0.0, &out).ok());
}

}  // namespace
}  // namespace contactsim::core
