// The swept-box broad phase's CPU side (swept_broad_phase.h): input checks, the boxes, the sweep
// axis, the reference sort-and-sweep and the narrow-phase queries. The device sweep
// (swept_broad_phase.cu) starts from the same boxes.
#include "contactsim/gpu/swept_broad_phase.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "gpu/src/swept_box_rules.h"

namespace contactsim::gpu {
namespace internal {
namespace {

// The box of the vertices `v` (count of them) of a primitive over the step.
SweptBox BoxOf(const SweptMesh& mesh, const int32_t* v, int count, double inflation_m) {
  SweptBox box;
  for (int k = 0; k < 3; ++k) {
    double lo = (*mesh.x_t0)(v[0], k), hi = lo;
    for (int i = 0; i < count; ++i) {
      for (const core::Points3* x : {mesh.x_t0, mesh.x_t1}) {
        lo = std::min(lo, (*x)(v[i], k));
        hi = std::max(hi, (*x)(v[i], k));
      }
    }
    // Rounding of the inflation may shift an end by half an ulp; the CPU and GPU share these
    // boxes, so they agree on every pair.
    box.lo[k] = lo - inflation_m;
    box.hi[k] = hi + inflation_m;
  }
  for (int i = 0; i < 3; ++i) box.vertices[i] = i < count ? v[i] : -1;
  box.group = 0;
  box.id = 0;
  return box;
}

}  // namespace

std::vector<SweptBox> VertexFaceBoxes(const SweptMesh& mesh, double inflation_m) {
  std::vector<SweptBox> boxes;
  const int32_t vertices = static_cast<int32_t>(mesh.x_t0->rows());
  boxes.reserve(vertices + mesh.faces->rows());
  for (int32_t v = 0; v < vertices; ++v) {
    boxes.push_back(BoxOf(mesh, &v, 1, inflation_m));
    boxes.back().id = v;
  }
  for (int32_t f = 0; f < mesh.faces->rows(); ++f) {
    const int32_t v[3] = {(*mesh.faces)(f, 0), (*mesh.faces)(f, 1), (*mesh.faces)(f, 2)};
    boxes.push_back(BoxOf(mesh, v, 3, inflation_m));
    boxes.back().group = 1;
    boxes.back().id = f;
  }
  return boxes;
}

std::vector<SweptBox> EdgeEdgeBoxes(const SweptMesh& mesh, double inflation_m) {
  std::vector<SweptBox> boxes;
  boxes.reserve(mesh.edges->rows());
  for (int32_t e = 0; e < mesh.edges->rows(); ++e) {
    const int32_t v[2] = {(*mesh.edges)(e, 0), (*mesh.edges)(e, 1)};
    boxes.push_back(BoxOf(mesh, v, 2, inflation_m));
    boxes.back().id = e;
  }
  return boxes;
}

int SweepAxis(const std::vector<SweptBox>& boxes) {
  // Largest spread of the centres: the sweep then tests the fewest boxes per box.
  double sum[3] = {0, 0, 0}, sum_squared[3] = {0, 0, 0};
  for (const SweptBox& box : boxes) {
    for (int k = 0; k < 3; ++k) {
      const double centre = 0.5 * box.lo[k] + 0.5 * box.hi[k];
      sum[k] += centre;
      sum_squared[k] += centre * centre;
    }
  }
  const double n = std::max<double>(1.0, static_cast<double>(boxes.size()));
  int best = 0;
  double best_variance = -1.0;
  for (int k = 0; k < 3; ++k) {
    const double variance = sum_squared[k] / n - (sum[k] / n) * (sum[k] / n);
    if (variance > best_variance) {
      best_variance = variance;
      best = k;
    }
  }
  return best;
}

namespace {

std::vector<std::array<int32_t, 2>> SweepCpu(const std::vector<SweptBox>& boxes, bool vertex_face) {
  const int axis = SweepAxis(boxes);
  std::vector<int32_t> order(boxes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return boxes[a].lo[axis] < boxes[b].lo[axis]; });
  std::vector<std::array<int32_t, 2>> pairs;
  for (size_t i = 0; i < order.size(); ++i) {
    const SweptBox& a = boxes[order[i]];
    for (size_t j = i + 1; j < order.size() && boxes[order[j]].lo[axis] <= a.hi[axis]; ++j) {
      const SweptBox& b = boxes[order[j]];
      if (!IsCandidate(a, b, vertex_face)) continue;
      int32_t pair[2];
      OrderedPair(a, b, vertex_face, pair);
      pairs.push_back({pair[0], pair[1]});
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace
}  // namespace internal

absl::Status ValidateSweptMesh(const SweptMesh& mesh, double inflation_m) {
  if (mesh.x_t0 == nullptr || mesh.x_t1 == nullptr || mesh.faces == nullptr ||
      mesh.edges == nullptr) {
    return absl::InvalidArgumentError("mesh.x_t0, x_t1, faces and edges must all be given");
  }
  if (mesh.x_t0->rows() != mesh.x_t1->rows()) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh.x_t1 has ", mesh.x_t1->rows(), " rows, mesh.x_t0 ", mesh.x_t0->rows()));
  }
  if (!(inflation_m >= 0.0 && std::isfinite(inflation_m))) {
    return absl::InvalidArgumentError(
        absl::StrCat("inflation_m must be finite and >= 0, got ", inflation_m));
  }
  for (const core::Points3* x : {mesh.x_t0, mesh.x_t1}) {
    for (Eigen::Index i = 0; i < x->rows(); ++i) {
      for (int k = 0; k < 3; ++k) {
        if (!std::isfinite((*x)(i, k))) {
          return absl::InvalidArgumentError(absl::StrCat(x == mesh.x_t0 ? "mesh.x_t0" : "mesh.x_t1",
                                                         "(", i, ", ", k, ") is not finite"));
        }
      }
    }
  }
  const Eigen::Index n = mesh.x_t0->rows();
  for (Eigen::Index f = 0; f < mesh.faces->rows(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t v = (*mesh.faces)(f, c);
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("mesh.faces(", f, ", ", c, ") = ", v, " is not a vertex (", n, ")"));
      }
    }
  }
  for (Eigen::Index e = 0; e < mesh.edges->rows(); ++e) {
    for (int c = 0; c < 2; ++c) {
      const int32_t v = (*mesh.edges)(e, c);
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("mesh.edges(", e, ", ", c, ") = ", v, " is not a vertex (", n, ")"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CandidatePairs> SweptCandidatesCpu(const SweptMesh& mesh, double inflation_m) {
  if (absl::Status status = ValidateSweptMesh(mesh, inflation_m); !status.ok()) return status;
  CandidatePairs pairs;
  pairs.vertex_face = internal::SweepCpu(internal::VertexFaceBoxes(mesh, inflation_m), true);
  pairs.edge_edge = internal::SweepCpu(internal::EdgeEdgeBoxes(mesh, inflation_m), false);
  return pairs;
}

std::vector<core::CcdQuery> CandidateQueries(const SweptMesh& mesh, const CandidatePairs& pairs) {
  std::vector<core::CcdQuery> queries;
  queries.reserve(pairs.vertex_face.size() + pairs.edge_edge.size());
  const auto add = [&](core::CcdQueryKind kind, const int32_t(&v)[4]) {
    core::CcdQuery query;
    query.kind = kind;
    for (int i = 0; i < 4; ++i) {
      query.trajectory.x_t0[i] = mesh.x_t0->row(v[i]).transpose();
      query.trajectory.x_t1[i] = mesh.x_t1->row(v[i]).transpose();
    }
    queries.push_back(query);
  };
  for (const auto& [vertex, face] : pairs.vertex_face) {
    const int32_t v[4] = {vertex, (*mesh.faces)(face, 0), (*mesh.faces)(face, 1),
                          (*mesh.faces)(face, 2)};
    add(core::CcdQueryKind::kVertexFace, v);
  }
  for (const auto& [a, b] : pairs.edge_edge) {
    const int32_t v[4] = {(*mesh.edges)(a, 0), (*mesh.edges)(a, 1), (*mesh.edges)(b, 0),
                          (*mesh.edges)(b, 1)};
    add(core::CcdQueryKind::kEdgeEdge, v);
  }
  return queries;
}

}  // namespace contactsim::gpu
