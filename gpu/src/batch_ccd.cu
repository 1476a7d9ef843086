// Batch CCD on the device (batch_ccd.h): one thread per query, running the CPU's narrow phase
// (core/collision/ccd/feature_pair_ccd.h and the *_impl.h headers it includes) compiled for the
// device.
//
// Bit-identical answers. This file is compiled with -fmad=false (gpu/CMakeLists.txt): nvcc
// contracts a * b + c into a fused multiply-add by default, which rounds once instead of twice
// and so would give different bits from the host build (x86-64 without FMA, which does not
// contract); the error bounds in core/collision/ccd/rounding_bounds.h hold either way, but the
// batch must give the CPU's answers bit for bit. The CCD's three-term sums are written out in
// one order (core/collision/ccd/vec3_sums.h), since Eigen orders them differently when it does
// not vectorize, as on the device. Division and sqrt in double are correctly
// rounded on the device as on the host, and the host's libm is not used on the paths shared
// (std::abs, std::sqrt, std::copysign, std::isnan/isfinite are exact or correctly rounded).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "contactsim/gpu/batch_ccd.h"
#include "core/collision/ccd/edge_edge.h"
#include "core/collision/ccd/feature_pair_ccd.h"
#include "core/collision/ccd/inclusion_root_finder_impl.h"
#include "core/collision/ccd/vertex_face.h"
#include "core/common/parallel_for.h"
#include "gpu/src/cuda_resources.h"
#include "oneapi/tbb/blocked_range.h"

namespace contactsim::gpu {
namespace {

using core::CcdOptions;
using core::CcdQuery;
using core::CcdResult;
using core::internal::inclusion_root_finder_impl::Box;
using internal::CudaStatus;

// Boxes the root finder may keep on the device (its heap, in the thread's local memory: 64 boxes
// of 56 bytes). Measured on the CPU: at most 12 boxes at once on the 38,090 benchmark queries and
// 27 on 100,000 random ones, so 64 leaves room; a query that needs more is answered on the host
// (BatchCcdStats::host_answered), so this trades local memory against host fallbacks only, never
// correctness.
constexpr int kDeviceBoxCapacity = 64;
// Per-thread stack the kernel is given: the box heap plus the frames of the fast paths (the
// Bernstein certificate recurses up to 8 levels, so nvcc cannot size the stack itself).
constexpr size_t kDeviceStackBytes = 16 * 1024;
constexpr int kThreadsPerBlock = 128;

// The inclusion root finder's storage on the device: a fixed array (BoxHeap in
// inclusion_root_finder_impl.h).
struct FixedBoxStorage {
  Box boxes[kDeviceBoxCapacity];
  int count = 0;
  __host__ __device__ Box* data() { return boxes; }
  __host__ __device__ int size() const { return count; }
  __host__ __device__ void set_size(int n) { count = n; }
  __host__ __device__ bool Reserve(int n) const { return n <= kDeviceBoxCapacity; }
};

// A query as the kernel reads it: the 24 coordinates of x_t0 then x_t1, and the kind.
struct PackedQuery {
  double x[24];
  int32_t kind;  // core::CcdQueryKind
};

// A CcdResult without Eigen types, plus whether the device search completed.
struct PackedResult {
  double toi;
  double weights[3];
  int32_t iterations;
  uint8_t collides;
  uint8_t status;     // core::CcdStatus
  uint8_t completed;  // 0: the box heap ran full; the host answers this query
};

template <typename Features>
__device__ CcdResult DeviceCcd(const core::PairTrajectory& trajectory, const CcdOptions& options,
                               FixedBoxStorage* storage, bool* completed) {
  return core::internal::FeaturePairCcdWith<Features>(trajectory, options, nullptr, [&] {
    CcdResult result;
    *completed = core::internal::inclusion_root_finder_impl::Solve<Features::kInclusionKind>(
        trajectory, options, storage, &result);
    return result;
  });
}

__global__ void CcdKernel(const PackedQuery* queries, int64_t count, CcdOptions options,
                          PackedResult* results) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const PackedQuery& query = queries[i];
  core::PairTrajectory trajectory;
  for (int p = 0; p < 4; ++p) {
    trajectory.x_t0[p] = core::Vec3(query.x[3 * p], query.x[3 * p + 1], query.x[3 * p + 2]);
    trajectory.x_t1[p] =
        core::Vec3(query.x[12 + 3 * p], query.x[12 + 3 * p + 1], query.x[12 + 3 * p + 2]);
  }
  FixedBoxStorage storage;
  bool completed = true;
  const CcdResult result =
      query.kind == static_cast<int32_t>(core::CcdQueryKind::kVertexFace)
          ? DeviceCcd<core::internal::VertexFaceFeatures>(trajectory, options, &storage, &completed)
          : DeviceCcd<core::internal::EdgeEdgeFeatures>(trajectory, options, &storage, &completed);
  PackedResult& out = results[i];
  out.toi = result.toi;
  for (int k = 0; k < 3; ++k) out.weights[k] = result.weights[k];
  out.iterations = result.iterations;
  out.collides = result.collides ? 1 : 0;
  out.status = static_cast<uint8_t>(result.status);
  out.completed = completed ? 1 : 0;
}

PackedQuery Pack(const CcdQuery& query) {
  PackedQuery packed;
  for (int p = 0; p < 4; ++p) {
    for (int k = 0; k < 3; ++k) {
      packed.x[3 * p + k] = query.trajectory.x_t0[p][k];
      packed.x[12 + 3 * p + k] = query.trajectory.x_t1[p][k];
    }
  }
  packed.kind = static_cast<int32_t>(query.kind);
  return packed;
}

CcdResult Unpack(const PackedResult& packed) {
  CcdResult result;
  result.collides = packed.collides != 0;
  result.toi = packed.toi;
  result.weights = core::Vec3(packed.weights[0], packed.weights[1], packed.weights[2]);
  result.status = static_cast<core::CcdStatus>(packed.status);
  result.iterations = packed.iterations;
  return result;
}

}  // namespace

