// The swept-box broad phase (gpu/include/contactsim/gpu/swept_broad_phase.h): the CPU
// sort-and-sweep and the GPU's against a brute-force all-pairs test written here independently
// (boxes from the positions, adjacency from the indices), on random meshes and degenerate
// layouts; and, end to end, no colliding pair lost between the broad phase and the narrow phase.
// The device tests skip, saying why, without a CUDA build or device.
#include "contactsim/gpu/swept_broad_phase.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "contactsim/gpu/batch_ccd.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/vertex_face.h"

namespace contactsim::gpu {
namespace {

using Pairs = std::vector<std::array<int32_t, 2>>;

struct TestMesh {
  core::Points3 x_t0, x_t1;
  core::IndexTriples faces;
  core::IndexPairs edges;
  SweptMesh view() const { return SweptMesh{&x_t0, &x_t1, &faces, &edges}; }
};

// A grid sheet of (n + 1)^2 vertices (shared vertices and edges), crumpled at random and moved
// by up to `motion`, plus `soup` free triangles of size ~`size` scattered in the unit cube.
TestMesh RandomMesh(uint64_t seed, int n, int soup, double size, double motion) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
  const int grid = (n + 1) * (n + 1);
  TestMesh mesh;
  mesh.x_t0.resize(grid + 3 * soup, 3);
  mesh.faces.resize(2 * n * n + soup, 3);
  for (int i = 0; i <= n; ++i) {
    for (int j = 0; j <= n; ++j) {
      mesh.x_t0.row(i * (n + 1) + j) << static_cast<double>(i) / n, static_cast<double>(j) / n,
          0.5 + 0.05 * sym(rng);
    }
  }
  int f = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int a = i * (n + 1) + j, b = a + 1, c = a + n + 1, d = c + 1;
      mesh.faces.row(f++) << a, b, d;
      mesh.faces.row(f++) << a, d, c;
    }
  }
  for (int t = 0; t < soup; ++t) {
    const core::Vec3 centre(unit(rng), unit(rng), unit(rng));
    for (int k = 0; k < 3; ++k) {
      const int v = grid + 3 * t + k;
      mesh.x_t0.row(v) = (centre + size * core::Vec3(sym(rng), sym(rng), sym(rng))).transpose();
    }
    mesh.faces.row(f++) << grid + 3 * t, grid + 3 * t + 1, grid + 3 * t + 2;
  }
  mesh.x_t1 = mesh.x_t0;
  for (Eigen::Index v = 0; v < mesh.x_t1.rows(); ++v) {
    mesh.x_t1.row(v) += motion * core::Vec3(sym(rng), sym(rng), sym(rng)).transpose();
  }
  std::set<std::array<int32_t, 2>> edges;
  for (Eigen::Index i = 0; i < mesh.faces.rows(); ++i) {
    for (int k = 0; k < 3; ++k) {
      const int32_t a = mesh.faces(i, k), b = mesh.faces(i, (k + 1) % 3);
      edges.insert({std::min(a, b), std::max(a, b)});
    }
  }
  mesh.edges.resize(static_cast<Eigen::Index>(edges.size()), 2);
  Eigen::Index e = 0;
  for (const auto& edge : edges) mesh.edges.row(e++) << edge[0], edge[1];
  return mesh;
}

// Independent all-pairs reference: boxes from every vertex position at both times, grown by the
// inflation, closed-interval overlap, no shared vertex.
struct Box {
  double lo[3], hi[3];
};

Box BoxOf(const TestMesh& mesh, std::initializer_list<int32_t> vertices, double inflation) {
  Box box{{1e300, 1e300, 1e300}, {-1e300, -1e300, -1e300}};
  for (int32_t v : vertices) {
    for (const core::Points3* x : {&mesh.x_t0, &mesh.x_t1}) {
      for (int k = 0; k < 3; ++k) {
        box.lo[k] = std::min(box.lo[k], (*x)(v, k));
        box.hi[k] = std::max(box.hi[k], (*x)(v, k));
      }
    }
  }
  for (int k = 0; k < 3; ++k) {
    box.lo[k] -= inflation;
    box.hi[k] += inflation;
  }
  return box;
}

bool Overlap(const Box& a, const Box& b) {
  for (int k = 0; k < 3; ++k) {
    if (a.hi[k] < b.lo[k] || b.hi[k] < a.lo[k]) return false;
  }
  return true;
}

