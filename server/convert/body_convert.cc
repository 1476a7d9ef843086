#include "server/convert/body_convert.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/factor_counts.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "server/convert/mesh_convert.h"
#include "server/convert/primitive_convert.h"
#include "server/convert/value_convert.h"

namespace contactsim::server {
namespace {

std::string Field(std::string_view prefix, const char* name) {
  return absl::StrCat(std::string(prefix), ".", name);
}

absl::Status Prefixed(const absl::Status& status, std::string_view field) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(std::string(field), ": ", status.message()));
}

// Size limits answer RESOURCE_EXHAUSTED (the request may be valid, the server will not take it),
// checked before anything is copied.
absl::Status CheckMeshSize(int64_t packed_vertices, int64_t packed_elements, int arity,
                           const ServerLimits& limits, const std::string& field,
                           const char* elements_name) {
  if (packed_vertices / 3 > limits.max_vertices_per_mesh) {
    return absl::ResourceExhaustedError(absl::StrCat(field, ".vertices_m: ", packed_vertices / 3,
                                                     " vertices exceed the server's limit of ",
                                                     limits.max_vertices_per_mesh));
  }
  if (packed_elements / arity > limits.max_elements_per_mesh) {
    return absl::ResourceExhaustedError(
        absl::StrCat(field, ".", elements_name, ": ", packed_elements / arity,
                     " elements exceed the server's limit of ", limits.max_elements_per_mesh));
  }
  return absl::OkStatus();
}

core::Points3 Transformed(const core::Points3& points, const core::Vec3& p,
                          const Eigen::Quaterniond& q) {
  const core::Mat3 rotation = q.toRotationMatrix();
  core::Points3 out(points.rows(), 3);
  for (int i = 0; i < points.rows(); ++i) {
    out.row(i) = (p + rotation * points.row(i).transpose()).transpose();
  }
  return out;
}

struct Placement {
  core::Vec3 p = core::Vec3::Zero();
  Eigen::Quaterniond q = Eigen::Quaterniond::Identity();
  core::Vec3 v = core::Vec3::Zero();
  core::Vec3 w = core::Vec3::Zero();
};

absl::StatusOr<Placement> PlacementFromProto(const v1::BodySpec& message, std::string_view field) {
  Placement placement;
  ASSIGN_OR_RETURN(placement.p, FiniteVec3FromProto(message.pose().position_m(),
                                                    Field(field, "pose.position_m")));
  if (message.pose().has_orientation()) {
    ASSIGN_OR_RETURN(placement.q, UnitQuatFromProto(message.pose().orientation(),
                                                    Field(field, "pose.orientation")));
  }
  ASSIGN_OR_RETURN(placement.v, FiniteVec3FromProto(message.linear_velocity_m_per_s(),
                                                    Field(field, "linear_velocity_m_per_s")));
  ASSIGN_OR_RETURN(placement.w, FiniteVec3FromProto(message.angular_velocity_rad_per_s(),
                                                    Field(field, "angular_velocity_rad_per_s")));
  return placement;
}

absl::StatusOr<core::TriangleMesh> TriangleMeshFor(const v1::BodySpec& message,
                                                   const ServerLimits& limits, bool closed,
                                                   std::string_view field) {
  const std::string mesh_field = Field(field, "triangle_mesh");
  if (message.mesh_case() == v1::BodySpec::kMeshId) {
    return absl::InternalError(absl::StrCat(
        Field(field, "mesh_id"), ": resolve uploaded meshes (WithUploadedMesh) before conversion"));
  }
  if (message.mesh_case() == v1::BodySpec::kPrimitive) {
    return SurfaceFromPrimitive(message.primitive(), limits, closed, Field(field, "primitive"));
  }
  if (message.mesh_case() != v1::BodySpec::kTriangleMesh) {
    return absl::InvalidArgumentError(absl::StrCat(mesh_field, ": required for this body kind"));
  }
  const v1::TriangleMeshData& mesh = message.triangle_mesh();
  RETURN_IF_ERROR(CheckMeshSize(mesh.vertices_m_size(), mesh.triangles_size(), 3, limits,
                                mesh_field, "triangles"));
  core::MeshOptions options;
  options.limits.max_vertices = limits.max_vertices_per_mesh;
  options.limits.max_elements = limits.max_elements_per_mesh;
  options.require_closed = closed;
  return FromProto(mesh, options, mesh_field);
}

