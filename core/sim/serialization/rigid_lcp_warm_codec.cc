#include "core/sim/serialization/rigid_lcp_warm_codec.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace contactsim::core::serialization {
namespace {

// 9 i32, f64, vec, u8, 2 u64, u8.
constexpr size_t kContactBytes = 9 * 4 + 8 + 24 + 1 + 2 * 8 + 1;

void WriteFlags(const std::vector<uint8_t>& flags, ByteWriter* out) {
  out->U32(static_cast<uint32_t>(flags.size()));
  for (const uint8_t f : flags) out->U8(f);
}

std::vector<uint8_t> ReadFlags(ByteReader* in, const std::string& field) {
  std::vector<uint8_t> flags(in->Count(field, 1));
  for (uint8_t& f : flags) f = in->U8(field);
  return flags;
}

}  // namespace

void WriteRigidLcpWarmStart(const PolytopeWarmStart& warm, ByteWriter* out) {
  out->U32(static_cast<uint32_t>(warm.contacts.size()));
  for (const PolytopeWarmContact& c : warm.contacts) {
    for (const int v : {c.body1, c.body2, c.piece1, c.piece2, c.plane_id, c.kind, c.feature_body,
                        c.feature1, c.feature2}) {
      out->I32(v);
    }
    out->F64(c.normal_impulse_n_s);
    out->Vec(c.friction_impulse_n_s);
    out->U8(c.active.flags);
    out->U64(c.active.friction);
    out->U64(c.active.slack);
    out->U8(c.torsion);
  }
  out->U32(static_cast<uint32_t>(warm.joints.size()));
  for (const PolytopeWarmJoint& j : warm.joints) {
    WriteFlags(j.limits, out);
    WriteFlags(j.bounded, out);
  }
}

absl::StatusOr<PolytopeWarmStart> ReadRigidLcpWarmStart(ByteReader* in) {
  PolytopeWarmStart warm;
  warm.contacts.resize(in->Count("rigid_lcp_warm_start.contacts", kContactBytes));
  for (size_t i = 0; i < warm.contacts.size() && in->ok(); ++i) {
    const std::string name = absl::StrCat("rigid_lcp_warm_start.contacts[", i, "]");
    PolytopeWarmContact& c = warm.contacts[i];
    for (int* v : {&c.body1, &c.body2, &c.piece1, &c.piece2, &c.plane_id, &c.kind, &c.feature_body,
                   &c.feature1, &c.feature2}) {
      *v = in->I32(name);
    }
    c.normal_impulse_n_s = in->FiniteF64(name + ".normal_impulse_n_s");
    c.friction_impulse_n_s = in->FiniteVec(name + ".friction_impulse_n_s");
    c.active.flags = in->U8(name + ".flags");
    c.active.friction = in->U64(name + ".friction");
    c.active.slack = in->U64(name + ".slack");
    c.torsion = in->U8(name + ".torsion");
  }
  // A joint holds at least its two counts.
  warm.joints.resize(in->Count("rigid_lcp_warm_start.joints", 8));
  for (size_t j = 0; j < warm.joints.size() && in->ok(); ++j) {
    const std::string name = absl::StrCat("rigid_lcp_warm_start.joints[", j, "]");
    warm.joints[j].limits = ReadFlags(in, name + ".limits");
    warm.joints[j].bounded = ReadFlags(in, name + ".bounded");
  }
  if (!in->ok()) return in->status();
  return warm;
}

}  // namespace contactsim::core::serialization
