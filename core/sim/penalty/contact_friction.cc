#include "core/sim/penalty/contact_friction.h"

#include <algorithm>

namespace contactsim::core {

void FrictionShares::Reset(const StepInput& input) {
  counts_.resize(input.bodies.size());
  whole_body_.assign(input.bodies.size(), 0);
  for (size_t bi = 0; bi < input.bodies.size(); ++bi) {
    const Body& body = *input.bodies[bi].body;
    whole_body_[bi] = body.type() == BodyType::kRigid;
    counts_[bi].assign(whole_body_[bi] ? 1 : body.num_vertices(), 0);
  }
}

int32_t FrictionShares::Share(int32_t body_index, int32_t vertex) const {
  const std::vector<int32_t>& counts = counts_[body_index];
  return std::max<int32_t>(1, counts[whole_body_[body_index] ? 0 : vertex]);
}

}  // namespace contactsim::core
