// TetGen .node / .ele reader (https://wias-berlin.de/software/tetgen/fformats.html).
//
//   .node: "<points> <dimension = 3> <attributes> <markers 0|1>", then one line per point
//          "<index> <x> <y> <z> [attributes] [marker]".
//   .ele:  "<tets> <nodes per tet = 4> <region attribute 0|1>", then one line per tet
//          "<index> <n0> <n1> <n2> <n3> [attribute]".
// '#' starts a comment anywhere; blank lines are skipped. The first point's index (0 or 1) sets
// the numbering of both files, and points must be numbered consecutively from it. TetGen writes
// tets positively oriented; an inverted one is reported, never flipped.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/common/status_macros.h"
#include "core/geometry/mesh_import.h"
#include "core/geometry/mesh_validation.h"
#include "core/geometry/text_input.h"

namespace contactsim::core {
namespace {

using internal::LineReader;
using internal::Tokens;

// One TetGen file: content lines (comments stripped) and errors "<name>: line N: ...".
class TetGenFile {
 public:
  TetGenFile(absl::string_view text, std::string name) : lines_(text), name_(std::move(name)) {}

  // Next line with content; false at the end of the file.
  bool Next(absl::string_view& line) {
    while (lines_.Next(line)) {
      if (size_t hash = line.find('#'); hash != absl::string_view::npos)
        line = line.substr(0, hash);
      line = internal::Trim(line);
      if (!line.empty()) return true;
    }
    return false;
  }

  absl::Status NextOrError(absl::string_view& line, absl::string_view what) {
    if (Next(line)) return absl::OkStatus();
    return Error(absl::StrCat("file ends while reading ", what));
  }

  const std::string& name() const { return name_; }

  absl::Status Error(absl::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, ": line ", lines_.line_number(), ": ", message));
  }

  // Reads up to `count` integers; `required` of them must be present.
  absl::Status ReadInts(absl::string_view line, int64_t* out, int count, int required,
                        absl::string_view what, int* found = nullptr) {
    Tokens tokens(line);
    absl::string_view token;
    int i = 0;
    for (; i < count && tokens.Next(token); ++i) {
      if (!internal::ParseInt64(token, out[i])) {
        return Error(absl::StrCat("'", token, "' is not an integer (", what, ")"));
      }
    }
    if (i < required) return Error(absl::StrCat("expected ", what));
    if (found != nullptr) *found = i;
    return absl::OkStatus();
  }

 private:
  LineReader lines_;
  std::string name_;
};

