// Broad phase for one step of a triangle mesh (or soup) moving linearly from x_t0 to x_t1: the
// vertex-face and edge-edge pairs whose swept axis-aligned boxes overlap, for the batch CCD
// (batch_ccd.h) to decide. Plain C++ (no CUDA types).
//
// Swept box of a primitive: per axis, the min and max of its vertices' coordinates at t0 and t1
// (exact: min and max do not round), grown by `inflation_m` on every side (a primitive's whole
// linear motion stays inside it). Two boxes overlap when their closed intervals overlap on all
// three axes. Pairs that share a vertex (a vertex of the face; edges with a common end) are left
// out: they are adjacent, not colliding.
//
// Method: sort-and-sweep along the axis on which the boxes' centres vary most: boxes sorted by
// their lower end, each box is tested against the following ones until their lower end passes its
// upper end. This finds exactly the overlapping pairs (every overlapping pair has the later box's
// lower end within the earlier box's extent), as an all-pairs test would. SweptCandidatesCpu is
// the reference; SweptCandidatesOnDevice does the sort and the sweep on the GPU (thrust sort, one
// thread per box) from the same boxes and returns the same pairs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/collision/ccd/query_text.h"
#include "core/common/eigen_types.h"

namespace contactsim::gpu {

struct SweptMesh {
  const core::Points3* x_t0 = nullptr;  // n x 3 [m]
  const core::Points3* x_t1 = nullptr;  // n x 3 [m], same n
  const core::IndexTriples* faces = nullptr;
  const core::IndexPairs* edges = nullptr;
};

// Candidate pairs, each sorted ascending: vertex_face (vertex index, face index), edge_edge
// (edge index a < edge index b).
struct CandidatePairs {
  std::vector<std::array<int32_t, 2>> vertex_face;
  std::vector<std::array<int32_t, 2>> edge_edge;
};

// InvalidArgument naming the field: null arrays, x_t0 and x_t1 of different sizes, an index out of
// range, a NaN or infinite coordinate, a negative or non-finite inflation.
absl::Status ValidateSweptMesh(const SweptMesh& mesh, double inflation_m);

// The reference sort-and-sweep on one CPU thread.
absl::StatusOr<CandidatePairs> SweptCandidatesCpu(const SweptMesh& mesh, double inflation_m);

// The same pairs from the GPU. The error of CudaUsable() (or FailedPrecondition: no device)
// when CUDA is not usable; Internal naming the CUDA call that failed.
absl::StatusOr<CandidatePairs> SweptCandidatesOnDevice(const SweptMesh& mesh, double inflation_m);

// The narrow-phase queries of the candidates: vertex-face ones first, then edge-edge ones, in
// the order of `pairs`.
std::vector<core::CcdQuery> CandidateQueries(const SweptMesh& mesh, const CandidatePairs& pairs);

namespace internal {

// One primitive's swept box and its vertices (-1 where it has fewer than three), shared by the
// CPU reference and the device code, and the sweep's rules.
struct SweptBox {
  double lo[3];
  double hi[3];
  int32_t vertices[3];
  int32_t group;  // pairs are formed between different groups (VF) or within group 0 (EE)
  int32_t id;     // the primitive's index in its own list
};

// The boxes of a pair kind: VF (vertices, group 0, then faces, group 1) or EE (edges, group 0).
std::vector<SweptBox> VertexFaceBoxes(const SweptMesh& mesh, double inflation_m);
std::vector<SweptBox> EdgeEdgeBoxes(const SweptMesh& mesh, double inflation_m);
// The axis (0, 1, 2) of largest variance of the boxes' centres.
int SweepAxis(const std::vector<SweptBox>& boxes);

}  // namespace internal

}  // namespace contactsim::gpu
