#include "server/session/session_memory.h"

#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/local_global/hyperelastic_body.h"

namespace contactsim::server {

int64_t BodyBytesPerVertex(core::BodyType type) {
  switch (type) {
    case core::BodyType::kRigid:
      // Rest shape, body-frame vertices, world positions at t0 and t1: 4 x 24.
      return 96;
    case core::BodyType::kMassSpringCloth:
      // Rest shape, positions t0 and t1, velocities, pending forces (5 x 24), mass (8), and the
      // springs: structural, shear and bending, about 6 per vertex of 24 bytes each (144).
      return 272;
    case core::BodyType::kCorotationalFem:
      // Rest shape, positions t0 and t1, velocities, pending forces (5 x 24), mass (8), and the
      // corner lists (about 72).
      return 200;
    case core::BodyType::kHyperelastic:
      // Rest shape, positions, velocities, the solver's iterates and right-hand sides (8 x 24),
      // lumped mass (8).
      return 200;
  }
  return 200;
}

int64_t BodyBytesPerTet(core::BodyType type) {
  switch (type) {
    case core::BodyType::kCorotationalFem:
      // Indices (16), D_m^-1 and volume (80), corner entries (16).
      return 112;
    case core::BodyType::kHyperelastic:
      // Indices (16), rest data (80), the host rows of G and G^T W: 3 rows of 4 entries each,
      // 12 bytes per entry (8 value, 4 index), twice (288).
      return 384;
    default:
      return 0;
  }
}

int64_t BodyBytesFor(core::BodyType type, int64_t vertices, int64_t faces, int64_t tets) {
  return BodyBytesPerVertex(type) * vertices + kBytesPerFace * faces + BodyBytesPerTet(type) * tets;
}

int64_t BodyBytes(const core::Body& body) {
  int64_t tets = 0;
  if (body.type() == core::BodyType::kCorotationalFem) {
    tets = static_cast<const core::CorotationalFem&>(body).mesh().num_tets();
  } else if (body.type() == core::BodyType::kHyperelastic) {
    tets = static_cast<const core::HyperelasticBody&>(body).mesh().num_tets();
  }
  return BodyBytesFor(body.type(), body.num_vertices(), body.surface().num_faces(), tets);
}

int64_t WorldBodiesBytes(const core::World& world) {
  int64_t bytes = 0;
  for (const int32_t id : world.body_ids()) bytes += BodyBytes(*world.body(id));
  return bytes;
}

int64_t WorldCollisionBytes(const core::World& world) {
  int64_t bytes = 0;
  for (const int32_t id : world.body_ids()) {
    const core::Body& body = *world.body(id);
    bytes += CollisionBytesFor(body.num_vertices(), body.surface().num_faces());
  }
  return bytes;
}

int64_t WorldFrameBytes(const core::World& world) {
  int64_t vertices = 0;
  for (const int32_t id : world.body_ids()) vertices += world.body(id)->num_vertices();
  return FrameBytesFor(vertices, world.num_bodies());
}

}  // namespace contactsim::server
