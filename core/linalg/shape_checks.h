// The operand-shape checks every Backend makes, in one place so that the CPU and CUDA backends
// refuse the same inputs with the same messages. Shapes are (rows, cols).
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace contactsim::core {

struct Shape {
  int64_t rows = 0;
  int64_t cols = 0;
};

// Y <- op(A) X: x is op(a).cols x k, y is op(a).rows x k.
inline absl::Status CheckSpMMShapes(Shape op_a, Shape x, Shape y) {
  if (x.rows != op_a.cols || y.rows != op_a.rows || x.cols != y.cols) {
    return absl::InvalidArgumentError(absl::StrCat("x/y: shapes ", x.rows, "x", x.cols, " and ",
                                                   y.rows, "x", y.cols, " do not match op(a) ",
                                                   op_a.rows, "x", op_a.cols));
  }
  return absl::OkStatus();
}

// C <- A B.
inline absl::Status CheckGemmShapes(Shape a, Shape b, Shape c) {
  if (a.cols != b.rows || c.rows != a.rows || c.cols != b.cols) {
    return absl::InvalidArgumentError(absl::StrCat("a/b/c: shapes ", a.rows, "x", a.cols, ", ",
                                                   b.rows, "x", b.cols, " and ", c.rows, "x",
                                                   c.cols, " do not match C = A B"));
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core
