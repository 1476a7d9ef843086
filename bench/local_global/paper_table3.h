// Zeng et al. 2024, Table 3 (arXiv text, Sec. 7): the paper's row for each benchmark case.
#pragma once

#include <string>

namespace contactsim::core::local_global_bench {

// One row: S [MB], max contacts, then the time columns [ms]: Schur., Local*, Global, Assem.,
// Cst. Solve, Corr., Cst. Global, Frame max*. NaN where the paper prints N/A. Their Local* runs
// on a CPU, the rest on an RTX GPU.
struct PaperRow {
  const char* label;
  double s_mb, contacts, schur, local, global, assem, cst_solve, corr, cst_global, frame;
};

// The row of a case, nullptr where the paper has none.
const PaperRow* PaperRowOf(const std::string& name);

}  // namespace contactsim::core::local_global_bench
