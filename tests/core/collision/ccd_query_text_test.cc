#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/collision/ccd/query_text.h"

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

// "vf 1 2 ... 24" style lines: `count` numbers 1, 2, ..., count after the kind, each preceded
// by a space (so an empty kind gives " 1 2 ...").
std::string CountingLine(const std::string& kind, int count) {
  std::string line = kind;
  for (int i = 1; i <= count; ++i) absl::StrAppend(&line, " ", i);
  return line;
}

void ExpectError(const std::string& line, const std::string& message) {
  SCOPED_TRACE(absl::StrCat("line: ", line));
  const absl::StatusOr<std::optional<CcdQuery>> parsed = ParseCcdQueryLine(line);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(), message);
}

TEST(ParseCcdQueryLineTest, VertexFaceLineFillsT0ThenT1) {
  const absl::StatusOr<std::optional<CcdQuery>> parsed = ParseCcdQueryLine(CountingLine("vf", 24));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->has_value());
  const CcdQuery& query = **parsed;
  EXPECT_EQ(query.kind, CcdQueryKind::kVertexFace);
  for (int point = 0; point < 4; ++point) {
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(query.trajectory.x_t0[point][k], 1 + 3 * point + k);
      EXPECT_EQ(query.trajectory.x_t1[point][k], 13 + 3 * point + k);
    }
  }
}

TEST(ParseCcdQueryLineTest, EdgeEdgeLineWithMixedBlanksAndNumberForms) {
  // Tabs, repeated spaces, leading/trailing blanks, a CRLF ending, '+', exponents, -0, ".5".
  const std::string line =
      "  ee\t+1 -2.5e-3  3E2 .5 -0 6\t7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 1e+2 \r";
  const absl::StatusOr<std::optional<CcdQuery>> parsed = ParseCcdQueryLine(line);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->has_value());
  const CcdQuery& query = **parsed;
  EXPECT_EQ(query.kind, CcdQueryKind::kEdgeEdge);
  EXPECT_EQ(query.trajectory.x_t0[0], Vec3(1.0, -2.5e-3, 300.0));
  EXPECT_EQ(query.trajectory.x_t0[1][0], 0.5);
  EXPECT_TRUE(std::signbit(query.trajectory.x_t0[1][1]));  // "-0" keeps its sign
  EXPECT_EQ(query.trajectory.x_t1[3], Vec3(22.0, 23.0, 100.0));
}

TEST(ParseCcdQueryLineTest, BlankAndCommentLinesCarryNoQuery) {
  for (const std::string line : {"", "   ", "\t \r", "# a comment", "   #vf 1 2 3", "#"}) {
    SCOPED_TRACE(absl::StrCat("line: '", line, "'"));
    const absl::StatusOr<std::optional<CcdQuery>> parsed = ParseCcdQueryLine(line);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_FALSE(parsed->has_value());
  }
}

TEST(ParseCcdQueryLineTest, UnknownKind) {
  ExpectError(CountingLine("vx", 24), "unknown query kind 'vx' (expected 'vf' or 'ee')");
  ExpectError(CountingLine("VF", 24), "unknown query kind 'VF' (expected 'vf' or 'ee')");
  ExpectError("1 2 3", "unknown query kind '1' (expected 'vf' or 'ee')");
  // A long garbage token is shortened to 40 characters in the message.
  ExpectError(std::string(100, 'x'), absl::StrCat("unknown query kind '", std::string(40, 'x'),
                                                  "...' (expected 'vf' or 'ee')"));
}

TEST(ParseCcdQueryLineTest, WrongCountOfNumbers) {
  ExpectError(CountingLine("vf", 23), "expected 24 numbers after 'vf', got 23");
  ExpectError(CountingLine("ee", 25), "expected 24 numbers after 'ee', got 25");
  ExpectError("vf", "expected 24 numbers after 'vf', got 0");
  ExpectError(CountingLine("ee", 40), "expected 24 numbers after 'ee', got 40");
}

