// The cost of counting a factor before it is built (factor_counts.h: nnz(L) by the row-subtree
// walk and nnz(S) from the etree paths; what a limited LocalGlobalSolver adds to its Create)
// against OrderedCholesky::Compute (ordering + Cholesky, nested dissection), as a ratio in one
// process, on tet boxes (3D) and cloth grids (2D). Medians of --reps runs each.
//
//   build-*/bench/factor_count_bench [--reps 5]
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/median_time.h"
#include "core/dynamics/local_global/factor_counts.h"
#include "core/dynamics/local_global/ordered_cholesky.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/generators.h"

namespace contactsim::core {
namespace {

using bench::MedianTime;
using ColMajorSparse = OrderedCholesky::ColMajorSparse;

// Ap = P Abar P^T from the factor's ordering, as Compute builds it.
ColMajorSparse Permuted(const ColMajorSparse& a, const std::vector<int32_t>& inverse_perm) {
  std::vector<Eigen::Triplet<double, int32_t>> t;
  t.reserve(a.nonZeros());
  for (int32_t c = 0; c < a.cols(); ++c) {
    for (ColMajorSparse::InnerIterator it(a, c); it; ++it) {
      t.emplace_back(inverse_perm[it.index()], inverse_perm[c], it.value());
    }
  }
  ColMajorSparse ap(a.rows(), a.cols());
  ap.setFromTriplets(t.begin(), t.end());
  return ap;
}

int Measure(const std::string& name, const ColMajorSparse& a_bar, int reps) {
  auto factor = OrderedCholesky::Compute(a_bar, FillOrdering::kNestedDissection);
  if (!factor.ok()) {
    std::fprintf(stderr, "%s\n", std::string(factor.status().message()).c_str());
    return 1;
  }
  const ColMajorSparse ap = Permuted(a_bar, factor->inverse_perm());
  FactorCounts counts;
  const double count_s =
      MedianTime(reps, 1, [&] { counts = CountFactor(ap, factor->etree_parent()); });
  const double compute_s = MedianTime(reps, 0, [&] {
    (void)OrderedCholesky::Compute(a_bar, FillOrdering::kNestedDissection).ok();
  });
  std::printf("%-16s %8d %12lld %13lld %10.2f %10.2f %8.4f %s\n", name.c_str(), counts.n,
              static_cast<long long>(counts.l_nonzeros), static_cast<long long>(counts.s_nonzeros),
              1e3 * count_s, 1e3 * compute_s, count_s / compute_s,
              counts.l_nonzeros == factor->l().nonZeros() ? "" : "nnz(L) DIFFERS");
  std::fflush(stdout);
  return 0;
}

int Run(int reps) {
  std::printf("%-16s %8s %12s %13s %10s %10s %8s\n", "mesh", "n", "nnz(L)", "nnz(S)", "count_ms",
              "factor_ms", "ratio");
  for (int cells : {12, 18, 24}) {
    auto mesh = MakeTetBox(Vec3(0.5, 0.5, 0.5), cells, cells, cells);
    if (!mesh.ok()) return 1;
    // Rubber-like tets, h = 1/60 s (the pattern, and so the counts, do not depend on them).
    auto sys = AssembleSystemMatrix(*mesh, {1000.0, 1.0e6, 1.0 / 60.0});
    if (!sys.ok()) return 1;
    if (Measure("tet_box_" + std::to_string(cells), sys->a_bar, reps) != 0) return 1;
  }
  for (int cells : {100, 200}) {
    auto mesh = MakeClothGrid(1.0, 1.0, cells, cells);
    if (!mesh.ok()) return 1;
    auto sys = AssembleSystemMatrix(*mesh, {0.2, 1.0e4, 1.0 / 60.0});
    if (!sys.ok()) return 1;
    if (Measure("cloth_" + std::to_string(cells), sys->a_bar, reps) != 0) return 1;
  }
  std::printf(
      "count_ms: nnz(L) and nnz(S) from the etree of Ap; factor_ms: OrderedCholesky::Compute "
      "(METIS ordering + SimplicialLLT); ratio = count / factor.\n");
  return 0;
}

}  // namespace
}  // namespace contactsim::core

int main(int argc, char** argv) {
  CLI::App app{"Counting a factor before it is built, against building it"};
  int reps = 5;
  app.add_option("--reps", reps, "timed runs per mesh (median)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  return contactsim::core::Run(reps);
}
