#include "core/sim/serialization/vertex_contact_codec.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace contactsim::core::serialization {
namespace {

void WriteVertexContact(const VertexContact& c, ByteWriter* out) {
  out->U8(static_cast<uint8_t>(c.kind));
  out->I32(c.vertex);
  out->I32(c.free_vertex);
  out->I32(c.obstacle);
  out->I32(c.feature);
  out->Vec(c.normal);
  out->Vec(c.tangent1);
  out->Vec(c.tangent2);
  out->F64(c.offset_m);
  out->F64(c.friction_coefficient);
  out->F64(c.weight);
  out->U32(static_cast<uint32_t>(c.extra_vertices.size()));
  for (size_t k = 0; k < c.extra_vertices.size(); ++k) {
    out->I32(c.extra_vertices[k]);
    out->I32(c.extra_free_vertices[k]);
    out->F64(c.extra_weights[k]);
  }
  out->Vec(c.obstacle_velocity_mps);
}

// The warm start only compares these values (contact_warm_start.h), so finite values suffice.
VertexContact ReadVertexContact(ByteReader* in, const std::string& name) {
  VertexContact c;
  const uint8_t kind = in->U8(name + ".kind");
  if (kind > static_cast<uint8_t>(ContactKind::kBodyEdgeEdge)) {
    in->Fail(name + ".kind", absl::StrCat("unknown contact kind ", kind));
  }
  c.kind = static_cast<ContactKind>(kind);
  c.vertex = in->I32(name + ".vertex");
  c.free_vertex = in->I32(name + ".free_vertex");
  c.obstacle = in->I32(name + ".obstacle");
  c.feature = in->I32(name + ".feature");
  c.normal = in->FiniteVec(name + ".normal");
  c.tangent1 = in->FiniteVec(name + ".tangent1");
  c.tangent2 = in->FiniteVec(name + ".tangent2");
  c.offset_m = in->FiniteF64(name + ".offset_m");
  c.friction_coefficient = in->FiniteF64(name + ".friction_coefficient");
  c.weight = in->FiniteF64(name + ".weight");
  const uint32_t slots = in->U32(name + ".extra_slots");
  if (slots != c.extra_vertices.size()) {
    in->Fail(name + ".extra_slots",
             absl::StrCat(slots, " slots, this build has ", c.extra_vertices.size()));
    return c;
  }
  for (size_t k = 0; k < c.extra_vertices.size(); ++k) {
    c.extra_vertices[k] = in->I32(name + ".extra_vertices");
    c.extra_free_vertices[k] = in->I32(name + ".extra_free_vertices");
    c.extra_weights[k] = in->FiniteF64(name + ".extra_weights");
  }
  c.obstacle_velocity_mps = in->FiniteVec(name + ".obstacle_velocity_mps");
  return c;
}

}  // namespace

void WriteContactMemory(const std::vector<VertexContact>& contacts, const Eigen::VectorXd& lambda_n,
                        ByteWriter* out) {
  out->U32(static_cast<uint32_t>(contacts.size()));
  for (const VertexContact& c : contacts) WriteVertexContact(c, out);
  for (Eigen::Index i = 0; i < lambda_n.size(); ++i) out->F64(lambda_n[i]);
}

void ReadContactMemory(ByteReader* in, const std::string& name,
                       std::vector<VertexContact>* contacts, Eigen::VectorXd* lambda_n) {
  const uint32_t num_contacts = in->Count(name + ".contacts", 64);
  contacts->clear();
  contacts->reserve(num_contacts);
  for (uint32_t j = 0; j < num_contacts && in->ok(); ++j) {
    contacts->push_back(ReadVertexContact(in, absl::StrCat(name, ".contacts[", j, "]")));
  }
  lambda_n->resize(3 * static_cast<Eigen::Index>(contacts->size()));
  for (Eigen::Index i = 0; i < lambda_n->size() && in->ok(); ++i) {
    (*lambda_n)[i] = in->FiniteF64(name + ".contact_forces_n");
  }
}

void WriteGroupContactMemory(const GroupContactMemory& memory, ByteWriter* out) {
  out->U32(static_cast<uint32_t>(memory.body_ids.size()));
  for (int32_t id : memory.body_ids) out->I32(id);
  WriteContactMemory(memory.contacts, memory.lambda_n, out);
}

absl::StatusOr<GroupContactMemory> ReadGroupContactMemory(ByteReader* in,
                                                          std::span<const SimBody> bodies) {
  GroupContactMemory memory;
  const uint32_t members = in->Count("group_contacts.body_ids", sizeof(int32_t));
  for (uint32_t b = 0; b < members && in->ok(); ++b) {
    const int32_t id = in->I32("group_contacts.body_ids");
    if (!in->ok()) break;
    const auto it = std::lower_bound(bodies.begin(), bodies.end(), id,
                                     [](const SimBody& body, int32_t v) { return body.id < v; });
    if (it == bodies.end() || it->id != id ||
        dynamic_cast<const HyperelasticBody*>(it->body.get()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("group_contacts.body_ids[", b, "]: ", id,
                                                     " is not a hyperelastic body of this world"));
    }
    if (!memory.body_ids.empty() && id <= memory.body_ids.back()) {
      return absl::InvalidArgumentError(
          absl::StrCat("group_contacts.body_ids[", b, "]: ", id, " is not ascending"));
    }
    memory.body_ids.push_back(id);
  }
  if (in->ok() && memory.body_ids.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("group_contacts.body_ids: ", memory.body_ids.size(),
                     " members; a contact group has at least 2"));
  }
  ReadContactMemory(in, "group_contacts", &memory.contacts, &memory.lambda_n);
  if (!in->ok()) return in->status();
  return memory;
}

}  // namespace contactsim::core::serialization
