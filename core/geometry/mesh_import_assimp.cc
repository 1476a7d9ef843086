// Surface import through assimp.
//
// Post-processing: vertex attributes other than positions are removed first (RemoveComponent),
// so that JoinIdenticalVertices joins by position alone: STL repeats each corner per facet with
// the facet normal, and OBJ corners with different normals or UVs would otherwise stay split.
// Polygons are triangulated; points and lines are dropped. Every mesh of the scene is placed by
// its node's accumulated transform (a mesh used by two nodes appears twice). Finally corners at
// exactly the same position are welded across meshes (assimp joins within one mesh only, and an
// OBJ split into groups gives each group its own copy of the shared corners), and vertices used by
// no triangle are dropped, keeping first-use order.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "assimp/Importer.hpp"
#include "assimp/config.h"
#include "assimp/postprocess.h"
#include "assimp/scene.h"
#include "core/common/status_macros.h"
#include "core/geometry/mesh_import.h"
#include "core/geometry/ply_header_check.h"
#include "core/geometry/text_input.h"

namespace contactsim::core {
namespace {

constexpr unsigned kPostProcess =
    aiProcess_RemoveComponent | aiProcess_Triangulate | aiProcess_JoinIdenticalVertices;

void ConfigureImporter(Assimp::Importer& importer) {
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                              aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                  aiComponent_COLORS | aiComponent_TEXCOORDS |
                                  aiComponent_BONEWEIGHTS);
}

absl::Status CheckScale(double scale) {
  if (std::isfinite(scale) && scale > 0.0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("scale: must be positive and finite, got ", scale));
}

// Triangle soup gathered from the scene graph.
struct Soup {
  std::vector<double> positions;   // 3 per corner vertex
  std::vector<int64_t> triangles;  // 3 per triangle, indices into positions / 3
};

absl::Status GatherScene(const aiScene& scene, double scale, const MeshOptions& options,
                         Soup& soup) {
  std::vector<std::pair<const aiNode*, aiMatrix4x4>> stack;
  if (scene.mRootNode != nullptr)
    stack.emplace_back(scene.mRootNode, scene.mRootNode->mTransformation);
  while (!stack.empty()) {
    const auto [node, transform] = stack.back();
    stack.pop_back();
    for (unsigned c = 0; c < node->mNumChildren; ++c) {
      stack.emplace_back(node->mChildren[c], transform * node->mChildren[c]->mTransformation);
    }
    for (unsigned m = 0; m < node->mNumMeshes; ++m) {
      const aiMesh& mesh = *scene.mMeshes[node->mMeshes[m]];
      const int64_t first = static_cast<int64_t>(soup.positions.size() / 3);
      if (first + mesh.mNumVertices > options.limits.max_vertices) {
        return absl::InvalidArgumentError(
            absl::StrCat("more than ", options.limits.max_vertices, " vertices in the scene"));
      }
      for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
        const aiVector3D p = transform * mesh.mVertices[v];
        soup.positions.push_back(scale * p.x);
        soup.positions.push_back(scale * p.y);
        soup.positions.push_back(scale * p.z);
      }
      for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
        const aiFace& face = mesh.mFaces[f];
        if (face.mNumIndices != 3) continue;  // points and lines
        if (static_cast<int64_t>(soup.triangles.size() / 3) >= options.limits.max_elements) {
          return absl::InvalidArgumentError(
              absl::StrCat("more than ", options.limits.max_elements, " triangles in the scene"));
        }
        for (int k = 0; k < 3; ++k) soup.triangles.push_back(first + face.mIndices[k]);
      }
    }
  }
  return absl::OkStatus();
}

