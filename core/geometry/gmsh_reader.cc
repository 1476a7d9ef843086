// Gmsh ASCII .msh reader, formats 2.x and 4.1 (https://gmsh.info/doc/texinfo/gmsh.html, "MSH file
// format"). Only $MeshFormat, $Nodes and $Elements are read; every other section is skipped.
//
//   2.x  $Nodes:    n, then n lines "tag x y z".
//        $Elements: m, then m lines "tag type ntags tag_1..tag_ntags node_1..node_k".
//   4.1  $Nodes:    "blocks n min_tag max_tag", then per block "dim entity parametric k", k tag
//                   lines, k coordinate lines "x y z [u v w]".
//        $Elements: "blocks m min_tag max_tag", then per block "dim entity type k", k lines
//                   "tag node_1..node_n".
// Tetrahedra are element type 4, corner order as Gmsh's reference tet (positive volume). The
// vertices kept are the nodes the tets use, in increasing tag order.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/common/status_macros.h"
#include "core/geometry/mesh_import.h"
#include "core/geometry/mesh_validation.h"
#include "core/geometry/text_input.h"

namespace contactsim::core {
namespace {

using internal::LineError;
using internal::LineReader;
using internal::Tokens;

constexpr int64_t kTetType = 4;
constexpr int64_t kSecondOrderTetType = 11;

class GmshParser {
 public:
  GmshParser(absl::string_view text, const MeshOptions& options)
      : lines_(text), options_(options) {}

  absl::StatusOr<TetMesh> Parse() {
    absl::string_view line;
    bool have_format = false;
    bool have_nodes = false;
    while (NextNonEmpty(line)) {
      if (line == "$MeshFormat") {
        RETURN_IF_ERROR(ParseFormat());
        have_format = true;
      } else if (!have_format) {
        return LineError(lines_.line_number(), "expected $MeshFormat (is this a Gmsh .msh file?)");
      } else if (line == "$Nodes") {
        RETURN_IF_ERROR(version_major_ == 2 ? ParseNodesV2() : ParseNodesV4());
        have_nodes = true;
      } else if (line == "$Elements") {
        if (!have_nodes) return LineError(lines_.line_number(), "$Elements before $Nodes");
        RETURN_IF_ERROR(version_major_ == 2 ? ParseElementsV2() : ParseElementsV4());
      } else if (absl::StartsWith(line, "$End")) {
        return LineError(lines_.line_number(), absl::StrCat("unexpected ", line));
      } else if (line.front() == '$') {
        RETURN_IF_ERROR(SkipSection(line.substr(1)));
      } else {
        return LineError(lines_.line_number(),
                         absl::StrCat("unexpected text outside a section: '", line, "'"));
      }
    }
    if (!have_format) return absl::InvalidArgumentError("empty file: expected $MeshFormat");
    if (tet_tags_.empty()) {
      return absl::InvalidArgumentError("no 4-node tetrahedra (element type 4) in the file");
    }
    return Build();
  }

 private:
  bool NextNonEmpty(absl::string_view& line) {
    while (lines_.Next(line)) {
      line = internal::Trim(line);
      if (!line.empty()) return true;
    }
    return false;
  }

  absl::Status NextLine(absl::string_view& line, absl::string_view what) {
    if (NextNonEmpty(line)) return absl::OkStatus();
    return LineError(lines_.line_number(), absl::StrCat("file ends while reading ", what));
  }

