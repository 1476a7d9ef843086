// Warm start of the contact multipliers of a local-global step from the previous step's (see
// LocalGlobalOptions::contact_warm_start and docs/local_global.md).
//
// A contact of the current step takes the force of the previous step's contact of the same kind
// between the same body vertices and obstacle (contact_frame.h) whose normal is closest to its own
// (within 60 degrees; the obstacle feature may change, e.g. for a vertex over an edge shared by
// coplanar triangles, where round-off picks either triangle). The
// previous force f = lambda_n n + lambda_1 t1 + lambda_2 t2 [N] is re-expressed in the current
// frame (lambda'_a = f . a for a in (n', t1', t2')): half-space frames never change, so their
// values carry over unchanged; a mesh contact's normal follows its closest point and turns a
// little from step to step. Contacts without a match start from 0.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "core/dynamics/local_global/contact_frame.h"

namespace contactsim::core {

// previous_lambda and *lambda: 3 per contact. *lambda must be sized for `current`; matched
// entries are overwritten, the others left as they are.
void WarmStartContactForces(const std::vector<VertexContact>& previous,
                            const Eigen::VectorXd& previous_lambda,
                            const std::vector<VertexContact>& current, Eigen::VectorXd* lambda);

}  // namespace contactsim::core
