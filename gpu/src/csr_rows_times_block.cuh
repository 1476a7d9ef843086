// y <- alpha A x + beta y for a CSR matrix A (int32 indices, double values) and row-major blocks
// x, y of K = 1..4 columns: the global step's product on n x 3 positions. cuSPARSE's SpMM on such
// narrow row-major blocks reaches a small fraction of the memory bandwidth (docs/gpu.md), so this
// kernel gives each row one warp: the lanes stride over the row's entries with K accumulators,
// then a fixed shuffle tree sums them, so a result does not change from run to run. beta = 0
// does not read y.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace contactsim::gpu {

inline constexpr int kMaxNarrowColumns = 4;

template <int K>
__global__ void CsrRowsTimesBlockKernel(int32_t rows, const int32_t* __restrict__ offsets,
                                        const int32_t* __restrict__ cols,
                                        const double* __restrict__ vals,
                                        const double* __restrict__ x, double alpha, double beta,
                                        double* __restrict__ y) {
  const int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= rows) return;  // uniform across the warp: the shuffles below see all 32 lanes
  double acc[K];
#pragma unroll
  for (int d = 0; d < K; ++d) acc[d] = 0.0;
  const int32_t end = offsets[warp + 1];
  for (int32_t p = offsets[warp] + lane; p < end; p += 32) {
    const double v = vals[p];
    const double* xr = x + static_cast<int64_t>(cols[p]) * K;
#pragma unroll
    for (int d = 0; d < K; ++d) acc[d] += v * xr[d];
  }
#pragma unroll
  for (int d = 0; d < K; ++d) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      acc[d] += __shfl_down_sync(0xffffffffu, acc[d], offset);
    }
  }
  if (lane == 0) {
    double* yr = y + warp * K;
#pragma unroll
    for (int d = 0; d < K; ++d)
      yr[d] = beta == 0.0 ? alpha * acc[d] : alpha * acc[d] + beta * yr[d];
  }
}

// k in [1, kMaxNarrowColumns]; rows > 0.
inline void LaunchCsrRowsTimesBlock(int k, int32_t rows, const int32_t* offsets,
                                    const int32_t* cols, const double* vals, const double* x,
                                    double alpha, double beta, double* y, cudaStream_t stream) {
  constexpr int kThreadsPerBlock = 256;
  constexpr int kRowsPerBlock = kThreadsPerBlock / 32;
  const int blocks =
      static_cast<int>((static_cast<int64_t>(rows) + kRowsPerBlock - 1) / kRowsPerBlock);
  switch (k) {
    case 1:
      CsrRowsTimesBlockKernel<1>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(rows, offsets, cols, vals, x, alpha, beta, y);
      break;
    case 2:
      CsrRowsTimesBlockKernel<2>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(rows, offsets, cols, vals, x, alpha, beta, y);
      break;
    case 3:
      CsrRowsTimesBlockKernel<3>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(rows, offsets, cols, vals, x, alpha, beta, y);
      break;
    default:
      CsrRowsTimesBlockKernel<4>
          <<<blocks, kThreadsPerBlock, 0, stream>>>(rows, offsets, cols, vals, x, alpha, beta, y);
      break;
  }
}

}  // namespace contactsim::gpu