absl::Status CheckNoPins(const v1::BodySpec& message, std::string_view field) {
  if (message.pinned_vertices_size() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(field, "pinned_vertices"), ": only deformable bodies have pins"));
  }
  return absl::OkStatus();
}

absl::StatusOr<NewBody> RigidFromProto(const v1::BodySpec& message, const ServerLimits& limits,
                                       const Placement& placement, std::string_view field) {
  RETURN_IF_ERROR(CheckNoPins(message, field));
  NewBody out;
  core::RigidBody* rigid = nullptr;
  if (message.kind() == v1::BODY_KIND_RIGID) {
    if (message.material_case() != v1::BodySpec::kRigid) {
      return absl::InvalidArgumentError(absl::StrCat(
          Field(field, "rigid"), ": a rigid material is required for BODY_KIND_RIGID"));
    }
    RETURN_IF_ERROR(CheckPositive(message.rigid().density_kg_per_m3(),
                                  Field(field, "rigid.density_kg_per_m3")));
    ASSIGN_OR_RETURN(core::TriangleMesh mesh, TriangleMeshFor(message, limits, true, field));
    absl::StatusOr<core::RigidBody> body =
        core::RigidBody::Create(std::move(mesh), message.rigid().density_kg_per_m3());
    if (!body.ok()) return Prefixed(body.status(), Field(field, "triangle_mesh"));
    // Created at rest with B at the centre of mass c (mesh coordinates) and identity rotation.
    out.center_of_mass_M_m = body->state().p_WB_m;
    out.mass_kg = body->mass_kg();
    auto owned = std::make_unique<core::RigidBody>(std::move(*body));
    rigid = owned.get();
    out.body = std::move(owned);
    RETURN_IF_ERROR(Prefixed(
        rigid->SetPose(placement.p + placement.q * out.center_of_mass_M_m, placement.q), field));
  } else {
    if (message.material_case() != v1::BodySpec::MATERIAL_NOT_SET) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(field), ": static and kinematic bodies take no material (no mass)"));
    }
    const bool is_static = message.kind() == v1::BODY_KIND_STATIC;
    if (is_static && (placement.v != core::Vec3::Zero() || placement.w != core::Vec3::Zero())) {
      return absl::InvalidArgumentError(
          absl::StrCat(Field(field, "linear_velocity_m_per_s"), ": a static body cannot move"));
    }
    ASSIGN_OR_RETURN(core::TriangleMesh mesh, TriangleMeshFor(message, limits, false, field));
    absl::StatusOr<core::RigidBody> body = core::RigidBody::CreateWithoutMass(
        std::move(mesh),
        is_static ? core::RigidBodyKind::kStatic : core::RigidBodyKind::kKinematic);
    if (!body.ok()) return Prefixed(body.status(), Field(field, "triangle_mesh"));
    auto owned = std::make_unique<core::RigidBody>(std::move(*body));
    rigid = owned.get();
    out.body = std::move(owned);
    RETURN_IF_ERROR(Prefixed(rigid->SetPose(placement.p, placement.q), field));
  }
  RETURN_IF_ERROR(Prefixed(rigid->SetVelocity(placement.v, placement.w), field));
  return out;
}

absl::Status SetUniformVelocity(core::ParticleBody* body, const core::Vec3& v,
                                std::string_view field) {
  core::Points3 velocities(body->num_vertices(), 3);
  velocities.rowwise() = v.transpose();
  return Prefixed(body->SetVelocities(velocities), field);
}

