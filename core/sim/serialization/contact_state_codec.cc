// Tracked pair: kind u8 | body_a, feature_a, body_b, feature_b (int32) | weights (3 f64) |
// penetrating sign f64 | last normal (3 f64) | friction (has_reference u8, p_ref 3 f64).
// Plane contact: body, vertex, plane id (int32) | friction (has_reference u8, p_ref 3 f64).
#include "core/sim/serialization/contact_state_codec.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core::serialization {
namespace {

constexpr size_t kFrictionBytes = 1 + 3 * sizeof(double);
constexpr size_t kPairBytes = 1 + 4 * sizeof(int32_t) + 7 * sizeof(double) + kFrictionBytes;
constexpr size_t kPlaneContactBytes = 3 * sizeof(int32_t) + kFrictionBytes;

void WriteFriction(const FrictionContactState& friction, ByteWriter* out) {
  out->Bool(friction.has_reference);
  out->Vec(friction.p_ref_W);
}

FrictionContactState ReadFriction(ByteReader* in, const std::string& field) {
  FrictionContactState friction;
  friction.has_reference = in->Bool(field + ".has_reference");
  friction.p_ref_W = in->FiniteVec(field + ".p_ref_W");
  return friction;
}

const SimBody* FindBody(std::span<const SimBody> bodies, int32_t id) {
  const auto it =
      std::lower_bound(bodies.begin(), bodies.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies.end() && it->id == id ? &*it : nullptr;
}

// An error unless 0 <= index < size.
absl::Status CheckIndex(const std::string& field, const char* what, int32_t index, int size,
                        int32_t body_id) {
  if (index >= 0 && index < size) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": no ", what, " ", index, " in body ",
                                                 body_id, " (", size, " ", what, "s)"));
}

}  // namespace

void WriteTrackedPairs(const std::vector<TrackedPair>& pairs, ByteWriter* out) {
  out->U32(static_cast<uint32_t>(pairs.size()));
  for (const TrackedPair& pair : pairs) {
    out->U8(static_cast<uint8_t>(pair.key.kind));
    out->I32(pair.key.body_a);
    out->I32(pair.key.feature_a);
    out->I32(pair.key.body_b);
    out->I32(pair.key.feature_b);
    out->Vec(pair.weights);
    out->F64(pair.penetrating_sign);
    out->Vec(pair.normal_W);
    WriteFriction(pair.friction, out);
  }
}

absl::StatusOr<std::vector<TrackedPair>> ReadTrackedPairs(ByteReader* in,
                                                          std::span<const SimBody> bodies) {
  const uint32_t count = in->Count("tracked_pairs", kPairBytes);
  std::vector<TrackedPair> pairs;
  pairs.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const std::string field = absl::StrCat("tracked_pairs[", i, "]");
    TrackedPair pair;
    const uint8_t kind = in->U8(field + ".kind");
    pair.key.body_a = in->I32(field + ".body_a");
    pair.key.feature_a = in->I32(field + ".feature_a");
    pair.key.body_b = in->I32(field + ".body_b");
    pair.key.feature_b = in->I32(field + ".feature_b");
    pair.weights = in->FiniteVec(field + ".weights");
    pair.penetrating_sign = in->F64(field + ".penetrating_sign");
    pair.normal_W = in->FiniteVec(field + ".normal_W");
    pair.friction = ReadFriction(in, field + ".friction");
    if (!in->ok()) return in->status();
    if (kind > static_cast<uint8_t>(CcdPairKind::kEdgeEdge)) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".kind: unknown pair kind ", kind));
    }
    pair.key.kind = static_cast<CcdPairKind>(kind);
    if (pair.penetrating_sign != 1.0 && pair.penetrating_sign != -1.0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".penetrating_sign: must be +1 or -1, got ", pair.penetrating_sign));
    }
    const SimBody* a = FindBody(bodies, pair.key.body_a);
    const SimBody* b = FindBody(bodies, pair.key.body_b);
    if (a == nullptr || b == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, a == nullptr ? ".body_a" : ".body_b", ": no body ",
                       a == nullptr ? pair.key.body_a : pair.key.body_b));
    }
    const TriangleMesh& mesh_a = a->body->surface();
    const TriangleMesh& mesh_b = b->body->surface();
    absl::Status status;
    if (pair.key.kind == CcdPairKind::kVertexFace) {
      status = CheckIndex(field + ".feature_a", "vertex", pair.key.feature_a,
                          a->body->num_vertices(), a->id);
      if (status.ok()) {
        status =
            CheckIndex(field + ".feature_b", "face", pair.key.feature_b, mesh_b.num_faces(), b->id);
      }
    } else {
      status =
          CheckIndex(field + ".feature_a", "edge", pair.key.feature_a, mesh_a.num_edges(), a->id);
      if (status.ok()) {
        status =
            CheckIndex(field + ".feature_b", "edge", pair.key.feature_b, mesh_b.num_edges(), b->id);
      }
    }
    if (!status.ok()) return status;
    pairs.push_back(pair);
  }
  return pairs;
}

void WritePlaneContacts(const std::vector<PlaneContact>& contacts, ByteWriter* out) {
  out->U32(static_cast<uint32_t>(contacts.size()));
  for (const PlaneContact& contact : contacts) {
    out->I32(contact.body_id);
    out->I32(contact.vertex);
    out->I32(contact.plane_id);
    WriteFriction(contact.friction, out);
  }
}

absl::StatusOr<std::vector<PlaneContact>> ReadPlaneContacts(ByteReader* in,
                                                            std::span<const SimBody> bodies,
                                                            std::span<const GroundPlane> planes) {
  const uint32_t count = in->Count("plane_contacts", kPlaneContactBytes);
  std::vector<PlaneContact> contacts;
  contacts.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const std::string field = absl::StrCat("plane_contacts[", i, "]");
    PlaneContact contact;
    contact.body_id = in->I32(field + ".body_id");
    contact.vertex = in->I32(field + ".vertex");
    contact.plane_id = in->I32(field + ".plane_id");
    contact.friction = ReadFriction(in, field + ".friction");
    if (!in->ok()) return in->status();
    const SimBody* body = FindBody(bodies, contact.body_id);
    if (body == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".body_id: no body ", contact.body_id));
    }
    RETURN_IF_ERROR(CheckIndex(field + ".vertex", "vertex", contact.vertex,
                               body->body->num_vertices(), body->id));
    const bool plane_exists = std::any_of(planes.begin(), planes.end(), [&](const GroundPlane& p) {
      return p.id == contact.plane_id;
    });
    if (!plane_exists) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".plane_id: no ground plane ", contact.plane_id));
    }
    contacts.push_back(contact);
  }
  return contacts;
}

}  // namespace contactsim::core::serialization
