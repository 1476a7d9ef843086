// MassSpringCloth, CorotationalFem and HyperelasticBody records:
//   cloth: rest mesh | area density, stretch, bend, spring damping, mass damping (5 f64) | state
//   FEM:   rest tet mesh | E, nu, rho, alpha, beta (5 f64) | state
//   hyperelastic: rest tet mesh | model u8 | E, nu, rho, dt (4 f64) | iterations i32 |
//          contact proximity f64 | NCP function u8 | Newton, CR iterations (2 i32) | state |
//          solver time f64 | contacts (u32 count, one contact record each) | multipliers (3 per
//          contact, f64)
//   (the contact records: vertex_contact_codec.h)
// with state = pinned vertices (u32 count, int32 each) | positions | velocities | pending forces
// (each a u32 row count and rows of 3 f64). The pinned vertices are those pinned at creation
// only: the vertices that World constraints hold at run time are rebuilt from the constraints
// section (constraints_codec.h), which also restores the attached vertices' velocities.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/sim/serialization/body_codec.h"
#include "core/sim/serialization/mesh_codec.h"
#include "core/sim/serialization/vertex_contact_codec.h"

namespace contactsim::core::serialization {
namespace {

absl::Status Prefixed(const std::string& field, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", status.message()));
}

void WriteParticleState(const ParticleBody& body, ByteWriter* out) {
  std::vector<int32_t> pinned;
  for (int i = 0; i < body.num_vertices(); ++i) {
    if (body.is_pinned_at_creation(i)) pinned.push_back(i);
  }
  out->U32(static_cast<uint32_t>(pinned.size()));
  for (const int32_t i : pinned) out->I32(i);
  out->Rows(body.positions_t0());
  out->Rows(body.velocities());
  out->Rows(body.pending_forces_n());
}

struct ParticleState {
  std::vector<int> pinned;
  Points3 positions_m;
  Points3 velocities_m_per_s;
  Points3 pending_forces_n;
};

// Reads the state; the pins are range-checked by the body's factory.
ParticleState ReadParticleState(ByteReader* in, const std::string& name) {
  ParticleState state;
  const uint32_t num_pinned = in->Count(name + ".pinned_vertices", sizeof(int32_t));
  state.pinned.reserve(num_pinned);
  for (uint32_t k = 0; k < num_pinned; ++k) state.pinned.push_back(in->I32(name + ".pinned"));
  state.positions_m = in->FiniteRows(name + ".positions_m");
  state.velocities_m_per_s = in->FiniteRows(name + ".velocities_m_per_s");
  state.pending_forces_n = in->FiniteRows(name + ".pending_forces_n");
  return state;
}

// Sets the saved state on a freshly built body.
absl::Status ApplyParticleState(const ParticleState& state, const std::string& name,
                                ParticleBody* body) {
  if (absl::Status s = body->SetPositions(state.positions_m); !s.ok()) return Prefixed(name, s);
  if (absl::Status s = body->SetVelocities(state.velocities_m_per_s); !s.ok()) {
    return Prefixed(name, s);
  }
  if (state.pending_forces_n.rows() != body->num_vertices()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ".pending_forces_n: has ", state.pending_forces_n.rows(),
                     " rows, the body has ", body->num_vertices(), " vertices"));
  }
  // External forces accumulate from zero, so adding the saved sums gives back their bits.
  for (int i = 0; i < body->num_vertices(); ++i) {
    const Vec3 force = state.pending_forces_n.row(i).transpose();
    if (force.isZero(0.0)) continue;
    if (absl::Status s = body->AddVertexForce(i, force); !s.ok()) return Prefixed(name, s);
  }
  return absl::OkStatus();
}

}  // namespace

void WriteHyperelasticBody(const HyperelasticBody& body, ByteWriter* out) {
  WriteTetMesh(body.mesh(), out);
  const HyperelasticBodyParams& p = body.params();
  out->U8(static_cast<uint8_t>(p.model));
  out->F64(p.material.youngs_modulus);
  out->F64(p.material.poisson_ratio);
  out->F64(p.material.density);
  out->F64(p.time_step_s);
  out->I32(p.iterations);
  out->F64(p.contact_proximity_m);
  out->U8(static_cast<uint8_t>(p.contact.ncp));
  out->I32(p.contact.newton_iterations);
  out->I32(p.contact.cr_iterations);
  WriteParticleState(body, out);
  out->F64(body.solver_time_s());
  WriteContactMemory(body.previous_contacts(), body.previous_contact_forces_n(), out);
}

