#include "core/linalg/cpu_gram.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <numeric>
#include <utility>
#include <vector>

#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"
#include "oneapi/tbb/parallel_sort.h"

namespace contactsim::core {
namespace {

using RowMajorSparse = Eigen::SparseMatrix<double, Eigen::RowMajor, int32_t>;

// Row x before row y: the reversed column patterns compared lexicographically (a pattern that is
// a suffix of the other, such as an ancestor's path, first), then the row index. A strict total
// order, so the sorted result is unique whatever the sort's scheduling.
struct ReversedPatternLess {
  const int32_t* offsets;
  const int32_t* cols;
  bool operator()(int32_t x, int32_t y) const {
    int32_t px = offsets[x + 1];
    int32_t py = offsets[y + 1];
    const int32_t bx = offsets[x];
    const int32_t by = offsets[y];
    // Tree paths share long suffixes: skip equal chunks with memcmp before comparing entries.
    constexpr int32_t kChunk = 16;
    while (px - bx >= kChunk && py - by >= kChunk &&
           std::memcmp(cols + px - kChunk, cols + py - kChunk, kChunk * sizeof(int32_t)) == 0) {
      px -= kChunk;
      py -= kChunk;
    }
    while (px > bx && py > by) {
      --px;
      --py;
      if (cols[px] != cols[py]) return cols[px] < cols[py];
    }
    if (px - bx != py - by) return px - bx < py - by;
    return x < y;
  }
};

// The sorted union of the columns of `count` rows; `seen` (a.cols(), all false) is left so.
std::vector<int32_t> Support(const RowMajorSparse& a, const int32_t* rows, int32_t count,
                             std::vector<char>& seen) {
  std::vector<int32_t> cols;
  for (int32_t t = 0; t < count; ++t) {
    for (int32_t p = a.outerIndexPtr()[rows[t]]; p < a.outerIndexPtr()[rows[t] + 1]; ++p) {
      const int32_t c = a.innerIndexPtr()[p];
      if (!seen[c]) {
        seen[c] = 1;
        cols.push_back(c);
      }
    }
  }
  std::sort(cols.begin(), cols.end());
  for (int32_t c : cols) seen[c] = 0;
  return cols;
}

// x (|shared| x count, column t = row rows[t] of a on the columns `shared`, zeros elsewhere).
void GatherPanel(const RowMajorSparse& a, const int32_t* rows, int32_t count,
                 const std::vector<int32_t>& shared, Eigen::MatrixXd& x) {
  x.setZero(static_cast<Eigen::Index>(shared.size()), count);
  for (int32_t t = 0; t < count; ++t) {
    const int32_t* cols = a.innerIndexPtr();
    const double* vals = a.valuePtr();
    const int32_t end = a.outerIndexPtr()[rows[t] + 1];
    // Skip to the first shared column (tree paths share only a suffix).
    int32_t p = static_cast<int32_t>(
        std::lower_bound(cols + a.outerIndexPtr()[rows[t]], cols + end, shared.front()) - cols);
    size_t q = 0;
    while (p < end && q < shared.size()) {
      if (cols[p] < shared[q]) {
        ++p;
      } else if (cols[p] > shared[q]) {
        ++q;
      } else {
        x(static_cast<Eigen::Index>(q), t) = vals[p];
        ++p;
        ++q;
      }
    }
  }
}

}  // namespace

void DenseGramOfRows(const RowMajorSparse& a,
                     Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& c,
                     int32_t tile) {
  const int32_t m = static_cast<int32_t>(a.rows());
  if (m == 0) return;
  std::vector<int32_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  tbb::parallel_sort(order.begin(), order.end(),
                     ReversedPatternLess{a.outerIndexPtr(), a.innerIndexPtr()});

  const int32_t num_tiles = (m + tile - 1) / tile;
  auto tile_rows = [&](int32_t p) { return order.data() + static_cast<size_t>(p) * tile; };
  auto tile_size = [&](int32_t p) { return std::min(tile, m - p * tile); };
  std::vector<std::vector<int32_t>> support(num_tiles);
  tbb::parallel_for(tbb::blocked_range<int32_t>(0, num_tiles),
                    [&](const tbb::blocked_range<int32_t>& r) {
                      std::vector<char> seen(a.cols(), 0);
                      for (int32_t p = r.begin(); p != r.end(); ++p) {
                        support[p] = Support(a, tile_rows(p), tile_size(p), seen);
                      }
                    });

  std::vector<std::pair<int32_t, int32_t>> pairs;
  pairs.reserve(static_cast<size_t>(num_tiles) * (num_tiles + 1) / 2);
  for (int32_t p = 0; p < num_tiles; ++p) {
    for (int32_t q = p; q < num_tiles; ++q) pairs.emplace_back(p, q);
  }
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, pairs.size(), 1), [&](const tbb::blocked_range<size_t>& r) {
        Eigen::MatrixXd xp, xq, block;
        std::vector<int32_t> shared;
        for (size_t i = r.begin(); i != r.end(); ++i) {
          const auto [p, q] = pairs[i];
          const int32_t np = tile_size(p);
          const int32_t nq = tile_size(q);
          shared.clear();
          std::set_intersection(support[p].begin(), support[p].end(), support[q].begin(),
                                support[q].end(), std::back_inserter(shared));
          if (shared.empty()) {
            block.setZero(np, nq);
          } else {
            GatherPanel(a, tile_rows(p), np, shared, xp);
            if (p == q) {
              // Only the upper triangle is read below: a rank update computes just that.
              block.setZero(np, nq);
              block.selfadjointView<Eigen::Upper>().rankUpdate(xp.transpose());
            } else {
              GatherPanel(a, tile_rows(q), nq, shared, xq);
              block.noalias() = xp.transpose() * xq;
            }
          }
          // Write the block and its mirror (on the diagonal, the upper triangle mirrored).
          const int32_t* rp = tile_rows(p);
          const int32_t* rq = tile_rows(q);
          for (int32_t s = 0; s < np; ++s) {
            for (int32_t t = p == q ? s : 0; t < nq; ++t) {
              c(rp[s], rq[t]) = block(s, t);
              c(rq[t], rp[s]) = block(s, t);
            }
          }
        }
      });
}

}  // namespace contactsim::core
