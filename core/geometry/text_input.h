// Small text-reading helpers for the mesh file parsers (Gmsh, TetGen): numbered lines,
// whitespace-separated tokens without allocation, number parsing, and reading a whole file.
// Internal to core/geometry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace contactsim::core::internal {

// Walks `text` one line at a time; line numbers start at 1. "\r\n" endings are accepted.
class LineReader {
 public:
  explicit LineReader(absl::string_view text) : text_(text) {}
  // Sets `line` to the next line without its terminator; false at the end of the text.
  bool Next(absl::string_view& line);
  // Number of the line last returned by Next() (0 before the first call).
  int line_number() const { return line_number_; }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
  int line_number_ = 0;
};

// Whitespace-separated tokens of one line.
class Tokens {
 public:
  explicit Tokens(absl::string_view line) : rest_(line) {}
  // Sets `token` to the next token; false when none is left.
  bool Next(absl::string_view& token);

 private:
  absl::string_view rest_;
};

// `line` without leading and trailing blanks.
absl::string_view Trim(absl::string_view line);

// Whole-token parses; false on any trailing garbage or overflow.
bool ParseInt64(absl::string_view token, int64_t& value);
bool ParseDouble(absl::string_view token, double& value);

// InvalidArgument "line 12: <message>".
absl::Status LineError(int line_number, absl::string_view message);

// Reads a whole file: NotFound "<path>: no such file" when it does not exist.
absl::StatusOr<std::string> ReadTextFile(const std::filesystem::path& path);

// Same code, message prefixed with "<path>: ".
absl::Status PrefixWithPath(const absl::Status& status, const std::filesystem::path& path);

}  // namespace contactsim::core::internal