absl::StatusOr<std::unique_ptr<HyperelasticBody>> ReadHyperelasticBody(
    ByteReader* in, std::string_view field, const std::shared_ptr<Backend>& backend) {
  const std::string name(field);
  ASSIGN_OR_RETURN(TetMesh mesh, ReadTetMesh(in, name + ".rest_mesh"));
  HyperelasticBodyParams params;
  const uint8_t model = in->U8(name + ".model");
  if (model > static_cast<uint8_t>(MaterialModel::kNeoHookean)) {
    in->Fail(name + ".model", absl::StrCat("unknown material model ", model));
  }
  params.model = static_cast<MaterialModel>(model);
  params.material.youngs_modulus = in->F64(name + ".params");
  params.material.poisson_ratio = in->F64(name + ".params");
  params.material.density = in->F64(name + ".params");
  params.time_step_s = in->F64(name + ".params");
  params.iterations = in->I32(name + ".iterations");
  params.contact_proximity_m = in->F64(name + ".contact_proximity_m");
  const uint8_t ncp = in->U8(name + ".ncp");
  if (ncp > static_cast<uint8_t>(NcpFunction::kMinMap)) {
    in->Fail(name + ".ncp", absl::StrCat("unknown NCP function ", ncp));
  }
  params.contact.ncp = static_cast<NcpFunction>(ncp);
  params.contact.newton_iterations = in->I32(name + ".newton_iterations");
  params.contact.cr_iterations = in->I32(name + ".cr_iterations");
  const ParticleState state = ReadParticleState(in, name);
  const double solver_time_s = in->FiniteF64(name + ".solver_time_s");
  std::vector<VertexContact> contacts;
  Eigen::VectorXd lambda;
  ReadContactMemory(in, name, &contacts, &lambda);
  if (!in->ok()) return in->status();
  // Create validates the parameters, the mesh and the pins (and factors the system again).
  absl::StatusOr<std::unique_ptr<HyperelasticBody>> body =
      HyperelasticBody::Create(std::move(mesh), params, backend, state.pinned);
  if (!body.ok() && body.status().code() != absl::StatusCode::kInvalidArgument) {
    // The backend's own errors (e.g. ResourceExhausted naming a device memory budget) keep their
    // code: the bytes are fine, the device is not.
    return absl::Status(body.status().code(), absl::StrCat(name, ": ", body.status().message()));
  }
  if (!body.ok()) return Prefixed(name, body.status());
  RETURN_IF_ERROR(ApplyParticleState(state, name, body->get()));
  if (absl::Status s =
          (*body)->RestoreSolverState(solver_time_s, std::move(contacts), std::move(lambda));
      !s.ok()) {
    return Prefixed(name, s);
  }
  return body;
}

void WriteMassSpringCloth(const MassSpringCloth& body, ByteWriter* out) {
  WriteTriangleMesh(body.surface(), out);
  const MassSpringClothParams& p = body.params();
  out->F64(p.area_density_kg_per_m2);
  out->F64(p.stretch_stiffness_n_per_m);
  out->F64(p.bend_stiffness_n_per_m);
  out->F64(p.spring_damping_n_s_per_m);
  out->F64(p.mass_damping_per_s);
  WriteParticleState(body, out);
}

absl::StatusOr<std::unique_ptr<MassSpringCloth>> ReadMassSpringCloth(ByteReader* in,
                                                                     std::string_view field) {
  const std::string name(field);
  ASSIGN_OR_RETURN(TriangleMesh mesh, ReadTriangleMesh(in, name + ".rest_mesh"));
  MassSpringClothParams params;
  params.area_density_kg_per_m2 = in->F64(name + ".params");
  params.stretch_stiffness_n_per_m = in->F64(name + ".params");
  params.bend_stiffness_n_per_m = in->F64(name + ".params");
  params.spring_damping_n_s_per_m = in->F64(name + ".params");
  params.mass_damping_per_s = in->F64(name + ".params");
  const ParticleState state = ReadParticleState(in, name);
  if (!in->ok()) return in->status();
  // Create validates the parameters (finite, in range) and the pins.
  absl::StatusOr<MassSpringCloth> body =
      MassSpringCloth::Create(std::move(mesh), params, state.pinned);
  if (!body.ok()) return Prefixed(name, body.status());
  auto out = std::make_unique<MassSpringCloth>(*std::move(body));
  RETURN_IF_ERROR(ApplyParticleState(state, name, out.get()));
  return out;
}

void WriteCorotationalFem(const CorotationalFem& body, ByteWriter* out) {
  WriteTetMesh(body.mesh(), out);
  const CorotationalFemParams& p = body.params();
  out->F64(p.youngs_modulus_pa);
  out->F64(p.poisson_ratio);
  out->F64(p.density_kg_per_m3);
  out->F64(p.mass_damping_per_s);
  out->F64(p.stiffness_damping_s);
  WriteParticleState(body, out);
}

absl::StatusOr<std::unique_ptr<CorotationalFem>> ReadCorotationalFem(ByteReader* in,
                                                                     std::string_view field) {
  const std::string name(field);
  ASSIGN_OR_RETURN(TetMesh mesh, ReadTetMesh(in, name + ".rest_mesh"));
  CorotationalFemParams params;
  params.youngs_modulus_pa = in->F64(name + ".params");
  params.poisson_ratio = in->F64(name + ".params");
  params.density_kg_per_m3 = in->F64(name + ".params");
  params.mass_damping_per_s = in->F64(name + ".params");
  params.stiffness_damping_s = in->F64(name + ".params");
  const ParticleState state = ReadParticleState(in, name);
  if (!in->ok()) return in->status();
  absl::StatusOr<CorotationalFem> body =
      CorotationalFem::Create(std::move(mesh), params, state.pinned);
  if (!body.ok()) return Prefixed(name, body.status());
  auto out = std::make_unique<CorotationalFem>(*std::move(body));
  RETURN_IF_ERROR(ApplyParticleState(state, name, out.get()));
  return out;
}

}  // namespace contactsim::core::serialization
