#include "core/sim/step_diagnostics.h"

namespace contactsim::core {

const char* DivergenceKindName(DivergenceKind kind) {
  switch (kind) {
    case DivergenceKind::kNone:
      return "none";
    case DivergenceKind::kNonFinite:
      return "non-finite state";
    case DivergenceKind::kEnergyBlowUp:
      return "energy blow-up";
    case DivergenceKind::kPipelineError:
      return "pipeline error";
  }
  return "unknown";
}

}  // namespace contactsim::core