absl::StatusOr<TetMesh> ParseTetGenNamed(absl::string_view node_text, absl::string_view ele_text,
                                         std::string node_name, std::string ele_name,
                                         const MeshOptions& options) {
  TetGenFile node_file(node_text, std::move(node_name));
  absl::string_view line;
  RETURN_IF_ERROR(node_file.NextOrError(line, "the header"));
  int64_t header[4] = {0, 3, 0, 0};  // points, dimension, attributes, markers
  RETURN_IF_ERROR(
      node_file.ReadInts(line, header, 4, 1, "'<points> <dimension> <attributes> <markers>'"));
  if (header[1] != 3) {
    return node_file.Error(absl::StrCat("dimension must be 3, got ", header[1]));
  }
  if (header[0] <= 0) return node_file.Error(absl::StrCat("point count ", header[0]));
  if (header[0] > options.limits.max_vertices) {
    return node_file.Error(absl::StrCat(internal::FormatCount(header[0]),
                                        " vertices exceed the limit of ",
                                        internal::FormatCount(options.limits.max_vertices)));
  }
  const int64_t num_points = header[0];
  Points3 vertices(num_points, 3);
  int64_t base = 0;
  for (int64_t i = 0; i < num_points; ++i) {
    RETURN_IF_ERROR(node_file.NextOrError(line, "points"));
    Tokens tokens(line);
    absl::string_view token;
    int64_t index = 0;
    if (!tokens.Next(token) || !internal::ParseInt64(token, index)) {
      return node_file.Error("expected '<index> <x> <y> <z>'");
    }
    if (i == 0) {
      if (index != 0 && index != 1) {
        return node_file.Error(absl::StrCat("first point index must be 0 or 1, got ", index));
      }
      base = index;
    } else if (index != base + i) {
      return node_file.Error(absl::StrCat("point index ", index, ", expected ", base + i,
                                          " (points are numbered consecutively)"));
    }
    for (int c = 0; c < 3; ++c) {
      if (!tokens.Next(token) || !internal::ParseDouble(token, vertices(i, c))) {
        return node_file.Error("expected '<index> <x> <y> <z>' with numeric coordinates");
      }
    }
  }

  TetGenFile ele_file(ele_text, std::move(ele_name));
  RETURN_IF_ERROR(ele_file.NextOrError(line, "the header"));
  int64_t ele_header[3] = {0, 4, 0};  // tets, nodes per tet, attribute
  RETURN_IF_ERROR(
      ele_file.ReadInts(line, ele_header, 3, 1, "'<tetrahedra> <nodes per tet> <attribute>'"));
  if (ele_header[1] == 10) {
    return ele_file.Error("10-node (second-order) tetrahedra are not supported; mesh without -o2");
  }
  if (ele_header[1] != 4) {
    return ele_file.Error(absl::StrCat("nodes per tetrahedron must be 4, got ", ele_header[1]));
  }
  if (ele_header[0] <= 0) return ele_file.Error(absl::StrCat("tetrahedron count ", ele_header[0]));
  if (ele_header[0] > options.limits.max_elements) {
    return ele_file.Error(absl::StrCat(internal::FormatCount(ele_header[0]),
                                       " tetrahedra exceed the limit of ",
                                       internal::FormatCount(options.limits.max_elements)));
  }
  IndexQuads tets(ele_header[0], 4);
  for (int64_t t = 0; t < ele_header[0]; ++t) {
    RETURN_IF_ERROR(ele_file.NextOrError(line, "tetrahedra"));
    int64_t values[5];  // index, 4 corners
    RETURN_IF_ERROR(ele_file.ReadInts(line, values, 5, 5, "'<index> <n0> <n1> <n2> <n3>'"));
    for (int c = 0; c < 4; ++c) {
      const int64_t v = values[1 + c] - base;
      if (v < 0 || v >= num_points) {
        return ele_file.Error(absl::StrCat("node ", values[1 + c], " out of range [", base, ", ",
                                           base + num_points - 1, "]"));
      }
      tets(t, c) = static_cast<int32_t>(v);
    }
  }
  // Validation errors name tets by their 0-based position in the .ele file.
  absl::StatusOr<TetMesh> mesh = TetMesh::Create(std::move(vertices), std::move(tets), options);
  if (!mesh.ok()) {
    return absl::Status(mesh.status().code(),
                        absl::StrCat(ele_file.name(), ": ", mesh.status().message()));
  }
  return mesh;
}

}  // namespace

absl::StatusOr<TetMesh> ParseTetGen(std::string_view node_text, std::string_view ele_text,
                                    const MeshOptions& options) {
  return ParseTetGenNamed(absl::string_view(node_text.data(), node_text.size()),
                          absl::string_view(ele_text.data(), ele_text.size()), ".node", ".ele",
                          options);
}

absl::StatusOr<TetMesh> ReadTetGen(const std::filesystem::path& node_path,
                                   const std::filesystem::path& ele_path,
                                   const MeshOptions& options) {
  ASSIGN_OR_RETURN(std::string node_text, internal::ReadTextFile(node_path));
  ASSIGN_OR_RETURN(std::string ele_text, internal::ReadTextFile(ele_path));
  return ParseTetGenNamed(node_text, ele_text, node_path.string(), ele_path.string(), options);
}

}  // namespace contactsim::core
