// World serialization: a versioned, self-describing binary form of a World's complete state, so
// a world can be saved, sent and restored in another process; on the CPU the restored world then
// steps bit-identically to the original.
//
// It holds everything that determines later steps: the settings; every body (rigid dynamic,
// static and kinematic, mass-spring cloth, corotational FEM) with its id, name, collision flags,
// rest data (mesh, mass properties or material parameters, pins) and state (positions,
// velocities, orientation, forces already applied for the next step); the ground planes; the
// penalty pipeline's tracked pairs and friction anchors (plane contacts included); time, step
// count, the next body and plane ids, and the energy reference of the divergence check; the
// World's constraints (pins, attachments with their body-frame offsets, position targets) and
// their next id, from which the bodies' run-time vertex holds are rebuilt.
// Not included, because they do not change later steps: the last step's diagnostics and contact
// report (empty after deserializing until the next step), the constraints' driven-work counter
// (0 between steps), the pipeline's CCD caches (Clone starts them empty too), and the World's
// Reset state (a deserialized World has none: Reset answers FailedPrecondition once it has
// stepped).
//
// Layout (serialization/world_format.h; every section in docs/service.md, "Snapshots"): magic
// "CSIMWRLD", format version, payload length, tagged sections, FNV-1a 64 checksum; all
// little-endian and fixed-width, doubles as their IEEE-754 bits.
//
// Deserializing untrusted bytes is safe: a truncated or corrupted input, a wrong magic, an
// unknown version, a bad checksum, an unknown required section, a count that the remaining bytes
// cannot hold, an index or id out of range or a non-finite value where the state needs a finite
// one answers InvalidArgument naming what is wrong (e.g. "bodies[1].cloth.velocities_m_per_s:
// row 3 is not finite"); nothing is allocated beyond what the input's size can hold.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/sim/world.h"

namespace contactsim::core {

// The format version this build writes and the only one it reads.
uint32_t WorldFormatVersion();

// Unimplemented for a body class or pipeline without a serialization.
absl::StatusOr<std::string> SerializeWorldSnapshot(const WorldSnapshot& snapshot);
// The snapshot's solvers (hyperelastic bodies, the local_global pipeline) are built on `backend`
// (the session's: restore it onto a World of the same backend; World::Restore rebuilds them on
// its own otherwise). InvalidArgument for a null backend; the backend's errors pass through. The
// one-argument form makes a CpuBackend for it, explicitly (host-only tools and tests).
absl::StatusOr<WorldSnapshot> DeserializeWorldSnapshot(std::string_view bytes,
                                                       std::shared_ptr<Backend> backend);
absl::StatusOr<WorldSnapshot> DeserializeWorldSnapshot(std::string_view bytes);

// World::Snapshot then SerializeWorldSnapshot (FailedPrecondition for a diverged world).
absl::StatusOr<std::string> SerializeWorld(const World& world);
// A new World in the serialized state (World::Create with its settings on `backend`, then
// Restore); the one-argument form on a new CpuBackend (World::Create(settings)'s convenience).
absl::StatusOr<World> DeserializeWorld(std::string_view bytes, std::shared_ptr<Backend> backend);
absl::StatusOr<World> DeserializeWorld(std::string_view bytes);

}  // namespace contactsim::core
