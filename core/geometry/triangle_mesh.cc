#include "core/geometry/triangle_mesh.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/mesh_validation.h"

namespace contactsim::core {
namespace {

// A half-edge is corner k of face f, running from faces(f, k) to faces(f, (k + 1) % 3); its id is
// 3 f + k. Sorting packs (hi << 32 | id) so that, within the bucket of its low vertex, half-edges
// come ordered by high vertex and then by id: one undirected edge is one run of equal hi.
inline uint64_t PackHalfEdge(int32_t hi, int32_t id) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | static_cast<uint32_t>(id);
}
inline int32_t PackedHi(uint64_t packed) { return static_cast<int32_t>(packed >> 32); }
inline int32_t PackedId(uint64_t packed) { return static_cast<int32_t>(packed & 0xffffffffu); }

// Half-edges grouped by low vertex (counting sort, O(n)), each group sorted by (hi, id).
// Groups are small (vertex valence), so the sorts are O(n log valence) overall.
struct SortedHalfEdges {
  std::vector<int32_t> bucket_offsets;  // num_vertices + 1
  std::vector<uint64_t> packed;         // 3 * num_faces
};

SortedHalfEdges SortHalfEdges(const IndexTriples& faces, int num_vertices) {
  const int num_faces = static_cast<int>(faces.rows());
  SortedHalfEdges out;
  out.bucket_offsets.assign(num_vertices + 1, 0);
  for (int f = 0; f < num_faces; ++f) {
    for (int k = 0; k < 3; ++k) {
      ++out.bucket_offsets[std::min(faces(f, k), faces(f, (k + 1) % 3)) + 1];
    }
  }
  for (int v = 0; v < num_vertices; ++v) out.bucket_offsets[v + 1] += out.bucket_offsets[v];
  std::vector<int32_t> cursor(out.bucket_offsets.begin(), out.bucket_offsets.end() - 1);
  out.packed.resize(3 * static_cast<size_t>(num_faces));
  for (int f = 0; f < num_faces; ++f) {
    for (int k = 0; k < 3; ++k) {
      const int32_t a = faces(f, k);
      const int32_t b = faces(f, (k + 1) % 3);
      out.packed[cursor[std::min(a, b)]++] = PackHalfEdge(std::max(a, b), 3 * f + k);
    }
  }
  for (int v = 0; v < num_vertices; ++v) {
    std::sort(out.packed.begin() + out.bucket_offsets[v],
              out.packed.begin() + out.bucket_offsets[v + 1]);
  }
  return out;
}

// The vertex opposite half-edge `id` in its face.
inline int32_t OppositeVertex(const IndexTriples& faces, int32_t id) {
  return faces(id / 3, (id % 3 + 2) % 3);
}

// True when half-edge `id` runs from the edge's low vertex to its high vertex.
inline bool RunsLowToHigh(const IndexTriples& faces, int32_t id) {
  const int32_t a = faces(id / 3, id % 3);
  const int32_t b = faces(id / 3, (id % 3 + 1) % 3);
  return a < b;
}

std::string EdgeName(int32_t lo, int32_t hi) { return absl::StrCat("edge (", lo, ", ", hi, ")"); }

}  // namespace