absl::StatusOr<NewBody> ClothFromProto(const v1::BodySpec& message, const ServerLimits& limits,
                                       const Placement& placement, std::string_view field) {
  if (message.material_case() != v1::BodySpec::kCloth) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(field, "cloth"), ": a cloth material is required for BODY_KIND_CLOTH"));
  }
  const v1::ClothMaterial& material = message.cloth();
  core::MassSpringClothParams params;
  params.area_density_kg_per_m2 = material.area_density_kg_per_m2();
  params.stretch_stiffness_n_per_m = material.stretch_stiffness_n_per_m();
  params.bend_stiffness_n_per_m = material.bend_stiffness_n_per_m();
  params.spring_damping_n_s_per_m = material.spring_damping_ns_per_m();
  params.mass_damping_per_s = material.mass_damping_per_s();
  RETURN_IF_ERROR(
      CheckPositive(params.area_density_kg_per_m2, Field(field, "cloth.area_density_kg_per_m2")));
  RETURN_IF_ERROR(CheckPositive(params.stretch_stiffness_n_per_m,
                                Field(field, "cloth.stretch_stiffness_n_per_m")));
  RETURN_IF_ERROR(CheckNonNegative(params.bend_stiffness_n_per_m,
                                   Field(field, "cloth.bend_stiffness_n_per_m")));
  RETURN_IF_ERROR(CheckNonNegative(params.spring_damping_n_s_per_m,
                                   Field(field, "cloth.spring_damping_ns_per_m")));
  RETURN_IF_ERROR(
      CheckNonNegative(params.mass_damping_per_s, Field(field, "cloth.mass_damping_per_s")));
  ASSIGN_OR_RETURN(core::TriangleMesh rest, TriangleMeshFor(message, limits, false, field));
  core::MeshOptions options;
  options.limits.max_vertices = limits.max_vertices_per_mesh;
  options.limits.max_elements = limits.max_elements_per_mesh;
  absl::StatusOr<core::TriangleMesh> placed = core::TriangleMesh::Create(
      Transformed(rest.vertices(), placement.p, placement.q), rest.faces(), options);
  if (!placed.ok()) return Prefixed(placed.status(), Field(field, "pose"));
  const std::vector<int> pins(message.pinned_vertices().begin(), message.pinned_vertices().end());
  absl::StatusOr<core::MassSpringCloth> cloth =
      core::MassSpringCloth::Create(std::move(*placed), params, pins);
  if (!cloth.ok()) return Prefixed(cloth.status(), field);
  NewBody out;
  out.mass_kg = cloth->masses().sum();
  auto owned = std::make_unique<core::MassSpringCloth>(std::move(*cloth));
  RETURN_IF_ERROR(SetUniformVelocity(owned.get(), placement.v, field));
  out.body = std::move(owned);
  return out;
}

// The body's tet mesh (inline or primitive) placed by its pose; kind names the body kind in
// errors ("BODY_KIND_FEM").
absl::StatusOr<core::TetMesh> PlacedTetMeshFor(const v1::BodySpec& message,
                                               const ServerLimits& limits,
                                               const Placement& placement, std::string_view kind,
                                               std::string_view field) {
  const std::string mesh_field = Field(field, "tet_mesh");
  if (message.mesh_case() == v1::BodySpec::kMeshId) {
    return absl::InternalError(absl::StrCat(
        Field(field, "mesh_id"), ": resolve uploaded meshes (WithUploadedMesh) before conversion"));
  }
  if (message.mesh_case() != v1::BodySpec::kTetMesh &&
      message.mesh_case() != v1::BodySpec::kPrimitive) {
    return absl::InvalidArgumentError(
        absl::StrCat(mesh_field, ": required for ", std::string(kind)));
  }
  core::MeshOptions options;
  options.limits.max_vertices = limits.max_vertices_per_mesh;
  options.limits.max_elements = limits.max_elements_per_mesh;
  absl::StatusOr<core::TetMesh> rest;
  if (message.mesh_case() == v1::BodySpec::kPrimitive) {
    rest = TetMeshFromPrimitive(message.primitive(), limits, Field(field, "primitive"));
  } else {
    const v1::TetMeshData& mesh = message.tet_mesh();
    RETURN_IF_ERROR(CheckMeshSize(mesh.vertices_m_size(), mesh.tetrahedra_size(), 4, limits,
                                  mesh_field, "tetrahedra"));
    rest = FromProto(mesh, options, mesh_field);
  }
  if (!rest.ok()) return rest.status();
  absl::StatusOr<core::TetMesh> placed = core::TetMesh::Create(
      Transformed(rest->vertices(), placement.p, placement.q), rest->tets(), options);
  if (!placed.ok()) return Prefixed(placed.status(), Field(field, "pose"));
  return placed;
}

