// Forming the Delassus block G = Abar^{-1}[V, V] = (R E)^T (R E) (delassus.h, the "Schur."
// phase) on the input of local_global_bench's obstacles11k: the tet box 0.3 x 0.1 x 0.1 m, 48 x
// 14 x 14 cells (11,025 vertices), nested-dissection R = S P, and V = the bottom face (735
// vertices, the box lying on the floor) plus the top face's vertices with x > 0 (360; squeezed by
// a slot): k = 1,095. Both ways in one process, so their ratio holds on a loaded machine:
//   BM_SparseG  the previous code: R E, its transpose, (R E)^T (R E) by Eigen's conservative
//               sparse product (what the Backend's SpGEMM and Transpose ran), G as a CSR
//               matrix with its full k^2 pattern;
//   BM_DenseG   ComputeTouchedVertexInverse: SpGEMM E^T R^T (the k paths; Gustavson,
//               cpu_sparse_product.h) and Gram into a dense block (dense tiles in a depth-first
//               order, cpu_gram.h).
// and the product the Newton iterations repeat, v = G u (k x 3): BM_ApplySparseG (SpMM on the
// CSR G) against BM_ApplyDenseG (Gemm). The argument is the thread count (0: all). Counter
// max_rel_diff: max |G_dense - G_sparse| / max |G|, a sanity check (printed with SI prefixes:
// "1.6f" is 1.6e-15). Results: docs/benchmarks.md ("Forming G with dense tiles").
//
//   nice -n 10 build/bench/delassus_gram_bench --benchmark_min_time=1
//       --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true        (one command line)
#include <memory>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/dynamics/local_global/delassus.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/sparse_inverse.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "oneapi/tbb/global_control.h"
#include "oneapi/tbb/info.h"

