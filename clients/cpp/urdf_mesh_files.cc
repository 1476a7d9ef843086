#include "clients/cpp/urdf_mesh_files.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tinyxml2.h"

namespace contactsim::client {
namespace {

// The filename of a <visual> or <collision>'s mesh, or null. urdfdom reads the first element
// of <geometry> as the shape, so a <mesh> after a <box> is not a mesh of the link.
const char* GeometryMeshFilename(const tinyxml2::XMLElement* shape_owner) {
  const tinyxml2::XMLElement* geometry = shape_owner->FirstChildElement("geometry");
  if (geometry == nullptr) return nullptr;
  const tinyxml2::XMLElement* shape = geometry->FirstChildElement();
  if (shape == nullptr || std::string_view(shape->Name()) != "mesh") return nullptr;
  // A <mesh> without a filename is the server's loader's error to name (link and line).
  return shape->Attribute("filename");
}

constexpr char kMeshExtensions[] = ".stl .obj .ply .dae .gltf .glb .fbx .3ds .off";

// The mesh formats a URDF names in practice, all of which the server's importer (assimp) reads.
// A URDF is a document from elsewhere: without this check, a <mesh filename="file:///home/u/
// .ssh/id_rsa"> would have the client upload any file it can read.
bool HasMeshExtension(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const absl::string_view mesh : absl::StrSplit(kMeshExtensions, ' ')) {
    if (extension == mesh) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> UrdfMeshFilenames(std::string_view urdf_text,
                                                           UrdfMeshes which,
                                                           std::string_view source) {
  tinyxml2::XMLDocument document;
  if (document.Parse(urdf_text.data(), urdf_text.size()) != tinyxml2::XML_SUCCESS) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(source), ": not XML (line ",
                                                   document.ErrorLineNum(),
                                                   "): ", document.ErrorStr()));
  }
  const tinyxml2::XMLElement* robot = document.RootElement();
  if (robot == nullptr || std::string_view(robot->Name()) != "robot") {
    return absl::InvalidArgumentError(absl::StrCat(std::string(source), ": the root element is <",
                                                   robot == nullptr ? "" : robot->Name(),
                                                   ">, expected <robot>"));
  }
  std::vector<std::string> filenames;
  std::set<std::string> seen;
  for (const tinyxml2::XMLElement* link = robot->FirstChildElement("link"); link != nullptr;
       link = link->NextSiblingElement("link")) {
    // Visuals and collisions in document order, whichever comes first in the link.
    for (const tinyxml2::XMLElement* child = link->FirstChildElement(); child != nullptr;
         child = child->NextSiblingElement()) {
      const std::string_view tag = child->Name();
      const bool wanted =
          tag == "collision" || (tag == "visual" && which == UrdfMeshes::kVisualAndCollision);
      if (!wanted) continue;
      const char* filename = GeometryMeshFilename(child);
      if (filename != nullptr && seen.insert(filename).second) filenames.emplace_back(filename);
    }
  }
  return filenames;
}

absl::StatusOr<std::vector<v1::MeshFile>> ReadUrdfMeshFiles(std::string_view urdf_text,
                                                            const MeshPathRoots& roots,
                                                            UrdfMeshes which,
                                                            std::string_view source) {
  absl::StatusOr<std::vector<std::string>> filenames = UrdfMeshFilenames(urdf_text, which, source);
  if (!filenames.ok()) return filenames.status();
  // Resolve and check every file first: a missing one is reported before any is read.
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  for (const std::string& written : *filenames) {
    absl::StatusOr<std::filesystem::path> path = ResolveMeshPath(written, roots);
    if (!path.ok()) return path.status();
    if (!HasMeshExtension(*path)) {
      return absl::InvalidArgumentError(absl::StrCat("mesh \"", written,
                                                     "\": not a mesh file by its extension (",
                                                     kMeshExtensions, "); it is not read or sent"));
    }
    std::error_code error;
    if (!std::filesystem::is_regular_file(*path, error)) {
      const bool exists = std::filesystem::exists(*path, error);
      return absl::NotFoundError(absl::StrCat("mesh \"", written, "\": ", path->string(),
                                              exists ? " is not a regular file" : " not found"));
    }
    files.emplace_back(written, *std::move(path));
  }
  std::vector<v1::MeshFile> mesh_files;
  mesh_files.reserve(files.size());
  for (const auto& [written, path] : files) {
    std::ifstream in(path, std::ios::binary);
    std::string data;
    if (in.is_open()) data.assign(std::istreambuf_iterator<char>(in), {});
    if (!in.is_open() || in.bad()) {
      return absl::NotFoundError(
          absl::StrCat("mesh \"", written, "\": cannot read ", path.string()));
    }
    v1::MeshFile& file = mesh_files.emplace_back();
    file.set_path(written);
    file.set_data(std::move(data));
  }
  return mesh_files;
}

}  // namespace contactsim::client