absl::Status CheckElasticConstants(double youngs_modulus_pa, double poisson_ratio,
                                   double density_kg_per_m3, std::string_view material_field) {
  RETURN_IF_ERROR(CheckPositive(youngs_modulus_pa, Field(material_field, "youngs_modulus_pa")));
  if (!(poisson_ratio > -1.0 && poisson_ratio < 0.5)) {
    return absl::InvalidArgumentError(absl::StrCat(Field(material_field, "poisson_ratio"),
                                                   ": must be in (-1, 0.5), got ", poisson_ratio));
  }
  return CheckPositive(density_kg_per_m3, Field(material_field, "density_kg_per_m3"));
}

absl::StatusOr<NewBody> FemFromProto(const v1::BodySpec& message, const ServerLimits& limits,
                                     const Placement& placement, std::string_view field) {
  if (message.material_case() != v1::BodySpec::kFem) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(field, "fem"), ": a FEM material is required for BODY_KIND_FEM"));
  }
  const v1::FemMaterial& material = message.fem();
  core::CorotationalFemParams params;
  params.youngs_modulus_pa = material.youngs_modulus_pa();
  params.poisson_ratio = material.poisson_ratio();
  params.density_kg_per_m3 = material.density_kg_per_m3();
  params.mass_damping_per_s = material.mass_damping_per_s();
  params.stiffness_damping_s = material.stiffness_damping_s();
  RETURN_IF_ERROR(CheckElasticConstants(params.youngs_modulus_pa, params.poisson_ratio,
                                        params.density_kg_per_m3, Field(field, "fem")));
  RETURN_IF_ERROR(
      CheckNonNegative(params.mass_damping_per_s, Field(field, "fem.mass_damping_per_s")));
  RETURN_IF_ERROR(
      CheckNonNegative(params.stiffness_damping_s, Field(field, "fem.stiffness_damping_s")));
  ASSIGN_OR_RETURN(core::TetMesh placed,
                   PlacedTetMeshFor(message, limits, placement, "BODY_KIND_FEM", field));
  const std::vector<int> pins(message.pinned_vertices().begin(), message.pinned_vertices().end());
  absl::StatusOr<core::CorotationalFem> fem =
      core::CorotationalFem::Create(std::move(placed), params, pins);
  if (!fem.ok()) return Prefixed(fem.status(), field);
  NewBody out;
  out.mass_kg = fem->masses().sum();
  auto owned = std::make_unique<core::CorotationalFem>(std::move(*fem));
  RETURN_IF_ERROR(SetUniformVelocity(owned.get(), placement.v, field));
  out.body = std::move(owned);
  return out;
}

absl::StatusOr<core::MaterialModel> HyperelasticModelFromProto(v1::HyperelasticModel model,
                                                               std::string_view field) {
  switch (model) {
    case v1::HYPERELASTIC_MODEL_UNSPECIFIED:
    case v1::HYPERELASTIC_MODEL_NEO_HOOKEAN:
      return core::MaterialModel::kNeoHookean;
    case v1::HYPERELASTIC_MODEL_ARAP:
      return core::MaterialModel::kArap;
    case v1::HYPERELASTIC_MODEL_COROTATIONAL:
      return core::MaterialModel::kCorotational;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(field), ": unknown model ", static_cast<int>(model)));
  }
}

