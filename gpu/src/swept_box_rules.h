// The pair test of the sort-and-sweep (swept_broad_phase.h), shared by the CPU reference and the
// CUDA kernel so both accept exactly the same pairs.
#pragma once

#include "contactsim/gpu/swept_broad_phase.h"
#include "core/common/host_device.h"

namespace contactsim::gpu::internal {

// Boxes a and b overlap (closed intervals) on every axis, form a pair kind (VF: different groups;
// EE: both group 0) and share no vertex.
CONTACTSIM_HOST_DEVICE inline bool IsCandidate(const SweptBox& a, const SweptBox& b,
                                               bool vertex_face) {
  for (int k = 0; k < 3; ++k) {
    if (a.hi[k] < b.lo[k] || b.hi[k] < a.lo[k]) return false;
  }
  if (vertex_face ? a.group == b.group : false) return false;
  for (int i = 0; i < 3; ++i) {
    if (a.vertices[i] < 0) continue;
    for (int j = 0; j < 3; ++j) {
      if (a.vertices[i] == b.vertices[j]) return false;
    }
  }
  return true;
}

// The pair (a, b) as CandidatePairs stores it: VF (vertex id, face id), EE (smaller id first).
CONTACTSIM_HOST_DEVICE inline void OrderedPair(const SweptBox& a, const SweptBox& b,
                                               bool vertex_face, int32_t out[2]) {
  if (vertex_face) {
    const bool a_is_vertex = a.group == 0;
    out[0] = a_is_vertex ? a.id : b.id;
    out[1] = a_is_vertex ? b.id : a.id;
  } else {
    out[0] = a.id < b.id ? a.id : b.id;
    out[1] = a.id < b.id ? b.id : a.id;
  }
}

}  // namespace contactsim::gpu::internal