absl::StatusOr<TriangleMesh> TriangleMesh::Create(Points3 vertices, IndexTriples faces,
                                                  const MeshOptions& options) {
  RETURN_IF_ERROR(internal::CheckMeshOptions(options));
  RETURN_IF_ERROR(
      internal::CheckSizeLimits(vertices.rows(), faces.rows(), 3, "faces", options.limits));
  if (faces.rows() == 0) return absl::InvalidArgumentError("mesh has no faces");
  RETURN_IF_ERROR(internal::CheckFiniteVertices(vertices));
  RETURN_IF_ERROR(
      internal::CheckElementIndices(faces.data(), faces.rows(), 3, vertices.rows(), "face"));

  const int num_vertices = static_cast<int>(vertices.rows());
  const int num_faces = static_cast<int>(faces.rows());

  // Degenerate faces: area below tolerance * (mean edge length)^2, or exactly zero.
  const double mean_edge = internal::MeanElementEdgeLength(vertices, faces.data(), faces.rows(), 3);
  const double min_area = options.degenerate_relative_tolerance * mean_edge * mean_edge;
  for (int f = 0; f < num_faces; ++f) {
    const Vec3 x0 = vertices.row(faces(f, 0));
    const double area = 0.5 * (vertices.row(faces(f, 1)).transpose() - x0)
                                  .cross(vertices.row(faces(f, 2)).transpose() - x0)
                                  .norm();
    if (area == 0.0 || area < min_area) {
      return absl::InvalidArgumentError(
          absl::StrCat("face ", f, ": degenerate (area ", area, " m^2)"));
    }
  }

  const SortedHalfEdges sorted = SortHalfEdges(faces, num_vertices);
  const std::vector<uint64_t>& packed = sorted.packed;
  const std::vector<int32_t>& bucket = sorted.bucket_offsets;

  // Edge runs: [run_begin, run_end) of `packed` share (lo, hi).
  int num_edges = 0;
  for (int v = 0; v < num_vertices; ++v) {
    for (int i = bucket[v]; i < bucket[v + 1]; ++i) {
      if (i == bucket[v] || PackedHi(packed[i]) != PackedHi(packed[i - 1])) ++num_edges;
    }
  }

  TriangleMesh mesh;
  mesh.edges_.resize(num_edges, 2);
  mesh.face_edges_.resize(num_faces, 3);
  mesh.edge_face_offsets_.resize(num_edges + 1);
  mesh.edge_face_ids_.resize(packed.size());
  int e = -1;
  for (int v = 0; v < num_vertices; ++v) {
    for (int i = bucket[v]; i < bucket[v + 1]; ++i) {
      const int32_t hi = PackedHi(packed[i]);
      const int32_t id = PackedId(packed[i]);
      if (i == bucket[v] || hi != PackedHi(packed[i - 1])) {
        ++e;
        mesh.edges_(e, 0) = v;
        mesh.edges_(e, 1) = hi;
        mesh.edge_face_offsets_[e] = i;
      }
      mesh.edge_face_ids_[i] = id / 3;
      mesh.face_edges_(id / 3, id % 3) = e;
    }
  }
  mesh.edge_face_offsets_[num_edges] = static_cast<int32_t>(packed.size());

  // Duplicate faces share all three edges and the opposite vertex across each: detected on the
  // first of their edges: each run of faces is sorted by opposite vertex in a reused buffer.
  std::vector<std::pair<int32_t, int32_t>> scratch;  // (opposite vertex, face)
  for (int edge = 0; edge < num_edges; ++edge) {
    const int begin = mesh.edge_face_offsets_[edge];
    const int end = mesh.edge_face_offsets_[edge + 1];
    if (end - begin < 2) continue;
    scratch.clear();
    for (int i = begin; i < end; ++i) {
      const int32_t id = PackedId(packed[i]);
      scratch.emplace_back(OppositeVertex(faces, id), id / 3);
    }
    std::sort(scratch.begin(), scratch.end());
    for (size_t i = 1; i < scratch.size(); ++i) {
      if (scratch[i].first == scratch[i - 1].first) {
        return absl::InvalidArgumentError(
            absl::StrCat("face ", scratch[i].second, " duplicates face ", scratch[i - 1].second));
      }
    }
  }

  // Closedness: every edge has two faces that traverse it in opposite directions.
  bool closed = true;
  for (int edge = 0; edge < num_edges; ++edge) {
    const int begin = mesh.edge_face_offsets_[edge];
    const int count = mesh.edge_face_offsets_[edge + 1] - begin;
    const int32_t lo = mesh.edges_(edge, 0);
    const int32_t hi = mesh.edges_(edge, 1);
    if (count == 2) {
      const int32_t id0 = PackedId(packed[begin]);
      const int32_t id1 = PackedId(packed[begin + 1]);
      if (RunsLowToHigh(faces, id0) != RunsLowToHigh(faces, id1)) continue;
      closed = false;
      if (options.require_closed) {
        return absl::InvalidArgumentError(
            absl::StrCat(EdgeName(lo, hi), ": faces ", id0 / 3, " and ", id1 / 3,
                         " traverse it in the same direction (inconsistent orientation)"));
      }
      continue;
    }
    closed = false;
    if (!options.require_closed) continue;
    if (count == 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(EdgeName(lo, hi), ": boundary edge, but a closed surface is required"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(EdgeName(lo, hi), ": shared by ", count, " faces (non-manifold)"));
  }

  // Vertex -> faces CSR, faces in increasing order.
  mesh.vertex_face_offsets_.assign(num_vertices + 1, 0);
  for (int f = 0; f < num_faces; ++f) {
    for (int k = 0; k < 3; ++k) ++mesh.vertex_face_offsets_[faces(f, k) + 1];
  }
  for (int v = 0; v < num_vertices; ++v) {
    mesh.vertex_face_offsets_[v + 1] += mesh.vertex_face_offsets_[v];
  }
  mesh.vertex_face_ids_.resize(3 * static_cast<size_t>(num_faces));
  {
    std::vector<int32_t> cursor(mesh.vertex_face_offsets_.begin(),
                                mesh.vertex_face_offsets_.end() - 1);
    for (int f = 0; f < num_faces; ++f) {
      for (int k = 0; k < 3; ++k) mesh.vertex_face_ids_[cursor[faces(f, k)]++] = f;
    }
  }

  // A closed, consistently oriented surface can still pinch at a vertex (two cones tip to tip).
  // Walking the fan of faces around v across its edges must visit all of v's faces.
  if (options.require_closed) {
    for (int v = 0; v < num_vertices; ++v) {
      const int degree = mesh.vertex_face_offsets_[v + 1] - mesh.vertex_face_offsets_[v];
      if (degree == 0) continue;
      const int32_t first = mesh.vertex_face_ids_[mesh.vertex_face_offsets_[v]];
      int32_t face = first;
      int visited = 0;
      do {
        const int k = faces(face, 0) == v ? 0 : (faces(face, 1) == v ? 1 : 2);
        // Leave through the edge v -> next; the neighbour enters v through the same edge.
        const int32_t out_edge = mesh.face_edges_(face, k);
        const int32_t* across = mesh.edge_face_ids_.data() + mesh.edge_face_offsets_[out_edge];
        face = across[0] == face ? across[1] : across[0];
        ++visited;
      } while (face != first && visited <= degree);
      if (visited != degree) {
        return absl::InvalidArgumentError(absl::StrCat(
            "vertex ", v, ": its ", degree,
            " faces form more than one fan (non-manifold vertex), but a closed surface is "
            "required"));
      }
    }
  }

  mesh.vertices_ = std::move(vertices);
  mesh.faces_ = std::move(faces);
  mesh.is_closed_ = closed;
  return mesh;
}

Vec3 TriangleMesh::FaceNormal(int f) const {
  const Vec3 x0 = vertices_.row(faces_(f, 0));
  const Vec3 x1 = vertices_.row(faces_(f, 1));
  const Vec3 x2 = vertices_.row(faces_(f, 2));
  return (x1 - x0).cross(x2 - x0).normalized();
}

bool EnclosesPositiveVolume(const TriangleMesh& mesh, const Points3& positions) {
  if (!mesh.is_closed()) return false;
  double six_volume = 0.0;
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const Vec3 a = positions.row(mesh.faces()(f, 0)).transpose();
    const Vec3 b = positions.row(mesh.faces()(f, 1)).transpose();
    const Vec3 c = positions.row(mesh.faces()(f, 2)).transpose();
    six_volume += a.dot(b.cross(c));
  }
  return six_volume > 0.0;
}

}  // namespace contactsim::core