absl::StatusOr<NewBody> HyperelasticFromProto(
    const v1::BodySpec& message, const ServerLimits& limits, const Placement& placement,
    const core::WorldSettings& world_settings, std::shared_ptr<core::Backend> backend,
    const FactorRoom& factor_room, std::string_view field) {
  if (message.material_case() != v1::BodySpec::kHyperelastic) {
    return absl::InvalidArgumentError(
        absl::StrCat(Field(field, "hyperelastic"),
                     ": a hyperelastic material is required for BODY_KIND_HYPERELASTIC"));
  }
  const v1::HyperelasticMaterial& material = message.hyperelastic();
  core::HyperelasticBodyParams params;
  ASSIGN_OR_RETURN(params.model, HyperelasticModelFromProto(material.model(),
                                                            Field(field, "hyperelastic.model")));
  params.material = {material.youngs_modulus_pa(), material.poisson_ratio(),
                     material.density_kg_per_m3()};
  RETURN_IF_ERROR(CheckElasticConstants(material.youngs_modulus_pa(), material.poisson_ratio(),
                                        material.density_kg_per_m3(),
                                        Field(field, "hyperelastic")));
  params.time_step_s = world_settings.dt_s;
  params.iterations = world_settings.local_global.iterations;
  params.contact_proximity_m = world_settings.local_global.contact_proximity_m;
  params.contact.cr_iterations = world_settings.local_global.cr_iterations;
  ASSIGN_OR_RETURN(core::TetMesh placed,
                   PlacedTetMeshFor(message, limits, placement, "BODY_KIND_HYPERELASTIC", field));
  const std::vector<int> pins(message.pinned_vertices().begin(), message.pinned_vertices().end());
  // Core's limit 0 means none; a factor always takes more than 1 byte, so no room at all is 1.
  const int64_t max_factor_bytes =
      factor_room.bytes < 0 ? 0 : std::max<int64_t>(1, factor_room.bytes);
  absl::StatusOr<std::unique_ptr<core::HyperelasticBody>> body = core::HyperelasticBody::Create(
      std::move(placed), params, std::move(backend), pins, max_factor_bytes);
  if (const std::optional<int64_t> over = core::FactorOverLimitBytes(body.status())) {
    return absl::ResourceExhaustedError(
        absl::StrCat(std::string(field), ": the local_global factor would put ", *over,
                     " bytes on the session's backend, over the ", factor_room.bytes, " bytes ",
                     factor_room.budget, " leaves (", factor_room.flag, "); it was not built"));
  }
  if (!body.ok()) return Prefixed(body.status(), field);
  NewBody out;
  out.mass_kg = (*body)->masses().sum();
  RETURN_IF_ERROR(SetUniformVelocity(body->get(), placement.v, field));
  out.body = *std::move(body);
  return out;
}

}  // namespace

bool BodyKindTakesTets(v1::BodyKind kind) {
  return kind == v1::BODY_KIND_FEM || kind == v1::BODY_KIND_HYPERELASTIC;
}

