#include "clients/cpp/cli/body_commands.h"

#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/cpp/cli/exit_codes.h"
#include "clients/cpp/session_handle.h"

namespace contactsim::client::cli {
namespace {

int Usage(const Context& context, const absl::Status& status) {
  context.err << "error: " << status.message() << "\n";
  return kExitUsage;
}

absl::StatusOr<MeshFileSource> SourceFromArgs(const MeshFileArgs& args) {
  MeshFileSource source;
  source.path = args.path;
  if (!args.format.empty()) {
    absl::StatusOr<v1::MeshFileFormat> format = MeshFileFormatFromName(args.format);
    if (!format.ok()) return format.status();
    source.format = *format;
  } else {
    absl::StatusOr<v1::MeshFileFormat> format = MeshFileFormatFromPath(args.path);
    if (!format.ok()) return format.status();  // names the path: pass --format
  }
  source.scale_to_m = args.scale_to_m;
  return source;
}

absl::Status Missing(const std::string& shape, const std::string& flags) {
  return absl::InvalidArgumentError(
      absl::StrCat("--primitive ", shape, " needs ", flags, " (see --help)"));
}

void SetVec3(const std::vector<double>& xyz, v1::Vec3* out) {
  out->set_x(xyz[0]);
  out->set_y(xyz[1]);
  out->set_z(xyz[2]);
}

// The primitive's message from its size flags; the server checks the values themselves.
absl::StatusOr<v1::PrimitiveMesh> PrimitiveFromArgs(const PrimitiveArgs& a) {
  v1::PrimitiveMesh out;
  const std::string& s = a.shape;
  if (s == "box") {
    if (a.half_extents.size() != 3) return Missing(s, "--half-extents hx,hy,hz");
    SetVec3(a.half_extents, out.mutable_box()->mutable_half_extents_m());
  } else if (s == "sphere") {
    if (!a.radius || !a.subdivisions) return Missing(s, "--radius and --subdivisions");
    out.mutable_sphere()->set_radius_m(*a.radius);
    out.mutable_sphere()->set_subdivisions(*a.subdivisions);
  } else if (s == "torus") {
    if (!a.major_radius || !a.tube_radius || !a.major_segments || !a.tube_segments) {
      return Missing(s, "--major-radius, --tube-radius, --major-segments and --tube-segments");
    }
    v1::TorusShape* torus = out.mutable_torus();
    torus->set_major_radius_m(*a.major_radius);
    torus->set_tube_radius_m(*a.tube_radius);
    torus->set_major_segments(*a.major_segments);
    torus->set_tube_segments(*a.tube_segments);
  } else if (s == "cylinder") {
    if (!a.radius || !a.height || !a.segments) {
      return Missing(s, "--radius, --height and --segments");
    }
    out.mutable_cylinder()->set_radius_m(*a.radius);
    out.mutable_cylinder()->set_height_m(*a.height);
    out.mutable_cylinder()->set_segments(*a.segments);
  } else if (s == "capsule") {
    if (!a.radius || !a.half_length || !a.segments || !a.cap_rings) {
      return Missing(s, "--radius, --half-length, --segments and --cap-rings");
    }
    v1::CapsuleShape* capsule = out.mutable_capsule();
    capsule->set_radius_m(*a.radius);
    capsule->set_half_length_m(*a.half_length);
    capsule->set_segments(*a.segments);
    capsule->set_cap_rings(*a.cap_rings);
  } else if (s == "cloth-grid") {
    if (a.size.size() != 2 || a.cells.size() != 2) return Missing(s, "--size x,y and --cells x,y");
    v1::ClothGridShape* grid = out.mutable_cloth_grid();
    grid->set_size_x_m(a.size[0]);
    grid->set_size_y_m(a.size[1]);
    grid->set_cells_x(a.cells[0]);
    grid->set_cells_y(a.cells[1]);
  } else if (s == "tet-box") {
    if (a.half_extents.size() != 3 || a.cells.size() != 3) {
      return Missing(s, "--half-extents hx,hy,hz and --cells x,y,z");
    }
    SetVec3(a.half_extents, out.mutable_tet_box()->mutable_half_extents_m());
    out.mutable_tet_box()->set_cells_x(a.cells[0]);
    out.mutable_tet_box()->set_cells_y(a.cells[1]);
    out.mutable_tet_box()->set_cells_z(a.cells[2]);
  } else if (s == "tet-sphere") {
    if (!a.radius || !a.resolution) return Missing(s, "--radius and --resolution");
    out.mutable_tet_sphere()->set_radius_m(*a.radius);
    out.mutable_tet_sphere()->set_resolution(*a.resolution);
  } else if (s == "bowl") {
    if (!a.inner_radius || !a.thickness || !a.segments || !a.rings) {
      return Missing(s, "--inner-radius, --thickness, --segments and --rings");
    }
    v1::BowlShape* bowl = out.mutable_bowl();
    bowl->set_inner_radius_m(*a.inner_radius);
    bowl->set_thickness_m(*a.thickness);
    bowl->set_segments(*a.segments);
    bowl->set_rings(*a.rings);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--primitive: '", s, "' is not one of ", absl::StrJoin(kPrimitives, ", ")));
  }
  return out;
}

absl::Status NotFor(const std::string& flag, const std::string& kind) {
  return absl::InvalidArgumentError(
      absl::StrCat(flag, " does not apply to a ", kind, " body (see --help)"));
}

// Kind, material, pose and velocities; the mesh is set by the caller.
absl::Status FillBody(const AddBodyArgs& a, v1::BodySpec* body) {
  body->set_name(a.name);
  body->set_collision_disabled(a.collision_disabled);
  const std::string& kind = a.kind;
  const bool solid = kind == "fem" || kind == "hyperelastic";
  if (a.density_kg_per_m3 && kind != "rigid" && !solid) return NotFor("--density", kind);
  if ((a.youngs_modulus_pa || a.poisson_ratio) && !solid) {
    return NotFor("--youngs-modulus / --poisson-ratio", kind);
  }
  if ((a.area_density_kg_per_m2 || a.stretch_stiffness_n_per_m) && kind != "cloth") {
    return NotFor("--area-density / --stretch-stiffness", kind);
  }
  if (kind == "rigid") {
    if (!a.density_kg_per_m3) return absl::InvalidArgumentError("--kind rigid needs --density");
    body->set_kind(v1::BODY_KIND_RIGID);
    body->mutable_rigid()->set_density_kg_per_m3(*a.density_kg_per_m3);
  } else if (kind == "static") {
    body->set_kind(v1::BODY_KIND_STATIC);
  } else if (kind == "kinematic") {
    body->set_kind(v1::BODY_KIND_KINEMATIC);
  } else if (kind == "cloth") {
    if (!a.area_density_kg_per_m2 || !a.stretch_stiffness_n_per_m) {
      return absl::InvalidArgumentError(
          "--kind cloth needs --area-density and --stretch-stiffness");
    }
    body->set_kind(v1::BODY_KIND_CLOTH);
    v1::ClothMaterial* cloth = body->mutable_cloth();
    cloth->set_area_density_kg_per_m2(*a.area_density_kg_per_m2);
    cloth->set_stretch_stiffness_n_per_m(*a.stretch_stiffness_n_per_m);
    cloth->set_bend_stiffness_n_per_m(a.bend_stiffness_n_per_m);
    cloth->set_spring_damping_ns_per_m(a.spring_damping_ns_per_m);
    cloth->set_mass_damping_per_s(a.mass_damping_per_s);
  } else if (solid) {
    if (!a.density_kg_per_m3 || !a.youngs_modulus_pa || !a.poisson_ratio) {
      return absl::InvalidArgumentError(
          absl::StrCat("--kind ", kind, " needs --density, --youngs-modulus and --poisson-ratio"));
    }
    if (kind == "fem") {
      body->set_kind(v1::BODY_KIND_FEM);
      v1::FemMaterial* fem = body->mutable_fem();
      fem->set_density_kg_per_m3(*a.density_kg_per_m3);
      fem->set_youngs_modulus_pa(*a.youngs_modulus_pa);
      fem->set_poisson_ratio(*a.poisson_ratio);
      fem->set_mass_damping_per_s(a.mass_damping_per_s);
      fem->set_stiffness_damping_s(a.stiffness_damping_s);
    } else {
      body->set_kind(v1::BODY_KIND_HYPERELASTIC);
      v1::HyperelasticMaterial* material = body->mutable_hyperelastic();
      material->set_density_kg_per_m3(*a.density_kg_per_m3);
      material->set_youngs_modulus_pa(*a.youngs_modulus_pa);
      material->set_poisson_ratio(*a.poisson_ratio);
      material->set_model(a.hyperelastic_model == "arap" ? v1::HYPERELASTIC_MODEL_ARAP
                          : a.hyperelastic_model == "corotational"
                              ? v1::HYPERELASTIC_MODEL_COROTATIONAL
                              : v1::HYPERELASTIC_MODEL_NEO_HOOKEAN);
    }
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("--kind: '", kind, "' is not one of ", absl::StrJoin(kBodyKinds, ", ")));
  }
  if (!a.pose.empty()) {
    if (a.pose.size() != 3 && a.pose.size() != 7) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--pose: expected x,y,z or x,y,z,qw,qx,qy,qz, got ", a.pose.size(), " numbers"));
    }
    SetVec3(a.pose, body->mutable_pose()->mutable_position_m());
    if (a.pose.size() == 7) {
      v1::Quat* q = body->mutable_pose()->mutable_orientation();
      q->set_w(a.pose[3]);
      q->set_x(a.pose[4]);
      q->set_y(a.pose[5]);
      q->set_z(a.pose[6]);
    }
  }
  if (!a.velocity.empty()) SetVec3(a.velocity, body->mutable_linear_velocity_m_per_s());
  if (!a.angular_velocity.empty()) {
    SetVec3(a.angular_velocity, body->mutable_angular_velocity_rad_per_s());
  }
  return absl::OkStatus();
}

