// The swept-box sort-and-sweep on the device (swept_broad_phase.h): the boxes come from the CPU
// side (swept_broad_phase.cc, so both sweep the same boxes), thrust sorts them by their lower end
// along the sweep axis, and one thread per box tests the boxes after it with the CPU's pair rule
// (swept_box_rules.h), appending pairs through an atomic counter. When the pairs outgrow the
// output buffer, the count is known after the first pass, and the sweep runs again into a buffer
// of that size.
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "contactsim/gpu/swept_broad_phase.h"
#include "gpu/src/cuda_resources.h"
#include "gpu/src/swept_box_rules.h"

namespace contactsim::gpu {
namespace {

using internal::CudaStatus;
using internal::SweptBox;

constexpr int kThreadsPerBlock = 256;

__global__ void LowerEnds(const SweptBox* boxes, int32_t n, int axis, double* keys,
                          int32_t* order) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keys[i] = boxes[i].lo[axis];
  order[i] = i;
}

__global__ void Sweep(const SweptBox* boxes, const int32_t* order, const double* sorted_lo,
                      int32_t n, int axis, bool vertex_face, int32_t* pairs,
                      unsigned long long capacity, unsigned long long* count) {
  const int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const SweptBox a = boxes[order[i]];
  for (int32_t j = i + 1; j < n && sorted_lo[j] <= a.hi[axis]; ++j) {
    const SweptBox& b = boxes[order[j]];
    if (!internal::IsCandidate(a, b, vertex_face)) continue;
    int32_t pair[2];
    internal::OrderedPair(a, b, vertex_face, pair);
    const unsigned long long slot = atomicAdd(count, 1ULL);
    if (slot < capacity) {
      pairs[2 * slot] = pair[0];
      pairs[2 * slot + 1] = pair[1];
    }
  }
}

// The pairs of `boxes` (one pair kind), sorted as the CPU reference sorts them.
absl::StatusOr<std::vector<std::array<int32_t, 2>>> SweepOnDevice(
    const std::vector<SweptBox>& boxes, bool vertex_face, cudaStream_t stream) {
  std::vector<std::array<int32_t, 2>> result;
  const int32_t n = static_cast<int32_t>(boxes.size());
  if (n < 2) return result;
  const int axis = internal::SweepAxis(boxes);
  internal::GrowableDeviceArray<SweptBox> device_boxes;
  internal::GrowableDeviceArray<double> keys;
  internal::GrowableDeviceArray<int32_t> order;
  internal::GrowableDeviceArray<unsigned long long> count;
  internal::GrowableDeviceArray<int32_t> pairs;
  for (absl::Status status : {device_boxes.Reserve(n, "swept boxes"), keys.Reserve(n, "sweep keys"),
                              order.Reserve(n, "sweep order"), count.Reserve(1, "pair count")}) {
    if (!status.ok()) return status;
  }
  if (absl::Status status =
          CudaStatus(cudaMemcpyAsync(device_boxes.data(), boxes.data(), n * sizeof(SweptBox),
                                     cudaMemcpyHostToDevice, stream),
                     "cudaMemcpyAsync(swept boxes, host to device)");
      !status.ok()) {
    return status;
  }
  const unsigned blocks = static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
  LowerEnds<<<blocks, kThreadsPerBlock, 0, stream>>>(device_boxes.data(), n, axis, keys.data(),
                                                     order.data());
  if (absl::Status status = CudaStatus(cudaGetLastError(), "launching LowerEnds"); !status.ok()) {
    return status;
  }
  // thrust reports failures by exception; this library reports by Status.
  try {
    thrust::sort_by_key(thrust::cuda::par.on(stream), keys.data(), keys.data() + n, order.data());
  } catch (const std::exception& error) {
    return absl::InternalError(
        absl::StrCat("thrust::sort_by_key(sweep keys) failed: ", error.what()));
  }
  // First pass into a buffer sized for a few pairs per box; a second one if they did not fit.
  unsigned long long capacity = 4ULL * static_cast<unsigned long long>(n);
  unsigned long long found = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (absl::Status status = pairs.Reserve(2 * capacity, "candidate pairs"); !status.ok()) {
      return status;
    }
    if (absl::Status status =
            CudaStatus(cudaMemsetAsync(count.data(), 0, sizeof(unsigned long long), stream),
                       "cudaMemsetAsync(pair count)");
        !status.ok()) {
      return status;
    }
    Sweep<<<blocks, kThreadsPerBlock, 0, stream>>>(device_boxes.data(), order.data(), keys.data(),
                                                   n, axis, vertex_face, pairs.data(), capacity,
                                                   count.data());
    if (absl::Status status = CudaStatus(cudaGetLastError(), "launching Sweep"); !status.ok()) {
      return status;
    }
    if (absl::Status status = CudaStatus(
            cudaMemcpyAsync(&found, count.data(), sizeof(found), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync(pair count, device to host)");
        !status.ok()) {
      return status;
    }
    if (absl::Status status =
            CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize(Sweep)");
        !status.ok()) {
      return status;
    }
    if (found <= capacity) break;
    capacity = found;  // the second pass finds the same pairs, so they fit now
  }
  result.resize(found);
  if (found > 0) {
    if (absl::Status status =
            CudaStatus(cudaMemcpyAsync(result.data(), pairs.data(), found * 2 * sizeof(int32_t),
                                       cudaMemcpyDeviceToHost, stream),
                       "cudaMemcpyAsync(candidate pairs, device to host)");
        !status.ok()) {
      return status;
    }
    if (absl::Status status =
            CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize(candidate pairs)");
        !status.ok()) {
      return status;
    }
  }
  std::sort(result.begin(), result.end());
  return result;
}

}  // namespace

absl::StatusOr<CandidatePairs> SweptCandidatesOnDevice(const SweptMesh& mesh, double inflation_m) {
  if (absl::Status status = ValidateSweptMesh(mesh, inflation_m); !status.ok()) return status;
  if (absl::Status status = internal::RequireCudaDevice(0); !status.ok()) return status;
  internal::CudaStream stream;
  if (absl::Status status = stream.Create(); !status.ok()) return status;
  CandidatePairs pairs;
  absl::StatusOr<std::vector<std::array<int32_t, 2>>> vertex_face =
      SweepOnDevice(internal::VertexFaceBoxes(mesh, inflation_m), true, stream.get());
  if (!vertex_face.ok()) return vertex_face.status();
  absl::StatusOr<std::vector<std::array<int32_t, 2>>> edge_edge =
      SweepOnDevice(internal::EdgeEdgeBoxes(mesh, inflation_m), false, stream.get());
  if (!edge_edge.ok()) return edge_edge.status();
  pairs.vertex_face = *std::move(vertex_face);
  pairs.edge_edge = *std::move(edge_edge);
  return pairs;
}

}  // namespace contactsim::gpu
