#include "core/geometry/tet_mesh.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/mesh_validation.h"

namespace contactsim::core {
namespace {

// Face j of a positively oriented tet is the one opposite corner j, listed counter-clockwise seen
// from outside (its normal points away from corner j).
constexpr std::array<std::array<int, 3>, 4> kTetFaces = {
    {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}};

double SignedVolume(const Points3& vertices, const IndexQuads& tets, int t) {
  const Vec3 x0 = vertices.row(tets(t, 0));
  const Vec3 e1 = vertices.row(tets(t, 1)).transpose() - x0;
  const Vec3 e2 = vertices.row(tets(t, 2)).transpose() - x0;
  const Vec3 e3 = vertices.row(tets(t, 3)).transpose() - x0;
  return e1.dot(e2.cross(e3)) / 6.0;
}

// One tet face for sorting: its vertices ascending (a < b < c), bucketed by a, keyed by (b, c).
struct FaceKey {
  uint64_t bc;  // b << 32 | c
  int32_t id;   // 4 t + j
  bool operator<(const FaceKey& o) const { return bc < o.bc || (bc == o.bc && id < o.id); }
};

// Whether the oriented face (p, q, r) is an even permutation of its sorted vertices. Two tets on
// opposite sides of a shared face list it with opposite parity.
bool EvenPermutationOfSorted(int32_t p, int32_t q, int32_t r) {
  // A rotation of an ascending triple has exactly one descent in cyclic order.
  const int descents = (p > q) + (q > r) + (r > p);
  return descents == 1;
}

}  // namespace

absl::StatusOr<TetMesh> TetMesh::Create(Points3 vertices, IndexQuads tets,
                                        const MeshOptions& options) {
  RETURN_IF_ERROR(internal::CheckMeshOptions(options));
  RETURN_IF_ERROR(
      internal::CheckSizeLimits(vertices.rows(), tets.rows(), 4, "tetrahedra", options.limits));
  if (tets.rows() == 0) return absl::InvalidArgumentError("mesh has no tetrahedra");
  RETURN_IF_ERROR(internal::CheckFiniteVertices(vertices));
  RETURN_IF_ERROR(
      internal::CheckElementIndices(tets.data(), tets.rows(), 4, vertices.rows(), "tet"));

  const int num_vertices = static_cast<int>(vertices.rows());
  const int num_tets = static_cast<int>(tets.rows());

  // Degenerate (|V| < tolerance * mean_edge^3, or 0) is tested before the sign: the sign of a
  // vanishing volume means nothing.
  const double mean_edge = internal::MeanElementEdgeLength(vertices, tets.data(), tets.rows(), 4);
  const double min_volume =
      options.degenerate_relative_tolerance * mean_edge * mean_edge * mean_edge;
  for (int t = 0; t < num_tets; ++t) {
    const double volume = SignedVolume(vertices, tets, t);
    if (volume == 0.0 || std::abs(volume) < min_volume) {
      return absl::InvalidArgumentError(
          absl::StrCat("tet ", t, ": degenerate (volume ", volume, " m^3)"));
    }
    if (volume < 0.0) {
      return absl::InvalidArgumentError(absl::StrCat("tet ", t, ": inverted (volume ", volume,
                                                     " m^3); corners must be positively oriented"));
    }
  }

  // Faces grouped by smallest vertex (counting sort), sorted within a group by (b, c, id).
  const int num_tet_faces = 4 * num_tets;
  std::vector<int32_t> bucket(num_vertices + 1, 0);
  auto oriented = [&](int32_t id, int i) { return tets(id / 4, kTetFaces[id % 4][i]); };
  for (int32_t id = 0; id < num_tet_faces; ++id) {
    ++bucket[std::min({oriented(id, 0), oriented(id, 1), oriented(id, 2)}) + 1];
  }
  for (int v = 0; v < num_vertices; ++v) bucket[v + 1] += bucket[v];
  std::vector<FaceKey> keys(num_tet_faces);
  {
    std::vector<int32_t> cursor(bucket.begin(), bucket.end() - 1);
    for (int32_t id = 0; id < num_tet_faces; ++id) {
      std::array<int32_t, 3> s = {oriented(id, 0), oriented(id, 1), oriented(id, 2)};
      std::sort(s.begin(), s.end());
      keys[cursor[s[0]]++] = {(static_cast<uint64_t>(s[1]) << 32) | static_cast<uint32_t>(s[2]),
                              id};
    }
  }
  for (int v = 0; v < num_vertices; ++v) {
    std::sort(keys.begin() + bucket[v], keys.begin() + bucket[v + 1]);
  }

  std::vector<uint8_t> is_boundary(num_tet_faces, 0);
  int num_boundary = 0;
  for (int v = 0; v < num_vertices; ++v) {
    for (int i = bucket[v]; i < bucket[v + 1];) {
      int end = i + 1;
      while (end < bucket[v + 1] && keys[end].bc == keys[i].bc) ++end;
      const int count = end - i;
      const int32_t b = static_cast<int32_t>(keys[i].bc >> 32);
      const int32_t c = static_cast<int32_t>(keys[i].bc & 0xffffffffu);
      auto face_name = [&] { return absl::StrCat("face (", v, ", ", b, ", ", c, ")"); };
      if (count == 1) {
        is_boundary[keys[i].id] = 1;
        ++num_boundary;
      } else if (count == 2) {
        const int32_t id0 = keys[i].id;
        const int32_t id1 = keys[i + 1].id;
        if (EvenPermutationOfSorted(oriented(id0, 0), oriented(id0, 1), oriented(id0, 2)) ==
            EvenPermutationOfSorted(oriented(id1, 0), oriented(id1, 1), oriented(id1, 2))) {
          return absl::InvalidArgumentError(
              absl::StrCat(face_name(), ": tets ", id0 / 4, " and ", id1 / 4,
                           " lie on the same side of it (overlapping tetrahedra)"));
        }
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(face_name(), ": shared by ", count, " tetrahedra (tets ", keys[i].id / 4,
                         ", ", keys[i + 1].id / 4, ", ", keys[i + 2].id / 4,
                         count > 3 ? ", ..." : "", "); at most two may share a face"));
      }
      i = end;
    }
  }

  IndexTriples boundary(num_boundary, 3);
  int row = 0;
  for (int32_t id = 0; id < num_tet_faces; ++id) {
    if (!is_boundary[id]) continue;
    for (int i = 0; i < 3; ++i) boundary(row, i) = oriented(id, i);
    ++row;
  }

  MeshOptions surface_options = options;
  surface_options.require_closed = true;
  // The boundary of n tets has at most 4 n faces; the tet limit already bounded the input.
  surface_options.limits.max_elements =
      std::max<int64_t>(options.limits.max_elements, static_cast<int64_t>(num_boundary));
  absl::StatusOr<TriangleMesh> surface =
      TriangleMesh::Create(vertices, std::move(boundary), surface_options);
  if (!surface.ok()) {
    return absl::Status(surface.status().code(),
                        absl::StrCat("boundary surface: ", surface.status().message()));
  }
  return TetMesh(std::move(vertices), std::move(tets), *std::move(surface));
}

double TetMesh::TetVolume(int t) const { return SignedVolume(vertices_, tets_, t); }

double TetMesh::TotalVolume() const {
  double total = 0.0;
  for (int t = 0; t < num_tets(); ++t) total += TetVolume(t);
  return total;
}

}  // namespace contactsim::core
