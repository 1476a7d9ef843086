// Text form of one CCD query, one per line, used to exchange queries with other CCD
// implementations (tools/ccd_query reads it; FormatCcdQuery writes it, e.g. to dump the pairs of
// a simulation step for replay):
//
//   vf  px py pz  ax ay az  bx by bz  cx cy cz   (the four points at t = 0)
//       px py pz  ax ay az  bx by bz  cx cy cz   (the same four points at t = 1)
//   ee  ax ay az  bx by bz  cx cy cz  dx dy dz   (edge a-b, then edge c-d, at t = 0)
//       ...                                      (the same four points at t = 1)
//
// i.e. the kind, then the 24 coordinates [m] of PairTrajectory::x_t0 followed by x_t1, all on one
// line, separated by spaces or tabs. Blank lines and lines whose first non-blank character is '#'
// carry no query. Coordinates are finite decimal numbers as std::from_chars reads them (an
// optional leading '+' is accepted); the kind is lower case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/collision/ccd/ccd_types.h"

namespace contactsim::core {

enum class CcdQueryKind : uint8_t {
  kVertexFace = 0,  // "vf": points {p, a, b, c}
  kEdgeEdge = 1,    // "ee": points {a, b, c, d}
};

struct CcdQuery {
  CcdQueryKind kind = CcdQueryKind::kVertexFace;
  PairTrajectory trajectory = {{Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()},
                               {Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()}};
};

// Parses one line (without its newline; a trailing '\r' is ignored). Returns the query,
// std::nullopt for a blank or comment line, or InvalidArgument with a message naming the
// problem, e.g. "expected 24 numbers after 'vf', got 23", "unknown query kind 'vx' (expected 'vf'
// or 'ee')", "number 5 after 'ee' is not a number: 'abc'", "number 2 after 'vf' is not finite:
// 'nan'", "number 9 after 'vf' is out of the range of double: '1e400'".
absl::StatusOr<std::optional<CcdQuery>> ParseCcdQueryLine(std::string_view line);

// The line for `query` (no newline), with each coordinate in the shortest form that reads back
// to the same double, so ParseCcdQueryLine(FormatCcdQuery(q)) reproduces q bit for bit.
std::string FormatCcdQuery(const CcdQuery& query);

}  // namespace contactsim::core