CandidatePairs BruteForce(const TestMesh& mesh, double inflation) {
  CandidatePairs pairs;
  for (int32_t v = 0; v < mesh.x_t0.rows(); ++v) {
    const Box vertex = BoxOf(mesh, {v}, inflation);
    for (int32_t f = 0; f < mesh.faces.rows(); ++f) {
      if (mesh.faces(f, 0) == v || mesh.faces(f, 1) == v || mesh.faces(f, 2) == v) continue;
      if (Overlap(vertex,
                  BoxOf(mesh, {mesh.faces(f, 0), mesh.faces(f, 1), mesh.faces(f, 2)}, inflation))) {
        pairs.vertex_face.push_back({v, f});
      }
    }
  }
  for (int32_t a = 0; a < mesh.edges.rows(); ++a) {
    const Box box_a = BoxOf(mesh, {mesh.edges(a, 0), mesh.edges(a, 1)}, inflation);
    for (int32_t b = a + 1; b < mesh.edges.rows(); ++b) {
      if (mesh.edges(a, 0) == mesh.edges(b, 0) || mesh.edges(a, 0) == mesh.edges(b, 1) ||
          mesh.edges(a, 1) == mesh.edges(b, 0) || mesh.edges(a, 1) == mesh.edges(b, 1)) {
        continue;
      }
      if (Overlap(box_a, BoxOf(mesh, {mesh.edges(b, 0), mesh.edges(b, 1)}, inflation))) {
        pairs.edge_edge.push_back({a, b});
      }
    }
  }
  return pairs;  // already in ascending order
}

struct Case {
  std::string name;
  TestMesh mesh;
  double inflation;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({"sheet and soup", RandomMesh(1, 12, 150, 0.03, 0.05), 1e-3});
  cases.push_back({"fast motion", RandomMesh(2, 8, 100, 0.02, 0.4), 0.0});
  cases.push_back({"no motion, no inflation", RandomMesh(3, 10, 80, 0.05, 0.0), 0.0});
  // Degenerate: every vertex at one point (every box the same point: all non-adjacent pairs).
  TestMesh point = RandomMesh(4, 3, 10, 0.1, 0.0);
  point.x_t0.setConstant(0.25);
  point.x_t1 = point.x_t0;
  cases.push_back({"all at one point", point, 0.0});
  // Boxes that only touch: a flat grid (shared lower ends along the sweep axis), no inflation.
  TestMesh flat = RandomMesh(5, 9, 0, 0.0, 0.0);
  flat.x_t0.col(2).setZero();
  flat.x_t1 = flat.x_t0;
  cases.push_back({"touching boxes", flat, 0.0});
  return cases;
}

void ExpectSame(const CandidatePairs& got, const CandidatePairs& want, const std::string& what) {
  EXPECT_EQ(got.vertex_face, want.vertex_face) << what << ": vertex-face pairs";
  EXPECT_EQ(got.edge_edge, want.edge_edge) << what << ": edge-edge pairs";
}

TEST(SweptBroadPhase, CpuSweepFindsExactlyTheOverlappingPairs) {
  for (const Case& c : Cases()) {
    absl::StatusOr<CandidatePairs> sweep = SweptCandidatesCpu(c.mesh.view(), c.inflation);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    const CandidatePairs reference = BruteForce(c.mesh, c.inflation);
    EXPECT_FALSE(reference.vertex_face.empty()) << c.name;  // the case exercises something
    ExpectSame(*sweep, reference, c.name);
  }
}

TEST(SweptBroadPhase, InputErrorsNameTheField) {
  TestMesh mesh = RandomMesh(6, 2, 0, 0.0, 0.1);
  mesh.faces(1, 2) = 1000;
  absl::StatusOr<CandidatePairs> result = SweptCandidatesCpu(mesh.view(), 0.0);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("mesh.faces(1, 2)"), std::string::npos)
      << result.status();
  mesh = RandomMesh(6, 2, 0, 0.0, 0.1);
  mesh.x_t1(3, 1) = std::numeric_limits<double>::infinity();
  result = SweptCandidatesCpu(mesh.view(), 0.0);
  EXPECT_NE(result.status().message().find("mesh.x_t1(3, 1)"), std::string::npos)
      << result.status();
  result = SweptCandidatesCpu(RandomMesh(6, 2, 0, 0.0, 0.1).view(), -1.0);
  EXPECT_NE(result.status().message().find("inflation_m"), std::string::npos) << result.status();
}