absl::StatusOr<NewBody> BodyFromProto(const v1::BodySpec& message, const ServerLimits& limits,
                                      std::string_view field,
                                      const core::WorldSettings& world_settings,
                                      std::shared_ptr<core::Backend> backend,
                                      const FactorRoom& factor_room) {
  RETURN_IF_ERROR(CheckLabel(message.name(), limits.max_name_bytes, Field(field, "name")));
  ASSIGN_OR_RETURN(Placement placement, PlacementFromProto(message, field));
  absl::StatusOr<NewBody> out;
  switch (message.kind()) {
    case v1::BODY_KIND_RIGID:
    case v1::BODY_KIND_STATIC:
    case v1::BODY_KIND_KINEMATIC:
      out = RigidFromProto(message, limits, placement, field);
      break;
    case v1::BODY_KIND_HYPERELASTIC:
      if (placement.w != core::Vec3::Zero()) {
        return absl::InvalidArgumentError(absl::StrCat(Field(field, "angular_velocity_rad_per_s"),
                                                       ": only rigid bodies take one"));
      }
      out = HyperelasticFromProto(message, limits, placement, world_settings, std::move(backend),
                                  factor_room, field);
      break;
    case v1::BODY_KIND_CLOTH:
    case v1::BODY_KIND_FEM:
      if (placement.w != core::Vec3::Zero()) {
        return absl::InvalidArgumentError(absl::StrCat(Field(field, "angular_velocity_rad_per_s"),
                                                       ": only rigid bodies take one"));
      }
      out = message.kind() == v1::BODY_KIND_CLOTH
                ? ClothFromProto(message, limits, placement, field)
                : FemFromProto(message, limits, placement, field);
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(Field(field, "kind"), ": must be set, got ",
                                                     static_cast<int>(message.kind())));
  }
  if (!out.ok()) return out.status();
  out->options.name = message.name();
  out->options.collision.enabled = !message.collision_disabled();
  out->options.collision.self_collision = !message.self_collision_disabled();
  return out;
}

v1::BodyKind BodyKindOf(core::BodyType type, core::RigidBodyKind rigid_kind) {
  switch (type) {
    case core::BodyType::kRigid:
      switch (rigid_kind) {
        case core::RigidBodyKind::kDynamic:
          return v1::BODY_KIND_RIGID;
        case core::RigidBodyKind::kStatic:
          return v1::BODY_KIND_STATIC;
        case core::RigidBodyKind::kKinematic:
          return v1::BODY_KIND_KINEMATIC;
      }
      break;
    case core::BodyType::kMassSpringCloth:
      return v1::BODY_KIND_CLOTH;
    case core::BodyType::kCorotationalFem:
      return v1::BODY_KIND_FEM;
    case core::BodyType::kHyperelastic:
      return v1::BODY_KIND_HYPERELASTIC;
  }
  return v1::BODY_KIND_UNSPECIFIED;
}

v1::BodyKind BodyKindOf(const core::Body& body) {
  const core::RigidBodyKind rigid_kind = body.type() == core::BodyType::kRigid
                                             ? static_cast<const core::RigidBody&>(body).kind()
                                             : core::RigidBodyKind::kDynamic;
  return BodyKindOf(body.type(), rigid_kind);
}

void FillBodyState(const core::BodyStateCopy& body, v1::BodyState* out) {
  FillBodyState(body, /*poses=*/true, /*velocities=*/true, /*vertex_positions=*/true, out);
}

void FillBodyState(const core::BodyStateCopy& body, bool poses, bool velocities,
                   bool vertex_positions, v1::BodyState* out) {
  out->set_body_id(body.body_id);
  out->set_kind(BodyKindOf(body.type, body.rigid_kind));
  if (body.rigid) {
    if (poses) {
      FillProto(body.rigid->p_WB_m, out->mutable_p_wb_m());
      FillProto(body.rigid->q_WB, out->mutable_q_wb());
    }
    if (velocities) {
      FillProto(body.rigid->v_WB_m_per_s, out->mutable_v_wb_m_per_s());
      FillProto(body.rigid->w_WB_rad_per_s, out->mutable_w_wb_rad_per_s());
    }
    return;
  }
  const core::Points3& x = body.positions_m;
  const core::Points3& v = body.velocities_m_per_s;
  if (poses && x.rows() > 0) {
    FillProto(body.centre_of_mass_m, out->mutable_centre_of_mass_m());
    FillProto(core::Vec3(x.colwise().minCoeff().transpose()), out->mutable_bounds_min_m());
    FillProto(core::Vec3(x.colwise().maxCoeff().transpose()), out->mutable_bounds_max_m());
  }
  if (vertex_positions) out->mutable_positions_m()->Add(x.data(), x.data() + x.size());
  if (velocities) out->mutable_velocities_m_per_s()->Add(v.data(), v.data() + v.size());
}

}  // namespace contactsim::server
