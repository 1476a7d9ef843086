// A published state frame of one session in core types (what StreamState sends, converted by
// server/convert/frame_convert.h): world vertex positions and velocities of every body, the
// last step's contact report and diagnostics, and the topology it refers to.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/contact/contact_report.h"
#include "core/dynamics/body.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/triangle_mesh.h"
#include "core/sim/step_diagnostics.h"

namespace contactsim::server {

struct TopologyBody {
  int32_t body_id = 0;
  core::BodyType type = core::BodyType::kRigid;
  core::RigidBodyKind rigid_kind = core::RigidBodyKind::kDynamic;  // for kRigid
  std::string name;
  core::IndexTriples faces;  // the collision surface over the body's vertex indices
};

// The bodies as they were between two content changes; `version` increases with each change.
struct Topology {
  int64_t version = 0;
  std::vector<TopologyBody> bodies;  // ascending id
};

struct FrameBody {
  int32_t body_id = 0;
  core::Points3 positions_m;         // every vertex, world [m]
  core::Points3 velocities_m_per_s;  // every vertex, world [m/s]
};

struct Frame {
  int64_t seq = 0;  // assigned by the FrameBus, 1, 2, ...
  double time_s = 0.0;
  int64_t step_count = 0;
  std::shared_ptr<const Topology> topology;
  std::vector<FrameBody> bodies;  // ascending id
  core::ContactReport contacts;   // of the last step
  core::StepDiagnostics diagnostics;
};

}  // namespace contactsim::server