// Every pair the CPU CCD finds colliding among all vertex-face and edge-edge pairs is a
// candidate: the broad phase loses nothing the narrow phase would catch.
TEST(SweptBroadPhase, NoCollidingPairIsLost) {
  const TestMesh mesh = RandomMesh(7, 6, 60, 0.05, 0.3);
  absl::StatusOr<CandidatePairs> sweep = SweptCandidatesCpu(mesh.view(), 0.0);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  CandidatePairs all;
  for (int32_t v = 0; v < mesh.x_t0.rows(); ++v) {
    for (int32_t f = 0; f < mesh.faces.rows(); ++f) {
      if (mesh.faces(f, 0) != v && mesh.faces(f, 1) != v && mesh.faces(f, 2) != v) {
        all.vertex_face.push_back({v, f});
      }
    }
  }
  for (int32_t a = 0; a < mesh.edges.rows(); ++a) {
    for (int32_t b = a + 1; b < mesh.edges.rows(); ++b) all.edge_edge.push_back({a, b});
  }
  const std::vector<core::CcdQuery> queries = CandidateQueries(mesh.view(), all);
  const std::set<std::array<int32_t, 2>> vf(sweep->vertex_face.begin(), sweep->vertex_face.end());
  const std::set<std::array<int32_t, 2>> ee(sweep->edge_edge.begin(), sweep->edge_edge.end());
  int collisions = 0;
  for (size_t i = 0; i < queries.size(); ++i) {
    const bool vertex_face = i < all.vertex_face.size();
    const core::CcdResult result = vertex_face ? core::VertexFaceCcd(queries[i].trajectory)
                                               : core::EdgeEdgeCcd(queries[i].trajectory);
    if (!result.collides) continue;
    const auto& pair = vertex_face ? all.vertex_face[i] : all.edge_edge[i - all.vertex_face.size()];
    // Edge pairs with a shared end are adjacent: always "colliding", never candidates.
    if (!vertex_face) {
      const auto& a = mesh.edges.row(pair[0]);
      const auto& b = mesh.edges.row(pair[1]);
      if (a(0) == b(0) || a(0) == b(1) || a(1) == b(0) || a(1) == b(1)) continue;
    }
    ++collisions;
    EXPECT_TRUE(vertex_face ? vf.count(pair) == 1 : ee.count(pair) == 1)
        << (vertex_face ? "vf " : "ee ") << pair[0] << " " << pair[1];
  }
  EXPECT_GT(collisions, 10);  // the motion is large enough to collide
}

TEST(SweptBroadPhase, DeviceFindsTheSamePairsAndTheNarrowPhaseAgrees) {
  absl::StatusOr<CandidatePairs> probe =
      SweptCandidatesOnDevice(RandomMesh(8, 2, 0, 0.0, 0.1).view(), 0.0);
  if (!probe.ok()) {
    ASSERT_TRUE(probe.status().code() == absl::StatusCode::kUnimplemented ||
                probe.status().code() == absl::StatusCode::kFailedPrecondition)
        << probe.status();
    GTEST_SKIP() << "no CUDA device: " << probe.status().message();
  }
  std::vector<Case> cases = Cases();
  // Larger: a 200 x 200 sheet with 20,000 soup triangles, and a clump of large, fast triangles
  // whose pairs (most of all pairs) outgrow the first output buffer (the second pass).
  cases.push_back({"large", RandomMesh(9, 200, 20'000, 0.01, 0.01), 1e-4});
  cases.push_back({"clump", RandomMesh(10, 4, 400, 0.5, 0.5), 0.0});
  for (const Case& c : cases) {
    absl::StatusOr<CandidatePairs> device = SweptCandidatesOnDevice(c.mesh.view(), c.inflation);
    ASSERT_TRUE(device.ok()) << device.status();
    absl::StatusOr<CandidatePairs> cpu = SweptCandidatesCpu(c.mesh.view(), c.inflation);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    ExpectSame(*device, *cpu, c.name);
    if (c.mesh.faces.rows() < 2000) ExpectSame(*device, BruteForce(c.mesh, c.inflation), c.name);
    // Candidates through the batch narrow phase: the CPU's answers.
    const std::vector<core::CcdQuery> queries = CandidateQueries(c.mesh.view(), *device);
    absl::StatusOr<std::vector<core::CcdResult>> gpu = BatchCcdOnDevice(queries, {});
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    int64_t differ = 0;
    for (size_t i = 0; i < queries.size(); ++i) {
      const core::CcdResult cpu_result = queries[i].kind == core::CcdQueryKind::kVertexFace
                                             ? core::VertexFaceCcd(queries[i].trajectory)
                                             : core::EdgeEdgeCcd(queries[i].trajectory);
      differ += cpu_result.collides != (*gpu)[i].collides || cpu_result.toi != (*gpu)[i].toi;
    }
    EXPECT_EQ(differ, 0) << c.name;
  }
}

}  // namespace
}  // namespace contactsim::gpu
