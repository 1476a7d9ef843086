// What a session holds in memory, by part, computed from the sizes the code knows (counts of
// vertices, faces, tetrahedra, frames, bytes of stored meshes, the backend's resident bytes),
// never from the process's RSS. The accounting is what the memory budgets (memory_budget.h)
// charge, and what GetSession reports.
//
// With V vertices, F surface triangles and T tetrahedra of a body, a body costs
//
//   body(V, F, T) = v_type V + 12 F + t_type T                                   [bytes]
//
// where v_type is the bytes per vertex of the body's arrays (positions at t0 and t1, velocities,
// pending forces and masses of a particle body, a cloth's springs; body-frame and world positions
// of a rigid one; the rest shape of either) and t_type the bytes per tetrahedron (indices and rest
// data; the host matrices G and G^T W of a hyperelastic body). The pipeline's collision structures
// keep, per body, a box (48 bytes) and a BVH over its vertices, edges (about 3F/2) and faces: the
// leaf boxes again, nodes of 4 primitives and the primitive order, 128 bytes per primitive in all:
//
//   collision(V, F) = 128 (V + 3F/2 + F) = 128 V + 320 F                            [bytes] A
//   published frame copies every body's
// positions and velocities (48 bytes per vertex) and a fixed record per body, so the frame ring
// holds at most
//
//   frames = ring_frames (48 sum V + 256 bodies)                                   [bytes]
//
// which is what it reaches after ring_frames Step calls; the budgets charge that bound from the
// start, so a body that fits now still fits once the ring is full. The solver part is the
// session's backend's resident bytes (core/linalg/backend.h: the local_global factor S = L^-1 as
// R and R^T, the Delassus blocks); the kept initial state (ResetSession's) costs its bodies again.
#pragma once

#include <cstdint>

#include "core/dynamics/body.h"
#include "core/sim/world.h"

namespace contactsim::server {

struct SessionMemory {
  int64_t meshes_bytes = 0;     // UploadMesh's meshes and the robots' mesh files
  int64_t bodies_bytes = 0;     // the bodies' geometry and state (host)
  int64_t collision_bytes = 0;  // the pipeline's trees and boxes over the bodies' features
  int64_t solver_bytes = 0;     // the backend's resident bytes (factors, matrices)
  int64_t frames_bytes = 0;     // the frame ring at its capacity
  int64_t snapshots_bytes = 0;  // the kept initial state
  int64_t total() const {
    return meshes_bytes + bodies_bytes + collision_bytes + solver_bytes + frames_bytes +
           snapshots_bytes;
  }
};

// Bytes per vertex of a body's arrays, and per tetrahedron (see the top).
int64_t BodyBytesPerVertex(core::BodyType type);
int64_t BodyBytesPerTet(core::BodyType type);
inline constexpr int64_t kBytesPerFace = 12;         // three int32 indices
inline constexpr int64_t kFrameBytesPerVertex = 48;  // position and velocity, 3 doubles each
inline constexpr int64_t kFrameBytesPerBody = 256;   // the copy's fixed record (pose, ids)

// body(V, F, T) for a body not built yet (its counts known from the request).
int64_t BodyBytesFor(core::BodyType type, int64_t vertices, int64_t faces, int64_t tets);
// body(V, F, T) of a built body.
int64_t BodyBytes(const core::Body& body);
// collision(V, F) (see the top).
inline int64_t CollisionBytesFor(int64_t vertices, int64_t faces) {
  return 128 * vertices + 320 * faces;
}
// The bodies of a World, their collision structures, and one published frame's copy of its state.
int64_t WorldBodiesBytes(const core::World& world);
int64_t WorldCollisionBytes(const core::World& world);
int64_t WorldFrameBytes(const core::World& world);
// One frame's copy of `vertices` vertices over `bodies` bodies.
inline int64_t FrameBytesFor(int64_t vertices, int64_t bodies) {
  return kFrameBytesPerVertex * vertices + kFrameBytesPerBody * bodies;
}

}  // namespace contactsim::server
