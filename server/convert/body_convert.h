// contactsim.v1.BodySpec -> a core Body ready for World::AddBody, and core bodies -> BodyState.
// Checks everything the message alone determines (kind, mesh, material, pose, velocities, pins)
// with errors naming the field; session-dependent checks (name clashes, body limit) are the
// Session's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "contactsim/v1/scene.pb.h"
#include "core/dynamics/body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/world.h"
#include "core/sim/world_state.h"
#include "server/common/limits.h"

namespace contactsim::server {

struct NewBody {
  std::unique_ptr<core::Body> body;
  core::BodyOptions options;
  double mass_kg = 0.0;                                // 0 for static and kinematic bodies
  core::Vec3 center_of_mass_M_m = core::Vec3::Zero();  // dynamic rigid: in the mesh frame
};

// The most bytes a hyperelastic body's first factorization may put on the session's backend
// (LocalGlobalOptions::max_factor_backend_bytes) and the budget that leaves them, named in the
// refusal; bytes < 0: no limit (0: no room).
struct FactorRoom {
  int64_t bytes = -1;
  std::string budget;  // e.g. "the server's per-session memory budget"
  std::string flag;    // e.g. "--session-memory-budget"
};

// ResourceExhausted naming the mesh field when its vertex or element count exceeds the limits;
// Internal for mesh_id: the service resolves uploaded meshes first (mesh_upload.h).
// A `primitive` mesh is generated here (primitive_convert.h), its counts checked before it is
// built.
// A hyperelastic body is factored for world_settings.dt_s and takes the solver options of
// world_settings.local_global (the session's settings), and its solver is built on `backend`
// (the session's World's; required for hyperelastic bodies, unused by the others): the backend's
// errors keep their code (ResourceExhausted naming the device memory budget). A factor over
// `factor_room` is refused before it is built: ResourceExhausted "<field>: the local_global
// factor would put B bytes on the session's backend, over the R bytes <budget> leaves (<flag>)".
absl::StatusOr<NewBody> BodyFromProto(const v1::BodySpec& message, const ServerLimits& limits,
                                      std::string_view field,
                                      const core::WorldSettings& world_settings = {},
                                      std::shared_ptr<core::Backend> backend = nullptr,
                                      const FactorRoom& factor_room = {});

// Whether a body of this kind is made from a tetrahedral mesh (FEM and hyperelastic bodies) rather
// than a triangle mesh: the one place that knows it (BodyFromProto, uploaded meshes).
bool BodyKindTakesTets(v1::BodyKind kind);

// The wire kind of a body (rigid_kind matters only for BodyType::kRigid).
v1::BodyKind BodyKindOf(core::BodyType type, core::RigidBodyKind rigid_kind);
v1::BodyKind BodyKindOf(const core::Body& body);
// A body's state copy written into `out` in place.
void FillBodyState(const core::BodyStateCopy& body, v1::BodyState* out);
// The same with only the parts asked (StepReplyParts): poses and velocities of rigid bodies,
// positions and velocities of deformables' vertices.
void FillBodyState(const core::BodyStateCopy& body, bool poses, bool velocities,
                   bool vertex_positions, v1::BodyState* out);

}  // namespace contactsim::server
