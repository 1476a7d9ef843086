// RigidBody record: mesh (mesh coordinates) | kind u8 | mass f64 | centre of mass in mesh
// coordinates (3 f64) | inertia about it (9 f64, row-major) | p_WB (3) | q_WB (w, x, y, z) |
// v_WB (3) | w_WB (3) | pending force (3) | pending torque (3).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/sim/serialization/body_codec.h"
#include "core/sim/serialization/mesh_codec.h"

namespace contactsim::core::serialization {
namespace {

absl::Status Prefixed(const std::string& field, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", status.message()));
}

}  // namespace

void WriteRigidBody(const RigidBody& body, ByteWriter* out) {
  WriteTriangleMesh(body.surface(), out);
  out->U8(static_cast<uint8_t>(body.kind()));
  out->F64(body.mass_kg());
  out->Vec(body.center_of_mass_mesh_m());
  const Mat3& inertia = body.inertia_body_kg_m2();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) out->F64(inertia(r, c));
  }
  const RigidBodyState& state = body.state();
  out->Vec(state.p_WB_m);
  out->F64(state.q_WB.w());
  out->F64(state.q_WB.x());
  out->F64(state.q_WB.y());
  out->F64(state.q_WB.z());
  out->Vec(state.v_WB_m_per_s);
  out->Vec(state.w_WB_rad_per_s);
  out->Vec(body.pending_force_n());
  out->Vec(body.pending_torque_n_m());
}

absl::StatusOr<std::unique_ptr<RigidBody>> ReadRigidBody(ByteReader* in, std::string_view field) {
  const std::string name(field);
  ASSIGN_OR_RETURN(TriangleMesh mesh, ReadTriangleMesh(in, name + ".mesh"));
  const uint8_t kind_code = in->U8(name + ".kind");
  const double mass_kg = in->FiniteF64(name + ".mass_kg");
  const Vec3 center_of_mass = in->FiniteVec(name + ".center_of_mass_mesh_m");
  Mat3 inertia;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) inertia(r, c) = in->FiniteF64(name + ".inertia_kg_m2");
  }
  RigidBodyState state;
  state.p_WB_m = in->FiniteVec(name + ".p_WB_m");
  const double w = in->FiniteF64(name + ".q_WB");
  const double x = in->FiniteF64(name + ".q_WB");
  const double y = in->FiniteF64(name + ".q_WB");
  const double z = in->FiniteF64(name + ".q_WB");
  state.q_WB = Eigen::Quaterniond(w, x, y, z);
  state.v_WB_m_per_s = in->FiniteVec(name + ".v_WB_m_per_s");
  state.w_WB_rad_per_s = in->FiniteVec(name + ".w_WB_rad_per_s");
  const Vec3 force = in->FiniteVec(name + ".pending_force_n");
  const Vec3 torque = in->FiniteVec(name + ".pending_torque_n_m");
  if (!in->ok()) return in->status();
  if (kind_code > static_cast<uint8_t>(RigidBodyKind::kKinematic)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ".kind: unknown rigid kind ", kind_code));
  }
  const auto kind = static_cast<RigidBodyKind>(kind_code);

  absl::StatusOr<RigidBody> body =
      mass_kg > 0.0
          ? RigidBody::CreateWithMass(std::move(mesh), mass_kg, center_of_mass, inertia, kind)
          : RigidBody::CreateWithoutMass(std::move(mesh), kind);
  if (!body.ok()) return Prefixed(name, body.status());
  auto out = std::make_unique<RigidBody>(*std::move(body));
  // Applied forces accumulate from zero, so adding the saved sums gives back their bits.
  for (const absl::Status& s :
       {out->RestoreState(state), out->ApplyForce(force), out->ApplyTorque(torque)}) {
    if (!s.ok()) return Prefixed(name, s);
  }
  return out;
}

}  // namespace contactsim::core::serialization