namespace contactsim::core {
namespace {

struct Input {
  int32_t n = 0;
  std::vector<int32_t> touched;  // ascending
  CsrMatrix h;                   // one row per touched vertex (x dof), as a contact's normal row
  std::unique_ptr<CpuBackend> backend;
  SparseId r, r_transpose;
};

const Input& GetInput() {
  static const Input* input = [] {
    auto* in = new Input;
    const TetMesh box = MakeTetBox(Vec3(0.15, 0.05, 0.05), 48, 14, 14).value();
    const SystemMatrix sys = AssembleSystemMatrix(box, {1000.0, 1.0e6, 0.01}).value();
    const OrderedCholesky chol =
        OrderedCholesky::Compute(sys.a_bar, FillOrdering::kNestedDissection).value();
    const SparseInverseFactor s = SparseInverseFactor::Compute(chol).value();
    in->n = box.num_vertices();
    const Points3& x = box.vertices();
    for (int32_t v = 0; v < in->n; ++v) {
      const bool bottom = x(v, 2) < -0.05 + 1e-9;
      const bool front_top = x(v, 2) > 0.05 - 1e-9 && x(v, 0) > 1e-9;
      if (bottom || front_top) in->touched.push_back(v);
    }
    in->h.rows = static_cast<int32_t>(in->touched.size());
    in->h.cols = 3 * in->n;
    for (size_t j = 0; j <= in->touched.size(); ++j) in->h.row_offsets.push_back(j);
    for (int32_t v : in->touched) in->h.col_indices.push_back(3 * v);
    in->h.values.assign(in->touched.size(), 1.0);
    in->backend = std::make_unique<CpuBackend>();
    in->r = in->backend->UploadCsr(ToCsr(s.r())).value();
    in->r_transpose = in->backend->UploadCsr(ToCsr(s.r_transpose())).value();
    return in;
  }();
  return *input;
}

int Threads(const benchmark::State& state) {
  return state.range(0) > 0 ? static_cast<int>(state.range(0)) : tbb::info::default_concurrency();
}

// The previous formation of G, as its Backend calls ran on the CPU: E uploaded, R E and
// (R E)^T (R E) by Eigen's conservative sparse product, the transpose by Eigen; G (a k x k CSR
// matrix with its full pattern) is adopted by the backend, owned by the caller.
SparseId SparseG(CpuBackend& backend, const Input& in) {
  using RowMajorSparse = CpuBackend::RowMajorSparse;
  CsrMatrix e;
  e.rows = in.n;
  e.cols = static_cast<int32_t>(in.touched.size());
  e.row_offsets.assign(in.n + 1, 0);
  for (size_t j = 0; j < in.touched.size(); ++j) {
    e.row_offsets[in.touched[j] + 1] = 1;
    e.col_indices.push_back(static_cast<int32_t>(j));
  }
  for (int32_t v = 0; v < in.n; ++v) e.row_offsets[v + 1] += e.row_offsets[v];
  e.values.assign(in.touched.size(), 1.0);
  const SparseId e_id = backend.UploadCsr(e).value();
  const RowMajorSparse re = *backend.sparse(in.r) * *backend.sparse(e_id);
  const RowMajorSparse re_t = re.transpose();
  RowMajorSparse g = re_t * re;
  backend.ReleaseSparse(e_id).IgnoreError();
  return backend.Adopt(std::move(g));
}

void BM_SparseG(benchmark::State& state) {
  const Input& in = GetInput();
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, Threads(state));
  for (auto _ : state) {
    const SparseId g = SparseG(*in.backend, in);
    benchmark::DoNotOptimize(in.backend->sparse(g)->valuePtr());
    in.backend->ReleaseSparse(g).IgnoreError();
  }
  state.counters["k"] = static_cast<double>(in.touched.size());
}

void BM_DenseG(benchmark::State& state) {
  const Input& in = GetInput();
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, Threads(state));
  for (auto _ : state) {
    const TouchedVertexInverse t =
        ComputeTouchedVertexInverse(*in.backend, in.r_transpose, in.n, in.h).value();
    benchmark::DoNotOptimize(in.backend->dense(t.g)->data());
    in.backend->ReleaseDense(t.g).IgnoreError();
  }
  const SparseId sparse = SparseG(*in.backend, in);
  const TouchedVertexInverse t =
      ComputeTouchedVertexInverse(*in.backend, in.r_transpose, in.n, in.h).value();
  const Eigen::MatrixXd reference(*in.backend->sparse(sparse));
  state.counters["k"] = static_cast<double>(in.touched.size());
  state.counters["max_rel_diff"] =
      (*in.backend->dense(t.g) - reference).cwiseAbs().maxCoeff() / reference.cwiseAbs().maxCoeff();
  in.backend->ReleaseSparse(sparse).IgnoreError();
  in.backend->ReleaseDense(t.g).IgnoreError();
}

// v = G u on a k x 3 block, with G sparse (SpMM) or dense (Gemm).
void BM_ApplyG(benchmark::State& state, bool dense) {
  const Input& in = GetInput();
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, Threads(state));
  CpuBackend& backend = *in.backend;
  const int32_t k = static_cast<int32_t>(in.touched.size());
  const DenseId u = backend.CreateDense(k, 3).value();
  const DenseId v = backend.CreateDense(k, 3).value();
  backend.dense(u)->setRandom();
  const SparseId sparse = SparseG(backend, in);
  const TouchedVertexInverse t =
      ComputeTouchedVertexInverse(backend, in.r_transpose, in.n, in.h).value();
  for (auto _ : state) {
    if (dense) {
      backend.Gemm(1.0, t.g, u, 0.0, v).IgnoreError();
    } else {
      backend.SpMM(1.0, sparse, Op::kNone, u, 0.0, v).IgnoreError();
    }
    benchmark::DoNotOptimize(backend.dense(v)->data());
  }
  backend.ReleaseSparse(sparse).IgnoreError();
  for (DenseId id : {u, v, t.g}) backend.ReleaseDense(id).IgnoreError();
}

void BM_ApplySparseG(benchmark::State& state) { BM_ApplyG(state, false); }
void BM_ApplyDenseG(benchmark::State& state) { BM_ApplyG(state, true); }

BENCHMARK(BM_SparseG)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DenseG)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ApplySparseG)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_ApplyDenseG)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace contactsim::core

BENCHMARK_MAIN();
