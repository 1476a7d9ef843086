// The bodies of a World in the world serialization format: a kind code (BodyKindCode) and the
// kind's record. Each record holds what rebuilds the body through its public factory (rest mesh,
// material parameters, pins; for rigid bodies mass, centre of mass and inertia) and then its
// state set bit for bit (positions, velocities, orientation, and the forces already applied for
// the next step). The factories are deterministic, so derived data (lumped masses, springs, rest
// shapes, principal axes) comes out with the same bits as in the original body.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dynamics/body.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/serialization/byte_reader.h"
#include "core/sim/serialization/byte_writer.h"

namespace contactsim::core::serialization {

// Unimplemented for a Body class other than RigidBody, MassSpringCloth, CorotationalFem or
// HyperelasticBody;
// FailedPrecondition for a body part-way through a step.
absl::Status WriteBody(const Body& body, ByteWriter* out);
// Errors are InvalidArgument beginning with `field` (e.g. "bodies[2]"). A body with solvers
// (HyperelasticBody) is built on `backend`, whose own errors pass through.
absl::StatusOr<std::unique_ptr<Body>> ReadBody(ByteReader* in, std::string_view field,
                                               const std::shared_ptr<Backend>& backend);

// The records of each kind (without the kind code).
void WriteRigidBody(const RigidBody& body, ByteWriter* out);
absl::StatusOr<std::unique_ptr<RigidBody>> ReadRigidBody(ByteReader* in, std::string_view field);
void WriteMassSpringCloth(const MassSpringCloth& body, ByteWriter* out);
absl::StatusOr<std::unique_ptr<MassSpringCloth>> ReadMassSpringCloth(ByteReader* in,
                                                                     std::string_view field);
void WriteCorotationalFem(const CorotationalFem& body, ByteWriter* out);
absl::StatusOr<std::unique_ptr<CorotationalFem>> ReadCorotationalFem(ByteReader* in,
                                                                     std::string_view field);
void WriteHyperelasticBody(const HyperelasticBody& body, ByteWriter* out);
absl::StatusOr<std::unique_ptr<HyperelasticBody>> ReadHyperelasticBody(
    ByteReader* in, std::string_view field, const std::shared_ptr<Backend>& backend);

}  // namespace contactsim::core::serialization