class BatchCcd::Impl {
 public:
  explicit Impl(int device_index) : device_index_(device_index) {}

  absl::Status Init() {
    if (absl::Status status = CudaStatus(cudaSetDevice(device_index_),
                                         absl::StrCat("cudaSetDevice(", device_index_, ")"));
        !status.ok()) {
      return status;
    }
    size_t stack_bytes = 0;
    if (absl::Status status = CudaStatus(cudaDeviceGetLimit(&stack_bytes, cudaLimitStackSize),
                                         "cudaDeviceGetLimit(cudaLimitStackSize)");
        !status.ok()) {
      return status;
    }
    if (stack_bytes < kDeviceStackBytes) {
      if (absl::Status status =
              CudaStatus(cudaDeviceSetLimit(cudaLimitStackSize, kDeviceStackBytes),
                         "cudaDeviceSetLimit(cudaLimitStackSize)");
          !status.ok()) {
        return status;
      }
    }
    for (internal::CudaEvent* event : {&kernel_start_, &kernel_end_}) {
      if (absl::Status status = event->Create(); !status.ok()) return status;
    }
    return stream_.Create();
  }

  // *kernel_seconds: the kernel alone, from CUDA events.
  absl::Status Run(absl::Span<const CcdQuery> queries, const CcdOptions& options,
                   std::vector<PackedResult>* packed_results, double* kernel_seconds) {
    const size_t n = queries.size();
    host_queries_.resize(n);
    for (size_t i = 0; i < n; ++i) host_queries_[i] = Pack(queries[i]);
    packed_results->resize(n);
    if (absl::Status status = CudaStatus(cudaSetDevice(device_index_),
                                         absl::StrCat("cudaSetDevice(", device_index_, ")"));
        !status.ok()) {
      return status;
    }
    if (absl::Status status = device_queries_.Reserve(n, "ccd queries"); !status.ok()) {
      return status;
    }
    if (absl::Status status = device_results_.Reserve(n, "ccd results"); !status.ok()) {
      return status;
    }
    if (absl::Status status = CudaStatus(
            cudaMemcpyAsync(device_queries_.data(), host_queries_.data(), n * sizeof(PackedQuery),
                            cudaMemcpyHostToDevice, stream_.get()),
            "cudaMemcpyAsync(ccd queries, host to device)");
        !status.ok()) {
      return status;
    }
    const int64_t blocks = (static_cast<int64_t>(n) + kThreadsPerBlock - 1) / kThreadsPerBlock;
    if (absl::Status status = CudaStatus(cudaEventRecord(kernel_start_.get(), stream_.get()),
                                         "cudaEventRecord(kernel start)");
        !status.ok()) {
      return status;
    }
    CcdKernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream_.get()>>>(
        device_queries_.data(), static_cast<int64_t>(n), options, device_results_.data());
    if (absl::Status status = CudaStatus(cudaGetLastError(), "launching CcdKernel"); !status.ok()) {
      return status;
    }
    if (absl::Status status = CudaStatus(cudaEventRecord(kernel_end_.get(), stream_.get()),
                                         "cudaEventRecord(kernel end)");
        !status.ok()) {
      return status;
    }
    if (absl::Status status = CudaStatus(
            cudaMemcpyAsync(packed_results->data(), device_results_.data(),
                            n * sizeof(PackedResult), cudaMemcpyDeviceToHost, stream_.get()),
            "cudaMemcpyAsync(ccd results, device to host)");
        !status.ok()) {
      return status;
    }
    if (absl::Status status =
            CudaStatus(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize(CcdKernel)");
        !status.ok()) {
      return status;
    }
    float milliseconds = 0.0f;
    if (absl::Status status =
            CudaStatus(cudaEventElapsedTime(&milliseconds, kernel_start_.get(), kernel_end_.get()),
                       "cudaEventElapsedTime(CcdKernel)");
        !status.ok()) {
      return status;
    }
    *kernel_seconds = 1e-3 * milliseconds;
    return absl::OkStatus();
  }

 private:
  int device_index_;
  internal::CudaStream stream_;
  internal::CudaEvent kernel_start_;
  internal::CudaEvent kernel_end_;
  internal::GrowableDeviceArray<PackedQuery> device_queries_;
  internal::GrowableDeviceArray<PackedResult> device_results_;
  std::vector<PackedQuery> host_queries_;
};

BatchCcd::BatchCcd(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BatchCcd::~BatchCcd() = default;

absl::StatusOr<std::unique_ptr<BatchCcd>> BatchCcd::Create(int device_index) {
  if (absl::Status status = internal::RequireCudaDevice(device_index); !status.ok()) {
    return status;
  }
  auto impl = std::make_unique<Impl>(device_index);
  if (absl::Status status = impl->Init(); !status.ok()) return status;
  return std::unique_ptr<BatchCcd>(new BatchCcd(std::move(impl)));
}

absl::StatusOr<std::vector<CcdResult>> BatchCcd::Run(absl::Span<const CcdQuery> queries,
                                                     const CcdOptions& options) {
  if (absl::Status status = ValidateCcdBatch(queries, options); !status.ok()) return status;
  std::vector<CcdResult> results(queries.size());
  BatchCcdStats stats;
  stats.queries = static_cast<int64_t>(queries.size());
  if (!queries.empty()) {
    std::vector<PackedResult> packed;
    if (absl::Status status = impl_->Run(queries, options, &packed, &stats.kernel_seconds);
        !status.ok()) {
      return status;
    }
    std::vector<size_t> on_host;
    for (size_t i = 0; i < queries.size(); ++i) {
      if (packed[i].completed != 0) {
        results[i] = Unpack(packed[i]);
      } else {
        on_host.push_back(i);
      }
    }
    // The device heap ran full for these: the same algorithm on the host, whose heap grows. Such
    // searches are the long ones (thousands of boxes), so they run on all cores.
    core::ParallelFor(tbb::blocked_range<size_t>(0, on_host.size()),
                      [&](const tbb::blocked_range<size_t>& range) {
                        for (size_t j = range.begin(); j != range.end(); ++j) {
                          const CcdQuery& query = queries[on_host[j]];
                          results[on_host[j]] = query.kind == core::CcdQueryKind::kVertexFace
                                                    ? core::VertexFaceCcd(query.trajectory, options)
                                                    : core::EdgeEdgeCcd(query.trajectory, options);
                        }
                      });
    stats.host_answered = static_cast<int64_t>(on_host.size());
    stats.device_answered = stats.queries - stats.host_answered;
  }
  stats_ = stats;
  return results;
}

absl::StatusOr<std::vector<CcdResult>> BatchCcdOnDevice(absl::Span<const CcdQuery> queries,
                                                        const CcdOptions& options) {
  absl::StatusOr<std::unique_ptr<BatchCcd>> batch = BatchCcd::Create(0);
  if (!batch.ok()) return batch.status();
  return (*batch)->Run(queries, options);
}

}  // namespace contactsim::gpu
