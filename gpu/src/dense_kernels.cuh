// The dense operations of the CUDA backend, as our own kernels rather than cuBLAS: cuBLAS pulls in
// libcublasLt, whose ~94 KB of static thread-local storage does not fit the small thread stacks
// civetweb gives its workers (the viewer and metrics servers then cannot start a thread in the
// same process; docs/gpu.md). The sizes here are the Delassus operator's (hundreds to a few
// thousand rows), where these kernels are not the bottleneck.
//   Scale / Axpy / Fill   element-wise, grid-stride
//   Dot                   two fixed-shape passes (block partial sums in a fixed tree, then one
//                         block over the partials): the same bits on every run
//   TiledProduct          C <- alpha A op(B) + beta C on row-major blocks, 16 x 16 shared-memory
//                         tiles; op(B) = B (k x n) or B^T (B stored n x k, for the Gram D D^T).
//                         Each C entry sums k in ascending order, so C(i, j) and C(j, i) of a Gram
//                         product are the same sum of the same products: exactly symmetric.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace contactsim::gpu {

inline constexpr int kElementwiseThreads = 256;
inline constexpr int kDotBlocks = 256;  // fixed: the partial sums' shape never depends on n
inline constexpr int kTile = 16;

inline int ElementwiseBlocks(int64_t n) {
  const int64_t blocks = (n + kElementwiseThreads - 1) / kElementwiseThreads;
  return static_cast<int>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

__global__ inline void ScaleKernel(double* x, int64_t n, double alpha) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    x[i] *= alpha;
  }
}

__global__ inline void FillKernel(double* x, int64_t n, double value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    x[i] = value;
  }
}

__global__ inline void AxpyKernel(const double* x, double* y, int64_t n, double alpha) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    y[i] += alpha * x[i];
  }
}

// partials[b] = sum over this block's grid-stride entries of x .* y (kDotBlocks blocks of
// kElementwiseThreads threads); out[0] = sum of the partials (launch with one block).
__global__ inline void DotPartialsKernel(const double* x, const double* y, int64_t n,
                                         double* partials) {
  __shared__ double sums[kElementwiseThreads];
  double s = 0.0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    s += x[i] * y[i];
  }
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int half = kElementwiseThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = sums[0];
}

__global__ inline void SumPartialsKernel(const double* partials, double* out) {
  __shared__ double sums[kDotBlocks];
  sums[threadIdx.x] = partials[threadIdx.x];
  __syncthreads();
  for (int half = kDotBlocks / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[0] = sums[0];
}

// C (m x n) <- alpha A op(B) + beta C; A m x k row-major; B k x n row-major, or (b_transposed)
// n x k row-major. beta = 0 does not read C.
template <bool kBTransposed>
__global__ void TiledProductKernel(int32_t m, int32_t n, int32_t k, double alpha,
                                   const double* __restrict__ a, const double* __restrict__ b,
                                   double beta, double* __restrict__ c) {
  __shared__ double a_tile[kTile][kTile + 1];
  __shared__ double b_tile[kTile][kTile + 1];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  double sum = 0.0;
  for (int t = 0; t < k; t += kTile) {
    const int ak = t + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] =
        row < m && ak < k ? a[static_cast<int64_t>(row) * k + ak] : 0.0;
    const int bk = t + threadIdx.y;
    double bv = 0.0;
    if (col < n && bk < k) {
      bv = kBTransposed ? b[static_cast<int64_t>(col) * k + bk]
                        : b[static_cast<int64_t>(bk) * n + col];
    }
    b_tile[threadIdx.y][threadIdx.x] = bv;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < kTile; ++q) sum += a_tile[threadIdx.y][q] * b_tile[q][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) {
    double* out = c + static_cast<int64_t>(row) * n + col;
    *out = beta == 0.0 ? alpha * sum : alpha * sum + beta * *out;
  }
}

template <bool kBTransposed>
inline void LaunchTiledProduct(int32_t m, int32_t n, int32_t k, double alpha, const double* a,
                               const double* b, double beta, double* c, cudaStream_t stream) {
  const dim3 threads(kTile, kTile);
  const dim3 blocks((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  TiledProductKernel<kBTransposed><<<blocks, threads, 0, stream>>>(m, n, k, alpha, a, b, beta, c);
}

}  // namespace contactsim::gpu