TEST(ParseCcdQueryLineTest, TokensThatAreNotNumbers) {
  for (const std::string bad : {"abc", "1e", "0x10", "1,5", "--1", "+", "+-1", "1.2.3", "#"}) {
    const std::string line = absl::StrCat(CountingLine("ee", 4), " ", bad, CountingLine("", 19));
    ExpectError(line, absl::StrCat("number 5 after 'ee' is not a number: '", bad, "'"));
  }
}

TEST(ParseCcdQueryLineTest, NonFiniteAndOutOfRangeNumbers) {
  for (const std::string bad : {"nan", "NaN", "inf", "-inf", "+inf", "infinity"}) {
    const std::string line = absl::StrCat("vf 1 ", bad, CountingLine("", 22));
    ExpectError(line, absl::StrCat("number 2 after 'vf' is not finite: '", bad, "'"));
  }
  for (const std::string bad : {"1e400", "-1e400", "1e-400"}) {
    const std::string line = absl::StrCat(CountingLine("vf", 8), " ", bad, CountingLine("", 15));
    ExpectError(line,
                absl::StrCat("number 9 after 'vf' is out of the range of double: '", bad, "'"));
  }
}

TEST(ParseCcdQueryLineTest, ErrorMessageNamesTheFirstBadNumber) {
  // A bad token is reported before the count, since it usually explains a wrong count.
  const absl::StatusOr<std::optional<CcdQuery>> parsed = ParseCcdQueryLine("vf 1 2 x");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()), HasSubstr("number 3"));
}

// Formatting then parsing reproduces every coordinate bit for bit, including -0, subnormals and
// the extremes of double.
TEST(FormatCcdQueryTest, RoundTripsExactly) {
  std::mt19937_64 rng(42);
  const double specials[] = {0.0,
                             -0.0,
                             std::numeric_limits<double>::denorm_min(),
                             -std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::lowest(),
                             0.1,
                             1.0 / 3.0};
  for (int trial = 0; trial < 1000; ++trial) {
    CcdQuery query;
    query.kind = trial % 2 == 0 ? CcdQueryKind::kVertexFace : CcdQueryKind::kEdgeEdge;
    for (int point = 0; point < 4; ++point) {
      for (int k = 0; k < 3; ++k) {
        for (Vec3* x : {&query.trajectory.x_t0[point], &query.trajectory.x_t1[point]}) {
          // Random finite bit patterns cover every exponent; some specials mixed in.
          double value;
          do {
            value = std::bit_cast<double>(rng());
          } while (!std::isfinite(value));
          if (rng() % 8 == 0) value = specials[rng() % std::size(specials)];
          (*x)[k] = value;
        }
      }
    }
    const std::string line = FormatCcdQuery(query);
    const absl::StatusOr<std::optional<CcdQuery>> parsed = ParseCcdQueryLine(line);
    ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << line;
    ASSERT_TRUE(parsed->has_value());
    EXPECT_EQ((*parsed)->kind, query.kind);
    for (int point = 0; point < 4; ++point) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(std::bit_cast<uint64_t>((*parsed)->trajectory.x_t0[point][k]),
                  std::bit_cast<uint64_t>(query.trajectory.x_t0[point][k]))
            << line;
        EXPECT_EQ(std::bit_cast<uint64_t>((*parsed)->trajectory.x_t1[point][k]),
                  std::bit_cast<uint64_t>(query.trajectory.x_t1[point][k]))
            << line;
      }
    }
    if (HasFailure()) break;
  }
}

TEST(FormatCcdQueryTest, WritesKindThenT0ThenT1) {
  CcdQuery query;
  query.kind = CcdQueryKind::kEdgeEdge;
  query.trajectory.x_t0[0] = Vec3(1, 2, 3);
  query.trajectory.x_t1[3] = Vec3(-0.5, 0, 1e-300);
  EXPECT_EQ(FormatCcdQuery(query), "ee 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -0.5 0 1e-300");
}

}  // namespace
}  // namespace contactsim::core
