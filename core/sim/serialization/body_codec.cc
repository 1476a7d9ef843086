#include "core/sim/serialization/body_codec.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/sim/serialization/world_format.h"

namespace contactsim::core::serialization {

absl::Status WriteBody(const Body& body, ByteWriter* out) {
  if (body.positions_t0() != body.positions_t1()) {
    return absl::FailedPreconditionError(
        "body: is part-way through a step (Predict without Correct)");
  }
  if (const auto* rigid = dynamic_cast<const RigidBody*>(&body)) {
    out->U8(static_cast<uint8_t>(BodyKindCode::kRigid));
    WriteRigidBody(*rigid, out);
    return absl::OkStatus();
  }
  if (const auto* cloth = dynamic_cast<const MassSpringCloth*>(&body)) {
    out->U8(static_cast<uint8_t>(BodyKindCode::kMassSpringCloth));
    WriteMassSpringCloth(*cloth, out);
    return absl::OkStatus();
  }
  if (const auto* fem = dynamic_cast<const CorotationalFem*>(&body)) {
    out->U8(static_cast<uint8_t>(BodyKindCode::kCorotationalFem));
    WriteCorotationalFem(*fem, out);
    return absl::OkStatus();
  }
  if (const auto* hyperelastic = dynamic_cast<const HyperelasticBody*>(&body)) {
    out->U8(static_cast<uint8_t>(BodyKindCode::kHyperelastic));
    WriteHyperelasticBody(*hyperelastic, out);
    return absl::OkStatus();
  }
  return absl::UnimplementedError(absl::StrCat("body: type ", static_cast<int>(body.type()),
                                               " has no serialization (not a RigidBody, "
                                               "MassSpringCloth, CorotationalFem or "
                                               "HyperelasticBody)"));
}

absl::StatusOr<std::unique_ptr<Body>> ReadBody(ByteReader* in, std::string_view field,
                                               const std::shared_ptr<Backend>& backend) {
  const std::string name(field);
  const uint8_t kind = in->U8(name + ".kind");
  if (!in->ok()) return in->status();
  switch (static_cast<BodyKindCode>(kind)) {
    case BodyKindCode::kRigid:
      return ReadRigidBody(in, name + ".rigid");
    case BodyKindCode::kMassSpringCloth:
      return ReadMassSpringCloth(in, name + ".cloth");
    case BodyKindCode::kCorotationalFem:
      return ReadCorotationalFem(in, name + ".fem");
    case BodyKindCode::kHyperelastic:
      return ReadHyperelasticBody(in, name + ".hyperelastic", backend);
  }
  return absl::InvalidArgumentError(absl::StrCat(name, ".kind: unknown body kind ", kind));
}

}  // namespace contactsim::core::serialization
