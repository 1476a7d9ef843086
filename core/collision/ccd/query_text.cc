#include "core/collision/ccd/query_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace contactsim::core {
namespace {

constexpr int kNumbersPerQuery = 24;  // 4 points x 3 coordinates x 2 times

bool IsBlank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f'; }

// Splits off the next blank-separated token of `rest`; empty at the end of the line.
std::string_view NextToken(std::string_view& rest) {
  size_t begin = 0;
  while (begin < rest.size() && IsBlank(rest[begin])) ++begin;
  size_t end = begin;
  while (end < rest.size() && !IsBlank(rest[end])) ++end;
  const std::string_view token = rest.substr(begin, end - begin);
  rest.remove_prefix(end);
  return token;
}

// Quotes a token for a message, shortened so that a garbage line cannot flood the output.
std::string Quoted(std::string_view token) {
  constexpr size_t kMaxShown = 40;
  if (token.size() <= kMaxShown) return absl::StrFormat("'%s'", std::string(token));
  return absl::StrFormat("'%s...'", std::string(token.substr(0, kMaxShown)));
}

}  // namespace

absl::StatusOr<std::optional<CcdQuery>> ParseCcdQueryLine(std::string_view line) {
  std::string_view rest = line;
  const std::string_view kind_token = NextToken(rest);
  if (kind_token.empty() || kind_token.front() == '#') return std::nullopt;

  CcdQuery query;
  if (kind_token == "vf") {
    query.kind = CcdQueryKind::kVertexFace;
  } else if (kind_token == "ee") {
    query.kind = CcdQueryKind::kEdgeEdge;
  } else {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown query kind %s (expected 'vf' or 'ee')", Quoted(kind_token)));
  }
  const std::string kind(kind_token);

  std::array<double, kNumbersPerQuery> numbers{};
  int count = 0;
  for (std::string_view token = NextToken(rest); !token.empty(); token = NextToken(rest)) {
    ++count;
    if (count > kNumbersPerQuery) continue;  // only counted, for the message below
    // from_chars takes no leading '+'; a sign belongs to a number only when one follows.
    std::string_view digits = token;
    if (digits.size() > 1 && digits.front() == '+' && digits[1] != '-' && digits[1] != '+') {
      digits.remove_prefix(1);
    }
    double value = 0.0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error == std::errc::result_out_of_range) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "number %d after '%s' is out of the range of double: %s", count, kind, Quoted(token)));
    }
    if (error != std::errc() || end != digits.data() + digits.size()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("number %d after '%s' is not a number: %s", count, kind, Quoted(token)));
    }
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("number %d after '%s' is not finite: %s", count, kind, Quoted(token)));
    }
    numbers[count - 1] = value;
  }
  if (count != kNumbersPerQuery) {
    return absl::InvalidArgumentError(
        absl::StrFormat("expected %d numbers after '%s', got %d", kNumbersPerQuery, kind, count));
  }
  for (int point = 0; point < 4; ++point) {
    query.trajectory.x_t0[point] =
        Vec3(numbers[3 * point], numbers[3 * point + 1], numbers[3 * point + 2]);
    query.trajectory.x_t1[point] =
        Vec3(numbers[12 + 3 * point], numbers[12 + 3 * point + 1], numbers[12 + 3 * point + 2]);
  }
  return query;
}

std::string FormatCcdQuery(const CcdQuery& query) {
  std::string line = query.kind == CcdQueryKind::kVertexFace ? "vf" : "ee";
  // Shortest round-trip form: at most 24 characters per double ("-2.2250738585072014e-308").
  char buffer[32];
  for (const auto* points : {&query.trajectory.x_t0, &query.trajectory.x_t1}) {
    for (const Vec3& point : *points) {
      for (int k = 0; k < 3; ++k) {
        const std::to_chars_result written =
            std::to_chars(buffer, buffer + sizeof(buffer), point[k]);
        line += ' ';
        line.append(buffer, written.ptr);
      }
    }
  }
  return line;
}

}  // namespace contactsim::core
