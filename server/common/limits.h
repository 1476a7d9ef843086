// Server-wide limits, set from flags (server/main.cc). A request beyond one answers
// RESOURCE_EXHAUSTED naming the field and the limit.
#pragma once

#include <cstdint>

namespace contactsim::server {

struct ServerLimits {
  int max_sessions = 64;
  int max_bodies_per_session = 1024;
  int64_t max_vertices_per_mesh = 1'000'000;
  int64_t max_elements_per_mesh = 4'000'000;  // triangles or tetrahedra
  int max_steps_per_call = 100'000;
  int max_message_bytes = 64 << 20;  // gRPC receive and send limit [bytes]
  int stream_ring_frames = 64;       // frames kept per session for StreamState from_seq
  int max_constraints_per_session = 4096;
  // Meshes stored by UploadMesh: how many per session, and their bytes together (8 per
  // coordinate, 4 per index), counted while a mesh streams in.
  int max_meshes_per_session = 16;
  int64_t max_mesh_bytes_per_session = int64_t{256} << 20;
  // A mesh file sent by UploadMesh (UploadMeshChunk.file_bytes and ele_file_bytes together) is
  // buffered whole before it is parsed: its bytes, counted while it streams in [bytes]. 128 MiB
  // holds a binary STL of 2.6 million triangles.
  int64_t max_mesh_file_bytes = int64_t{128} << 20;
  // Session, body and mesh names [bytes]: they appear in every listing, topology and log line.
  int max_name_bytes = 256;
  // local_global.iterations and cr_iterations of one session: each scales the work of every step,
  // so a client cannot ask for a step that holds a worker for hours.
  int max_solver_iterations = 1000;
  // Sessions one peer (a client certificate's subject, else an address) may hold; 0: no quota.
  int max_sessions_per_peer = 0;
  // StreamState streams open at once on one session, and from one peer; 0: no limit. (Browser
  // viewers are the viewer server's, --viewer-max-viewers.)
  int max_streams_per_session = 64;
  int max_streams_per_peer = 256;
  // Memory (server/session/session_memory.h accounts a session's bytes by part): every session
  // together (--memory-budget) and one session (--session-memory-budget) [bytes]; 0: no budget.
  // A request that would grow a session past either is refused before it allocates.
  int64_t memory_budget_bytes = 0;
  int64_t max_memory_bytes_per_session = 0;
};

}  // namespace contactsim::server
