// Step 4 of the CCD scheme for one active pair (penalty_pipeline.h): the normal impulse I_p on
// the collision point p (-I_p on q, shared by the weights, penalty_pair.h) over the pair's
// penetration intervals, by the contact model:
//   kCpf          closed form over the intervals (cpf.h)
//   kCpfExact     exact unit normal, adaptive quadrature (cpf_exact.h)
//   kDpfCcdNormal dt k delta(1) n(1) with the tracked points and normal (dpf.h, *WithNormal)
//   kDpf          dt k delta(1) n(1) at the closest point of the features at t = 1 (dpf.h)
// A degenerate pair (PenaltyStatus other than kOk) gets no impulse; otherwise the pair's last
// normal becomes the model's normal at t = 1.
#pragma once

#include "core/sim/penalty/pair_evaluation.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

// Fills work's normal impulses, status, convergence and normal_t1, and updates work->pair's
// normal. settings.contact_model is one of the four CCD models.
void ComputePairNormalImpulse(const WorldSettings& settings, PairWork* work);

}  // namespace contactsim::core