// A file this machine cannot read (NotFound from the reader, before any call) is the command's
// fault (exit 2); anything else is the server's answer.
int UploadFailed(const Context& context, const absl::Status& status) {
  if (status.code() == absl::StatusCode::kNotFound &&
      status.message().find("cannot read the file") != absl::string_view::npos) {
    return Usage(context, status);
  }
  return ReportFailure(status, context.connection, context.server, context.err);
}

void PrintUploaded(const Context& context, const v1::UploadMeshResponse& uploaded) {
  context.out << "mesh_id: " << uploaded.mesh_id() << "\n"
              << "num_vertices: " << uploaded.num_vertices() << "\n"
              << "num_elements: " << uploaded.num_elements() << "\n"
              << "elements: " << (uploaded.tetrahedral() ? "tetrahedra" : "triangles") << "\n";
}

}  // namespace

int RunUploadMesh(const Context& context, const UploadMeshArgs& args) {
  absl::StatusOr<MeshFileSource> source = SourceFromArgs(args.file);
  if (!source.ok()) return Usage(context, source.status());
  const SessionHandle session =
      context.connection.Session(args.session.session_id, args.session.token);
  absl::StatusOr<v1::UploadMeshResponse> uploaded = session.UploadMeshFile(*source);
  if (!uploaded.ok()) return UploadFailed(context, uploaded.status());
  PrintUploaded(context, *uploaded);
  return kExitOk;
}

