#include "server/service/summary_proto.h"

namespace contactsim::server {

v1::SessionSummary ToProto(const SessionSummary& summary) {
  v1::SessionSummary message;
  message.set_session_id(summary.id);
  message.set_name(summary.name);
  message.set_pipeline(summary.pipeline);
  message.set_state(summary.state == SessionState::kActive ? v1::SESSION_STATE_ACTIVE
                                                           : v1::SESSION_STATE_FAILED);
  message.set_failure_message(summary.failure_message);
  message.set_step_count(summary.step_count);
  message.set_time_s(summary.time_s);
  message.set_num_bodies(summary.num_bodies);
  message.set_device(summary.device);
  message.set_device_resident_bytes(summary.device_resident_bytes);
  message.set_memory_bytes(summary.memory.total());
  v1::SessionMemory* memory = message.mutable_memory();
  memory->set_meshes_bytes(summary.memory.meshes_bytes);
  memory->set_bodies_bytes(summary.memory.bodies_bytes);
  memory->set_collision_bytes(summary.memory.collision_bytes);
  memory->set_solver_bytes(summary.memory.solver_bytes);
  memory->set_frames_bytes(summary.memory.frames_bytes);
  memory->set_snapshots_bytes(summary.memory.snapshots_bytes);
  return message;
}

}  // namespace contactsim::server
