#include "core/geometry/ply_header_check.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/geometry/text_input.h"

namespace contactsim::core::internal {
namespace {

constexpr std::array<std::string_view, 16> kScalarTypes = {
    "char", "uchar", "short", "ushort", "int",   "uint",   "float",   "double",
    "int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"};

bool IsScalarType(std::string_view type) {
  return std::find(kScalarTypes.begin(), kScalarTypes.end(), type) != kScalarTypes.end();
}

bool IsCount(std::string_view token) {
  return !token.empty() && token.size() <= 12 &&
         std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
}

absl::Status Bad(int line, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("ply header line ", line, ": ", std::string(what)));
}

}  // namespace

bool LooksLikePly(std::string_view data) {
  return data.size() >= 4 && data.substr(0, 3) == "ply" && (data[3] == '\n' || data[3] == '\r');
}

absl::Status CheckPlyHeader(std::string_view data) {
  LineReader lines(absl::string_view(data.data(), data.size()));
  absl::string_view line;
  if (!lines.Next(line) || line != "ply") return Bad(1, "expected 'ply'");
  bool have_format = false, in_element = false;
  while (lines.Next(line)) {
    const int number = lines.line_number();
    std::vector<std::string_view> words;
    Tokens tokens(line);
    for (absl::string_view word; tokens.Next(word);) words.emplace_back(word.data(), word.size());
    if (words.empty()) return Bad(number, "empty line");
    const std::string_view keyword = words[0];
    if (keyword == "end_header") {
      if (!have_format) return Bad(number, "no format line before end_header");
      return absl::OkStatus();
    }
    if (keyword == "comment" || keyword == "obj_info") continue;
    if (keyword == "format") {
      if (have_format || words.size() != 3 ||
          (words[1] != "ascii" && words[1] != "binary_little_endian" &&
           words[1] != "binary_big_endian") ||
          words[2] != "1.0") {
        return Bad(number,
                   "expected one 'format ascii|binary_little_endian|binary_big_endian 1.0'");
      }
      have_format = true;
    } else if (keyword == "element") {
      if (words.size() != 3 || !IsCount(words[2])) {
        return Bad(number, "expected 'element NAME COUNT'");
      }
      in_element = true;
    } else if (keyword == "property") {
      if (!in_element) return Bad(number, "a property before any element");
      const bool scalar = words.size() == 3 && IsScalarType(words[1]);
      const bool list = words.size() == 5 && words[1] == "list" && IsScalarType(words[2]) &&
                        IsScalarType(words[3]);
      if (!scalar && !list) {
        return Bad(number,
                   "expected 'property TYPE NAME' or 'property list TYPE TYPE NAME' with "
                   "PLY's types (char, uchar, short, ..., float, double)");
      }
    } else {
      return Bad(number,
                 absl::StrCat("unknown keyword '", std::string(keyword.substr(0, 32)), "'"));
    }
  }
  return Bad(lines.line_number(), "the header has no end_header");
}

}  // namespace contactsim::core::internal