int RunAddBody(const Context& context, const AddBodyArgs& args) {
  const int sources =
      !args.mesh_file.path.empty() + !args.mesh_id.empty() + !args.primitive.shape.empty();
  if (sources != 1) {
    return Usage(context, absl::InvalidArgumentError(
                              "give exactly one of --mesh FILE, --mesh-id ID and --primitive"));
  }
  v1::BodySpec body;
  if (absl::Status filled = FillBody(args, &body); !filled.ok()) return Usage(context, filled);
  std::optional<MeshFileSource> source;
  if (!args.mesh_file.path.empty()) {
    absl::StatusOr<MeshFileSource> from_args = SourceFromArgs(args.mesh_file);
    if (!from_args.ok()) return Usage(context, from_args.status());
    source = *std::move(from_args);
  } else if (!args.mesh_id.empty()) {
    body.set_mesh_id(args.mesh_id);
  } else {
    absl::StatusOr<v1::PrimitiveMesh> primitive = PrimitiveFromArgs(args.primitive);
    if (!primitive.ok()) return Usage(context, primitive.status());
    *body.mutable_primitive() = *std::move(primitive);
  }
  const SessionHandle session =
      context.connection.Session(args.session.session_id, args.session.token);
  if (source) {
    absl::StatusOr<v1::UploadMeshResponse> uploaded = session.UploadMeshFile(*source);
    if (!uploaded.ok()) return UploadFailed(context, uploaded.status());
    PrintUploaded(context, *uploaded);
    body.set_mesh_id(uploaded->mesh_id());
  }
  absl::StatusOr<v1::AddBodyResponse> added = session.AddBody(body);
  if (!added.ok()) {
    return ReportFailure(added.status(), context.connection, context.server, context.err);
  }
  const v1::Vec3& com = added->center_of_mass_m_m();
  context.out << "body_id: " << added->body_id() << "\n"
              << "num_vertices: " << added->num_vertices() << "\n"
              << "mass_kg: " << added->mass_kg() << "\n";
  if (body.kind() == v1::BODY_KIND_RIGID) {
    context.out << "center_of_mass_M_m: (" << com.x() << ", " << com.y() << ", " << com.z()
                << ")\n";
  }
  return kExitOk;
}

int RunRemoveBody(const Context& context, const RemoveBodyArgs& args) {
  const SessionHandle session =
      context.connection.Session(args.session.session_id, args.session.token);
  absl::Status removed = session.RemoveBody(args.body_id);
  if (!removed.ok()) return ReportFailure(removed, context.connection, context.server, context.err);
  context.out << "removed body " << args.body_id << "\n";
  return kExitOk;
}

}  // namespace contactsim::client::cli
