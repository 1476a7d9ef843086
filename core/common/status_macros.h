// Status propagation helpers for absl::Status / absl::StatusOr at module boundaries.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define CONTACTSIM_CONCAT_INNER(a, b) a##b
#define CONTACTSIM_CONCAT(a, b) CONTACTSIM_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define RETURN_IF_ERROR(expr)                                         \
  do {                                                                \
    if (absl::Status _status = (expr); !_status.ok()) return _status; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, StatusOrExpr());` unwraps the value or returns the error.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL(CONTACTSIM_CONCAT(_status_or_, __LINE__), lhs, rexpr)

#define ASSIGN_OR_RETURN_IMPL(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                          \
  if (!statusor.ok()) return statusor.status();     \
  lhs = std::move(statusor).value()
