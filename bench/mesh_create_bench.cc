// Mesh validation and topology cost: TriangleMesh::Create on cloth grids (open) and icospheres
// (closed, with the orientation and vertex-fan checks), TetMesh::Create on tet boxes, against a
// baseline that only gathers edges in a std::map (what a direct implementation would do).
//
//   build-*/bench/mesh_create_bench --benchmark_min_time=1
//
// Compare Create/<n> with NaiveMapEdges/<n> on the same row count for the ratio.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

// Cloth of about `faces` triangles (2 n^2 for an n x n grid).
TriangleMesh Cloth(int64_t faces) {
  const int n = static_cast<int>(std::sqrt(faces / 2.0));
  return *MakeClothGrid(1.0, 1.0, n, n);
}

void BM_TriangleMeshCreateCloth(benchmark::State& state) {
  const TriangleMesh cloth = Cloth(state.range(0));
  for (auto _ : state) {
    auto mesh = TriangleMesh::Create(cloth.vertices(), cloth.faces());
    benchmark::DoNotOptimize(mesh);
  }
  state.SetItemsProcessed(state.iterations() * cloth.num_faces());
  state.counters["faces"] = cloth.num_faces();
}
BENCHMARK(BM_TriangleMeshCreateCloth)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_NaiveMapEdgesCloth(benchmark::State& state) {
  const TriangleMesh cloth = Cloth(state.range(0));
  for (auto _ : state) {
    std::map<std::pair<int, int>, std::vector<int>> edges;
    for (int f = 0; f < cloth.num_faces(); ++f) {
      for (int k = 0; k < 3; ++k) {
        const int a = cloth.faces()(f, k), b = cloth.faces()(f, (k + 1) % 3);
        edges[{std::min(a, b), std::max(a, b)}].push_back(f);
      }
    }
    benchmark::DoNotOptimize(edges);
  }
  state.SetItemsProcessed(state.iterations() * cloth.num_faces());
  state.counters["faces"] = cloth.num_faces();
}
BENCHMARK(BM_NaiveMapEdgesCloth)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

void BM_TriangleMeshCreateClosedSphere(benchmark::State& state) {
  const TriangleMesh sphere = *MakeSphere(1.0, static_cast<int>(state.range(0)));
  MeshOptions closed;
  closed.require_closed = true;
  for (auto _ : state) {
    auto mesh = TriangleMesh::Create(sphere.vertices(), sphere.faces(), closed);
    benchmark::DoNotOptimize(mesh);
  }
  state.SetItemsProcessed(state.iterations() * sphere.num_faces());
  state.counters["faces"] = sphere.num_faces();
}
BENCHMARK(BM_TriangleMeshCreateClosedSphere)->Arg(6)->Arg(8)->Unit(benchmark::kMillisecond);

void BM_TetMeshCreateBox(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const TetMesh box = *MakeTetBox(Vec3::Ones(), n, n, n);
  for (auto _ : state) {
    auto mesh = TetMesh::Create(box.vertices(), box.tets());
    benchmark::DoNotOptimize(mesh);
  }
  state.SetItemsProcessed(state.iterations() * box.num_tets());
  state.counters["tets"] = box.num_tets();
}
BENCHMARK(BM_TetMeshCreateBox)->Arg(30)->Arg(55)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace contactsim::core

BENCHMARK_MAIN();
