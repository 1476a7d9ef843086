#include "core/sim/serialization/constraints_codec.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/serialization/world_format.h"

namespace contactsim::core::serialization {
namespace {

ConstraintKindCode KindCode(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::kPin:
      return ConstraintKindCode::kPin;
    case ConstraintKind::kAttachment:
      return ConstraintKindCode::kAttachment;
    case ConstraintKind::kPositionTarget:
      return ConstraintKindCode::kPositionTarget;
  }
  return ConstraintKindCode::kPin;
}

template <typename Bodies>
auto* FindBody(Bodies bodies, int32_t id) {
  const auto it =
      std::lower_bound(bodies.begin(), bodies.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies.end() && it->id == id ? &*it : nullptr;
}

// The smallest record: id, kind, body id, a vertex count and one vertex.
constexpr size_t kMinRecordBytes = 4 + 1 + 4 + 4 + 4;

// Reads one record into *c; errors go to `in`, naming `field` ("constraints[i]"). `held[k]`, k the
// body's index in `bodies`, marks the vertices that earlier records hold. An attachment's vertex
// velocities go to *velocities_m_per_s.
void ReadRecord(ByteReader* in, const std::string& field, std::span<SimBody> bodies,
                std::vector<std::vector<char>>* held, Constraint* c, Points3* velocities_m_per_s) {
  c->id = in->I32(field + ".id");
  const uint8_t code = in->U8(field + ".kind");
  if (!in->ok()) return;
  if (code > static_cast<uint8_t>(ConstraintKindCode::kPositionTarget)) {
    in->Fail(field + ".kind", absl::StrCat("unknown constraint kind ", code));
    return;
  }
  const auto kind_code = static_cast<ConstraintKindCode>(code);
  ConstraintSpec& spec = c->spec;
  spec.kind = kind_code == ConstraintKindCode::kPin          ? ConstraintKind::kPin
              : kind_code == ConstraintKindCode::kAttachment ? ConstraintKind::kAttachment
                                                             : ConstraintKind::kPositionTarget;
  const std::string member = absl::StrCat(field, ".", ConstraintKindName(spec.kind));

  spec.body_id = in->I32(member + ".body_id");
  if (!in->ok()) return;
  const SimBody* sim_body = FindBody(bodies, spec.body_id);
  const auto* particles =
      sim_body == nullptr ? nullptr : dynamic_cast<const ParticleBody*>(sim_body->body.get());
  if (particles == nullptr) {
    in->Fail(member + ".body_id",
             absl::StrCat(sim_body == nullptr ? "no body " : "body ", spec.body_id,
                          sim_body == nullptr ? "" : " is not a deformable"));
    return;
  }
  const int n = particles->num_vertices();
  const uint32_t count = in->Count(member + ".vertices", sizeof(int32_t));
  if (in->ok() && count == 0) in->Fail(member + ".vertices", "must list at least one");
  const bool holds = spec.kind != ConstraintKind::kPositionTarget;
  std::vector<char>& body_held = (*held)[static_cast<size_t>(sim_body - bodies.data())];
  if (holds && body_held.empty()) body_held.assign(n, 0);
  std::vector<char> seen(n, 0);
  for (uint32_t k = 0; k < count && in->ok(); ++k) {
    const std::string vertex_field = absl::StrCat(member, ".vertices[", k, "]");
    const int32_t v = in->I32(vertex_field);
    if (!in->ok()) return;
    if (v < 0 || v >= n) {
      in->Fail(vertex_field,
               absl::StrCat("no vertex ", v, " in body ", spec.body_id, " (", n, " vertices)"));
    } else if (seen[v] != 0) {
      in->Fail(vertex_field, absl::StrCat("vertex ", v, " is listed twice"));
    } else if (holds && body_held[v] != 0) {
      in->Fail(vertex_field, absl::StrCat("vertex ", v, " of body ", spec.body_id,
                                          " is held by an earlier constraint"));
    } else {
      seen[v] = 1;
      if (holds) body_held[v] = 1;
      spec.vertices.push_back(v);
    }
  }
  if (!in->ok()) return;

  if (spec.kind == ConstraintKind::kAttachment) {
    spec.target_body_id = in->I32(member + ".target_body_id");
    if (!in->ok()) return;
    const SimBody* target = FindBody(bodies, spec.target_body_id);
    if (target == nullptr || dynamic_cast<const RigidBody*>(target->body.get()) == nullptr) {
      in->Fail(member + ".target_body_id",
               absl::StrCat(target == nullptr ? "no body " : "body ", spec.target_body_id,
                            target == nullptr ? "" : " is not a rigid body"));
      return;
    }
    c->offsets_B_m = in->FiniteRows(member + ".offsets_B_m");
    if (in->ok() && static_cast<size_t>(c->offsets_B_m.rows()) != spec.vertices.size()) {
      in->Fail(member + ".offsets_B_m", absl::StrCat(c->offsets_B_m.rows(), " offsets for ",
                                                     spec.vertices.size(), " vertices"));
    }
    *velocities_m_per_s = in->FiniteRows(member + ".velocities_m_per_s");
    if (in->ok() && static_cast<size_t>(velocities_m_per_s->rows()) != spec.vertices.size()) {
      in->Fail(member + ".velocities_m_per_s",
               absl::StrCat(velocities_m_per_s->rows(), " velocities for ", spec.vertices.size(),
                            " vertices"));
    }
  } else if (spec.kind == ConstraintKind::kPositionTarget) {
    spec.stiffness_n_per_m = in->FiniteF64(member + ".stiffness_n_per_m");
    if (in->ok() && !(spec.stiffness_n_per_m > 0.0)) {
      in->Fail(member + ".stiffness_n_per_m",
               absl::StrCat("must be > 0, got ", spec.stiffness_n_per_m));
    }
    spec.targets_m = in->FiniteRows(member + ".targets_m");
    if (in->ok() && static_cast<size_t>(spec.targets_m.rows()) != spec.vertices.size()) {
      in->Fail(member + ".targets_m", absl::StrCat(spec.targets_m.rows(), " targets for ",
                                                   spec.vertices.size(), " vertices"));
    }
  }
}

}  // namespace

void WriteConstraints(const ConstraintSet& constraints, std::span<const SimBody> bodies,
                      ByteWriter* out) {
  out->I32(constraints.next_id());
  out->U32(static_cast<uint32_t>(constraints.constraints().size()));
  for (const Constraint& c : constraints.constraints()) {
    out->I32(c.id);
    out->U8(static_cast<uint8_t>(KindCode(c.spec.kind)));
    out->I32(c.spec.body_id);
    out->U32(static_cast<uint32_t>(c.spec.vertices.size()));
    for (const int32_t v : c.spec.vertices) out->I32(v);
    if (c.spec.kind == ConstraintKind::kAttachment) {
      out->I32(c.spec.target_body_id);
      out->Rows(c.offsets_B_m);
      const SimBody* sim_body = FindBody(bodies, c.spec.body_id);
      Points3 velocities_m_per_s(static_cast<Eigen::Index>(c.spec.vertices.size()), 3);
      for (size_t k = 0; k < c.spec.vertices.size(); ++k) {
        velocities_m_per_s.row(static_cast<Eigen::Index>(k)) =
            sim_body->body->VertexVelocity(c.spec.vertices[k]).transpose();
      }
      out->Rows(velocities_m_per_s);
    } else if (c.spec.kind == ConstraintKind::kPositionTarget) {
      out->F64(c.spec.stiffness_n_per_m);
      out->Rows(c.spec.targets_m);
    }
  }
}

absl::StatusOr<ConstraintSet> ReadConstraints(ByteReader* in, std::span<SimBody> bodies) {
  const int32_t next_id = in->I32("constraints.next_id");
  if (in->ok() && next_id < 0) {
    in->Fail("constraints.next_id", absl::StrCat("must be >= 0, got ", next_id));
  }
  const uint32_t count = in->Count("constraints", kMinRecordBytes);
  std::vector<Constraint> constraints;
  std::vector<Points3> velocities_m_per_s;  // per constraint; attachments only
  std::vector<std::vector<char>> held(bodies.size());
  for (uint32_t i = 0; i < count && in->ok(); ++i) {
    const std::string field = absl::StrCat("constraints[", i, "]");
    Constraint c;
    Points3 velocities;
    ReadRecord(in, field, bodies, &held, &c, &velocities);
    if (!in->ok()) break;
    const int32_t previous = constraints.empty() ? -1 : constraints.back().id;
    if (c.id <= previous || c.id >= next_id) {
      in->Fail(field + ".id",
               absl::StrCat("id ", c.id, " must be ascending and below next_id ", next_id));
      break;
    }
    constraints.push_back(std::move(c));
    velocities_m_per_s.push_back(std::move(velocities));
  }
  if (!in->ok()) return in->status();

  // Hold the pinned and attached vertices as Add did (which zeroes their velocities), then give
  // the attached ones back the velocity of their last drive.
  for (size_t i = 0; i < constraints.size(); ++i) {
    const Constraint& c = constraints[i];
    if (c.spec.kind == ConstraintKind::kPositionTarget) continue;
    SimBody* sim_body = FindBody(bodies, c.spec.body_id);
    auto& particles = static_cast<ParticleBody&>(*sim_body->body);
    for (size_t k = 0; k < c.spec.vertices.size(); ++k) {
      const int32_t v = c.spec.vertices[k];
      absl::Status status = particles.SetVertexHeld(v, true);
      if (status.ok() && c.spec.kind == ConstraintKind::kAttachment) {
        status = particles.SetHeldVertexVelocity(
            v, velocities_m_per_s[i].row(static_cast<Eigen::Index>(k)).transpose());
      }
      if (!status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("constraints (id ", c.id, "): ", status.message()));
      }
    }
  }
  return ConstraintSet::FromParts(std::move(constraints), next_id);
}

}  // namespace contactsim::core::serialization
