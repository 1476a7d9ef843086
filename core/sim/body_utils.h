// Helpers over the Body interface for the World and its pipelines: a body's reference origin for
// contact totals, its collision vertices, whether contacts can move it, and a deep copy.
//
// Origin (ContactReport's p_WBo): the centre of mass, p = sum_i m_i x_i / sum_i m_i over the
// free vertices of a deformable (the mean of all vertices when every vertex is pinned), and
// p_WB for a rigid body (for a body without mass: the origin of its frame B).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/contact/contact_report.h"
#include "core/dynamics/body.h"
#include "core/linalg/backend.h"
#include "core/sim/sim_body.h"

namespace contactsim::core {

Vec3 BodyOriginOf(const Body& body);

// Vertices referenced by a face of body.surface(), ascending.
std::vector<int32_t> SurfaceVertices(const Body& body);

// True when every vertex has inverse mass 0 (static, kinematic or fully pinned bodies).
bool IsImmovable(const Body& body);

// report->body_totals from report->contacts: one entry per body, in the order given, about each
// body's origin (AccumulateBodyTotals). Its errors are passed through.
absl::Status FillBodyTotals(std::span<const SimBody> bodies, ContactReport* report);

// A copy of the body with all its state (RigidBody, MassSpringCloth, CorotationalFem or
// HyperelasticBody, whose solver is rebuilt on `backend`, the World's).
// Unimplemented for any other Body class; the backend's errors pass through.
absl::StatusOr<std::unique_ptr<Body>> CloneBody(const Body& body,
                                                const std::shared_ptr<Backend>& backend);
// Puts a body that runs solvers on a backend (HyperelasticBody) on `backend`, rebuilding its
// solver when it was built on another one; nothing to do for other bodies. An error (the
// backend's, e.g. ResourceExhausted naming a memory budget) leaves the body as it was.
absl::Status MoveBodyToBackend(Body& body, const std::shared_ptr<Backend>& backend);
// Frees what a body keeps on its backend only for stepping (a HyperelasticBody's factorization:
// HyperelasticBody::ReleaseSolverFactors), for copies that are only restored from (snapshots);
// a copy of it is factored anew. Nothing to do for other bodies.
void ReleaseStepOnlyMemory(Body& body);

}  // namespace contactsim::core
