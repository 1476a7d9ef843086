#include "core/geometry/text_input.h"

#include <fstream>
#include <iterator>
#include <system_error>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core::internal {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

bool LineReader::Next(absl::string_view& line) {
  if (pos_ >= text_.size()) return false;
  size_t end = text_.find('\n', pos_);
  if (end == absl::string_view::npos) end = text_.size();
  line = text_.substr(pos_, end - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = end + 1;
  ++line_number_;
  return true;
}

bool Tokens::Next(absl::string_view& token) {
  size_t begin = 0;
  while (begin < rest_.size() && IsBlank(rest_[begin])) ++begin;
  if (begin == rest_.size()) {
    rest_ = {};
    return false;
  }
  size_t end = begin;
  while (end < rest_.size() && !IsBlank(rest_[end])) ++end;
  token = rest_.substr(begin, end - begin);
  rest_.remove_prefix(end);
  return true;
}

absl::string_view Trim(absl::string_view line) {
  while (!line.empty() && IsBlank(line.front())) line.remove_prefix(1);
  while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
  return line;
}

bool ParseInt64(absl::string_view token, int64_t& value) { return absl::SimpleAtoi(token, &value); }

bool ParseDouble(absl::string_view token, double& value) { return absl::SimpleAtod(token, &value); }

absl::Status LineError(int line_number, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line_number, ": ", message));
}

absl::StatusOr<std::string> ReadTextFile(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(absl::StrCat(path.string(), ": no such file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path.string(), ": cannot be opened"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrCat(path.string(), ": read failed"));
  return text;
}

absl::Status PrefixWithPath(const absl::Status& status, const std::filesystem::path& path) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(path.string(), ": ", status.message()));
}

}  // namespace contactsim::core::internal