// Welds identical positions and drops unused vertices; new indices follow first use by a face.
absl::StatusOr<TriangleMesh> BuildMesh(const Soup& soup, const MeshOptions& options) {
  const int64_t n = static_cast<int64_t>(soup.positions.size() / 3);
  const double* p = soup.positions.data();
  const bool all_finite = std::all_of(soup.positions.begin(), soup.positions.end(),
                                      [](double x) { return std::isfinite(x); });
  // representative[v]: the lowest-index vertex at v's position (v itself if non-finite, so
  // validation reports the bad coordinate instead of the sort misbehaving on NaN).
  std::vector<int64_t> representative(n);
  for (int64_t v = 0; v < n; ++v) representative[v] = v;
  if (all_finite) {
    std::vector<int64_t> order(n);
    for (int64_t v = 0; v < n; ++v) order[v] = v;
    auto less = [p](int64_t a, int64_t b) {
      for (int c = 0; c < 3; ++c) {
        if (p[3 * a + c] != p[3 * b + c]) return p[3 * a + c] < p[3 * b + c];
      }
      return a < b;
    };
    std::sort(order.begin(), order.end(), less);
    for (int64_t i = 1; i < n; ++i) {
      const int64_t a = order[i - 1], b = order[i];
      if (p[3 * a] == p[3 * b] && p[3 * a + 1] == p[3 * b + 1] && p[3 * a + 2] == p[3 * b + 2]) {
        representative[b] = representative[a];
      }
    }
  }
  std::vector<int32_t> new_index(n, -1);
  int32_t next = 0;
  const int64_t num_triangles = static_cast<int64_t>(soup.triangles.size() / 3);
  IndexTriples faces(num_triangles, 3);
  for (int64_t c = 0; c < 3 * num_triangles; ++c) {
    const int64_t r = representative[soup.triangles[c]];
    if (new_index[r] < 0) new_index[r] = next++;
    faces.data()[c] = new_index[r];
  }
  Points3 vertices(next, 3);
  for (int64_t v = 0; v < n; ++v) {
    if (representative[v] != v || new_index[v] < 0) continue;
    for (int c = 0; c < 3; ++c) vertices(new_index[v], c) = p[3 * v + c];
  }
  return TriangleMesh::Create(std::move(vertices), std::move(faces), options);
}

absl::StatusOr<TriangleMesh> FromScene(const aiScene* scene, const Assimp::Importer& importer,
                                       double scale, const MeshOptions& options) {
  if (scene == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("assimp: ", importer.GetErrorString()));
  }
  if (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) {
    return absl::InvalidArgumentError("assimp: the scene is incomplete (no mesh data)");
  }
  Soup soup;
  RETURN_IF_ERROR(GatherScene(*scene, scale, options, soup));
  if (soup.triangles.empty()) return absl::InvalidArgumentError("the file holds no triangles");
  return BuildMesh(soup, options);
}

}  // namespace

absl::StatusOr<TriangleMesh> ImportTriangleMesh(const std::filesystem::path& path,
                                                const MeshOptions& options, double scale) {
  RETURN_IF_ERROR(CheckScale(scale));
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(absl::StrCat(path.string(), ": no such file"));
  }
  {
    // The PLY check of ImportTriangleMeshFromMemory, on the file's first bytes.
    std::ifstream file(path, std::ios::binary);
    std::string head(size_t{1} << 20, '\0');  // any real header fits
    file.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(file.gcount()));
    if (internal::LooksLikePly(head)) {
      const absl::Status header = internal::CheckPlyHeader(head);
      if (!header.ok()) return internal::PrefixWithPath(header, path);
    }
  }
  Assimp::Importer importer;
  ConfigureImporter(importer);
  const aiScene* scene = importer.ReadFile(path.string(), kPostProcess);
  absl::StatusOr<TriangleMesh> mesh = FromScene(scene, importer, scale, options);
  if (!mesh.ok()) return internal::PrefixWithPath(mesh.status(), path);
  return mesh;
}

absl::StatusOr<TriangleMesh> ImportTriangleMeshFromMemory(std::string_view data,
                                                          std::string_view format_hint,
                                                          const MeshOptions& options,
                                                          double scale) {
  RETURN_IF_ERROR(CheckScale(scale));
  if (data.empty()) return absl::InvalidArgumentError("data: empty");
  // Assimp picks its PLY reader by content too, so the check goes by the bytes, not the hint.
  if (internal::LooksLikePly(data)) RETURN_IF_ERROR(internal::CheckPlyHeader(data));
  Assimp::Importer importer;
  ConfigureImporter(importer);
  const std::string hint(format_hint);
  const aiScene* scene =
      importer.ReadFileFromMemory(data.data(), data.size(), kPostProcess, hint.c_str());
  return FromScene(scene, importer, scale, options);
}

}  // namespace contactsim::core