  // Reads `count` integers from the start of `line` (more may follow).
  absl::Status ReadInts(absl::string_view line, int64_t* out, int count, absl::string_view what) {
    Tokens tokens(line);
    absl::string_view token;
    for (int i = 0; i < count; ++i) {
      if (!tokens.Next(token)) {
        return LineError(lines_.line_number(),
                         absl::StrCat("expected ", count, " integers (", what, ")"));
      }
      if (!internal::ParseInt64(token, out[i])) {
        return LineError(lines_.line_number(),
                         absl::StrCat("'", token, "' is not an integer (", what, ")"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadNode(absl::string_view coordinates, int64_t tag) {
    Tokens tokens(coordinates);
    absl::string_view token;
    for (int c = 0; c < 3; ++c) {
      double x = 0.0;
      if (!tokens.Next(token) || !internal::ParseDouble(token, x)) {
        return LineError(lines_.line_number(), "expected three coordinates x y z");
      }
      coordinates_.push_back(x);
    }
    node_tags_.push_back(tag);
    node_lines_.push_back(lines_.line_number());
    return absl::OkStatus();
  }

  absl::Status ExpectEnd(absl::string_view section) {
    absl::string_view line;
    RETURN_IF_ERROR(NextLine(line, absl::StrCat("$End", section)));
    if (line != absl::StrCat("$End", section)) {
      return LineError(lines_.line_number(),
                       absl::StrCat("expected $End", section, ", found '", line, "'"));
    }
    return absl::OkStatus();
  }

  absl::Status CheckCount(int64_t count, int64_t limit, absl::string_view what) {
    if (count < 0)
      return LineError(lines_.line_number(), absl::StrCat("negative ", what, " count"));
    if (count > limit) {
      return LineError(lines_.line_number(),
                       absl::StrCat(internal::FormatCount(count), " ", what,
                                    " exceed the limit of ", internal::FormatCount(limit)));
    }
    return absl::OkStatus();
  }

  absl::Status ParseFormat() {
    absl::string_view line;
    RETURN_IF_ERROR(NextLine(line, "$MeshFormat"));
    Tokens tokens(line);
    absl::string_view version, file_type;
    if (!tokens.Next(version) || !tokens.Next(file_type)) {
      return LineError(lines_.line_number(), "expected 'version file-type data-size'");
    }
    if (file_type == "1") {
      return LineError(lines_.line_number(), "binary .msh is not supported, save as ASCII");
    }
    if (file_type != "0") {
      return LineError(lines_.line_number(),
                       absl::StrCat("file-type must be 0 (ASCII), got '", file_type, "'"));
    }
    if (version == "4.1") {
      version_major_ = 4;
    } else if (version.size() >= 1 && version[0] == '2' &&
               (version.size() == 1 || version[1] == '.')) {
      version_major_ = 2;
    } else {
      return LineError(lines_.line_number(), absl::StrCat("unsupported .msh format version ",
                                                          version, " (supported: 2.2 and 4.1)"));
    }
    return ExpectEnd("MeshFormat");
  }

  absl::Status SkipSection(absl::string_view name) {
    const int start = lines_.line_number();
    const std::string end = absl::StrCat("$End", name);
    absl::string_view line;
    while (NextNonEmpty(line)) {
      if (line == end) return absl::OkStatus();
    }
    return LineError(start, absl::StrCat("section $", name, " has no ", end));
  }

  absl::Status ParseNodesV2() {
    absl::string_view line;
    int64_t count = 0;
    RETURN_IF_ERROR(NextLine(line, "the node count"));
    RETURN_IF_ERROR(ReadInts(line, &count, 1, "number of nodes"));
    RETURN_IF_ERROR(CheckCount(count, options_.limits.max_vertices, "nodes"));
    Reserve(count);
    for (int64_t i = 0; i < count; ++i) {
      RETURN_IF_ERROR(NextLine(line, "nodes"));
      int64_t tag = 0;
      RETURN_IF_ERROR(ReadInts(line, &tag, 1, "node tag"));
      Tokens tokens(line);
      absl::string_view skipped;
      tokens.Next(skipped);
      RETURN_IF_ERROR(ReadNode(line.substr(skipped.size()), tag));
    }
    return ExpectEnd("Nodes");
  }

  absl::Status ParseNodesV4() {
    absl::string_view line;
    int64_t header[4];  // blocks, nodes, min tag, max tag
    RETURN_IF_ERROR(NextLine(line, "the $Nodes header"));
    RETURN_IF_ERROR(ReadInts(line, header, 4, "numEntityBlocks numNodes minNodeTag maxNodeTag"));
    RETURN_IF_ERROR(CheckCount(header[1], options_.limits.max_vertices, "nodes"));
    if (header[0] < 0) return LineError(lines_.line_number(), "negative block count");
    Reserve(header[1]);
    int64_t read = 0;
    std::vector<int64_t> block_tags;
    for (int64_t b = 0; b < header[0]; ++b) {
      int64_t block[4];  // dim, entity, parametric, nodes in block
      RETURN_IF_ERROR(NextLine(line, "a node block header"));
      RETURN_IF_ERROR(ReadInts(line, block, 4, "entityDim entityTag parametric numNodesInBlock"));
      if (block[3] < 0 || read + block[3] > header[1]) {
        return LineError(lines_.line_number(),
                         absl::StrCat("node block of ", block[3], " nodes overflows the ",
                                      header[1], " declared in the $Nodes header"));
      }
      read += block[3];
      block_tags.resize(block[3]);
      for (int64_t i = 0; i < block[3]; ++i) {
        RETURN_IF_ERROR(NextLine(line, "node tags"));
        RETURN_IF_ERROR(ReadInts(line, &block_tags[i], 1, "node tag"));
      }
      for (int64_t i = 0; i < block[3]; ++i) {
        RETURN_IF_ERROR(NextLine(line, "node coordinates"));
        RETURN_IF_ERROR(ReadNode(line, block_tags[i]));
      }
    }
    if (read != header[1]) {
      return LineError(lines_.line_number(), absl::StrCat("$Nodes header declares ", header[1],
                                                          " nodes but its blocks hold ", read));
    }
    return ExpectEnd("Nodes");
  }

  void Reserve(int64_t nodes) {
    node_tags_.reserve(node_tags_.size() + nodes);
    node_lines_.reserve(node_lines_.size() + nodes);
    coordinates_.reserve(coordinates_.size() + 3 * nodes);
  }

  absl::Status AddTet(const int64_t* corner_tags) {
    if (static_cast<int64_t>(tet_lines_.size()) >= options_.limits.max_elements) {
      return LineError(
          lines_.line_number(),
          absl::StrCat("more than ", internal::FormatCount(options_.limits.max_elements),
                       " tetrahedra, the limit"));
    }
    tet_tags_.insert(tet_tags_.end(), corner_tags, corner_tags + 4);
    tet_lines_.push_back(lines_.line_number());
    return absl::OkStatus();
  }

  absl::Status SecondOrderError() {
    return LineError(lines_.line_number(),
                     "second-order tetrahedra (element type 11) are not supported; export "
                     "first-order 4-node tets (type 4)");
  }

  absl::Status ParseElementsV2() {
    absl::string_view line;
    int64_t count = 0;
    RETURN_IF_ERROR(NextLine(line, "the element count"));
    RETURN_IF_ERROR(ReadInts(line, &count, 1, "number of elements"));
    if (count < 0) return LineError(lines_.line_number(), "negative element count");
    for (int64_t i = 0; i < count; ++i) {
      RETURN_IF_ERROR(NextLine(line, "elements"));
      int64_t head[3];  // tag, type, number of tags
      RETURN_IF_ERROR(ReadInts(line, head, 3, "elm-number elm-type number-of-tags"));
      if (head[1] == kSecondOrderTetType) return SecondOrderError();
      if (head[1] != kTetType) continue;
      if (head[2] < 0 || head[2] > 64) {
        return LineError(lines_.line_number(), absl::StrCat("bad number of tags ", head[2]));
      }
      int64_t values[3 + 64 + 4];
      RETURN_IF_ERROR(ReadInts(line, values, static_cast<int>(3 + head[2] + 4),
                               "tetrahedron tags and 4 node tags"));
      RETURN_IF_ERROR(AddTet(values + 3 + head[2]));
    }
    return ExpectEnd("Elements");
  }

  absl::Status ParseElementsV4() {
    absl::string_view line;
    int64_t header[4];  // blocks, elements, min tag, max tag
    RETURN_IF_ERROR(NextLine(line, "the $Elements header"));
    RETURN_IF_ERROR(
        ReadInts(line, header, 4, "numEntityBlocks numElements minElementTag maxElementTag"));
    if (header[0] < 0 || header[1] < 0) {
      return LineError(lines_.line_number(), "negative count in the $Elements header");
    }
    int64_t read = 0;
    for (int64_t b = 0; b < header[0]; ++b) {
      int64_t block[4];  // dim, entity, type, elements in block
      RETURN_IF_ERROR(NextLine(line, "an element block header"));
      RETURN_IF_ERROR(
          ReadInts(line, block, 4, "entityDim entityTag elementType numElementsInBlock"));
      if (block[2] == kSecondOrderTetType) return SecondOrderError();
      if (block[3] < 0 || read + block[3] > header[1]) {
        return LineError(lines_.line_number(),
                         absl::StrCat("element block of ", block[3], " elements overflows the ",
                                      header[1], " declared in the $Elements header"));
      }
      read += block[3];
      for (int64_t i = 0; i < block[3]; ++i) {
        RETURN_IF_ERROR(NextLine(line, "elements"));
        if (block[2] != kTetType) continue;
        int64_t values[5];  // tag, 4 node tags
        RETURN_IF_ERROR(ReadInts(line, values, 5, "element tag and 4 node tags"));
        RETURN_IF_ERROR(AddTet(values + 1));
      }
    }
    if (read != header[1]) {
      return LineError(lines_.line_number(), absl::StrCat("$Elements header declares ", header[1],
                                                          " elements but its blocks hold ", read));
    }
    return ExpectEnd("Elements");
  }

  // Node tags -> compact indices over the nodes the tets use, in increasing tag order.
  absl::StatusOr<TetMesh> Build() {
    const int64_t num_nodes = static_cast<int64_t>(node_tags_.size());
    std::vector<int64_t> order(num_nodes);
    for (int64_t i = 0; i < num_nodes; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return node_tags_[a] < node_tags_[b] || (node_tags_[a] == node_tags_[b] && a < b);
    });
    for (int64_t i = 1; i < num_nodes; ++i) {
      if (node_tags_[order[i]] == node_tags_[order[i - 1]]) {
        return LineError(node_lines_[order[i]],
                         absl::StrCat("node tag ", node_tags_[order[i]],
                                      " already defined on line ", node_lines_[order[i - 1]]));
      }
    }
    // Each tet corner becomes a position in `order`; `used` marks the nodes that survive.
    std::vector<int64_t> sorted_tags(num_nodes);
    for (int64_t i = 0; i < num_nodes; ++i) sorted_tags[i] = node_tags_[order[i]];
    std::vector<int32_t> rank(num_nodes, -1);
    std::vector<int64_t> corner_rank(tet_tags_.size());
    for (size_t c = 0; c < tet_tags_.size(); ++c) {
      auto it = std::lower_bound(sorted_tags.begin(), sorted_tags.end(), tet_tags_[c]);
      if (it == sorted_tags.end() || *it != tet_tags_[c]) {
        return LineError(tet_lines_[c / 4], absl::StrCat("tetrahedron uses node tag ", tet_tags_[c],
                                                         ", which $Nodes does not define"));
      }
      corner_rank[c] = it - sorted_tags.begin();
      rank[corner_rank[c]] = 0;
    }
    int32_t next = 0;
    for (int64_t i = 0; i < num_nodes; ++i) {
      if (rank[i] == 0) rank[i] = next++;
    }
    Points3 vertices(next, 3);
    for (int64_t i = 0; i < num_nodes; ++i) {
      if (rank[i] < 0) continue;
      for (int c = 0; c < 3; ++c) vertices(rank[i], c) = coordinates_[3 * order[i] + c];
    }
    IndexQuads tets(static_cast<Eigen::Index>(tet_lines_.size()), 4);
    for (size_t c = 0; c < tet_tags_.size(); ++c) tets.data()[c] = rank[corner_rank[c]];
    return TetMesh::Create(std::move(vertices), std::move(tets), options_);
  }

  LineReader lines_;
  const MeshOptions& options_;
  int version_major_ = 0;
  std::vector<int64_t> node_tags_;
  std::vector<int> node_lines_;
  std::vector<double> coordinates_;  // 3 per node, in file order
  std::vector<int64_t> tet_tags_;    // 4 node tags per tet
  std::vector<int> tet_lines_;       // line of each tet
};

}  // namespace

absl::StatusOr<TetMesh> ParseGmsh(std::string_view text, const MeshOptions& options) {
  return GmshParser(absl::string_view(text.data(), text.size()), options).Parse();
}

absl::StatusOr<TetMesh> ReadGmsh(const std::filesystem::path& path, const MeshOptions& options) {
  ASSIGN_OR_RETURN(std::string text, internal::ReadTextFile(path));
  absl::StatusOr<TetMesh> mesh = ParseGmsh(text, options);
  if (!mesh.ok()) return internal::PrefixWithPath(mesh.status(), path);
  return mesh;
}

}  // namespace contactsim::core
