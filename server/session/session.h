// Session: one simulated World (any pipeline) with its tokens and its state (active or
// failed). The service runs the session's work (steps, edits, snapshots) as tasks on the
// session's Strand, one at a time in arrival order, while different sessions run in parallel on
// the server's WorkerPool. Every operation also takes the session's mutex, which guards reads
// from outside the strand (ListSessions' summaries).
//
// Every mutating operation validates all of its input against the World before it changes
// anything, so a refused request leaves the session exactly as it was. A step that diverges
// (World::Step returns FailedPrecondition) puts the session in kFailed: Step, AddBody,
// RemoveBody, AddConstraint and RemoveConstraint then answer FailedPrecondition until Restore.
//
// Device: the session's World runs on one Backend (core/linalg/backend.h), the session's own,
// given at creation and never changed (a Restore decodes the snapshot onto it). The backend is
// only called from the session's operations, one at a time under the session's mutex (and on its
// strand); Summary reports its device and its resident bytes as of the last operation, without
// calling it.
//
// After every Step call and content change the session publishes a Frame on its FrameBus (under
// its lock, so frames are in step order); publishing copies the state and never waits for
// viewers.
//
// Memory: after every operation the session accounts what it holds (session_memory.h) and charges
// it to the server's MemoryBudget; an operation that grows the session reserves its estimate
// first and is refused (ResourceExhausted naming the budget, the session unchanged) when the
// reservation does not fit.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/contact/contact_report.h"
#include "core/dynamics/body.h"
#include "core/sim/constraints.h"
#include "core/sim/pipeline_table.h"
#include "core/sim/step_controls.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world.h"
#include "core/sim/world_state.h"
#include "server/auth/token.h"
#include "server/common/limits.h"
#include "server/common/robot_listing.h"
#include "server/common/uploaded_mesh.h"
#include "server/session/frame_bus.h"
#include "server/session/memory_budget.h"
#include "server/session/session_memory.h"
#include "server/session/strand.h"

namespace contactsim::server {

enum class SessionState { kActive, kFailed };

struct SessionSummary {
  std::string id;
  std::string name;
  std::string pipeline;
  SessionState state = SessionState::kActive;
  std::string failure_message;
  int64_t step_count = 0;
  double time_s = 0.0;
  int num_bodies = 0;
  std::string device;                 // "cpu" or "cuda": the World's backend, never changed
  int64_t device_resident_bytes = 0;  // the backend's ResidentBytes() after the last operation
  SessionMemory memory;               // what the session holds, by part, after the last operation
};

// What one Step call did. `status` as World::Step (FailedPrecondition naming n_steps when the
// simulation diverged part-way, the session then failed). When at least one step was taken,
// `state` and `contacts` are the state after the last one and its contact report (the same copies
// the published frame holds) and `outcome` has a diagnostics entry per step; otherwise they are
// null and empty.
struct SessionStepResult {
  absl::Status status;
  std::shared_ptr<const core::WorldState> state;
  std::shared_ptr<const core::ContactReport> contacts;
  core::StepOutcome outcome;
};

// What a Step call asks beyond its steps; the service fills it from the request and the call.
struct StepCallChecks {
  // StepRequest.expected_step_count: when set and not the session's count, the call is refused
  // (FailedPrecondition naming the current count) and nothing steps, so a retried Step whose
  // first attempt went through does not step twice.
  std::optional<int64_t> expected_step_count;
  // Under the session's lock, before any step: may refuse the call (a reply that could not fit).
  std::function<absl::Status(const core::World&)> preflight;
  // Asked before every step (the call's deadline and cancellation, the server's drain); a non-OK
  // answer stops the call there, the steps before it kept.
  std::function<absl::Status()> interrupt;
};

// What GetSession reports of the World.
struct SessionContent {
  core::WorldSettings settings;
  std::vector<int32_t> body_ids;  // ascending
  std::vector<core::GroundPlane> ground_planes;
  std::vector<RobotListing> robots;  // ascending robot id
};

// The SHA-256 of a session's tokens (server/auth/token_hash.h): what the session checks a
// presented token against, and all of the tokens a state directory keeps.
struct TokenHashes {
  std::string controller;
  std::string viewer;
};

// How far a session has changed, read without its lock (the state directory's persister,
// server/persist/): `content_version` grows with every change of content (bodies, constraints,
// a Restore), `step_count` is the World's after the last operation.
struct ChangeMarks {
  int64_t content_version = 0;
  int64_t step_count = 0;
};

// A snapshot blob (server/session/snapshot_blob.h) and the time it was taken at.
struct SessionSnapshot {
  std::string blob;
  int64_t step_count = 0;
  double time_s = 0.0;
};

class Session {
 public:
  // A new session with new tokens.
  Session(std::string id, std::string name, core::World world, const ServerLimits& limits);
  // A session brought back from a state directory (server/persist/): only its tokens' hashes
  // are known, so controller_token() and viewer_token() are empty.
  Session(std::string id, std::string name, core::World world, const ServerLimits& limits,
          TokenHashes restored_tokens);

  ~Session();

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  // The tokens of a new session (CreateSession's reply); empty for a restored one.
  const std::string& controller_token() const { return controller_token_; }
  const std::string& viewer_token() const { return viewer_token_; }
  const TokenHashes& token_hashes() const { return token_hashes_; }
  // The role a presented token grants, or nullopt for a wrong token.
  std::optional<Role> RoleOf(std::string_view token) const;

  SessionSummary Summary() const;
  // Without the lock (metrics): the state as of the last completed operation.
  SessionState state() const { return state_.load(std::memory_order_relaxed); }
  // The World's backend and its name ("cpu" or "cuda"); fixed for the session's life.
  const std::shared_ptr<core::Backend>& backend() const { return backend_; }
  const std::string& device() const { return device_; }
  // Without the lock (metrics): the backend's resident bytes after the last operation.
  int64_t device_resident_bytes() const { return device_bytes_.load(std::memory_order_relaxed); }

  // Without the lock: how far the session has changed (see ChangeMarks).
  ChangeMarks change_marks() const {
    return {content_version_.load(std::memory_order_acquire),
            step_count_.load(std::memory_order_acquire)};
  }

  // The FIFO that runs this session's tasks (see strand.h).
  const std::shared_ptr<Strand>& strand() const { return strand_; }

  // A call named this session (SessionManager::Get marks every lookup).
  void MarkUsed(std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now()) {
    last_used_ticks_.store(now.time_since_epoch().count(), std::memory_order_relaxed);
  }
  // A call runs on the session for as long as the returned token lives; when it ends the session
  // counts as used then (a Step longer than the idle timeout does not make its session idle).
  // (The token keeps the session alive.)
  static std::shared_ptr<void> TrackCall(std::shared_ptr<Session> session) {
    session->calls_in_flight_.fetch_add(1, std::memory_order_acq_rel);
    return std::shared_ptr<void>(nullptr, [session = std::move(session)](void*) {
      session->MarkUsed();
      session->calls_in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    });
  }
  // No call running, none since `now - timeout`, and nobody watching (--session-idle-timeout-s).
  bool IdleAt(std::chrono::steady_clock::time_point now,
              std::chrono::steady_clock::duration timeout) const {
    const std::chrono::steady_clock::time_point last_used(
        std::chrono::steady_clock::duration(last_used_ticks_.load(std::memory_order_relaxed)));
    return calls_in_flight_.load(std::memory_order_acquire) == 0 && frames_->watchers() == 0 &&
           now - last_used >= timeout;
  }

  // Shared so that streams outlive a closed session safely.
  const std::shared_ptr<FrameBus>& frames() const { return frames_; }
  // Ends the session's streams (CloseSession).
  void CloseStreams() { frames_->Close(); }

  // Charges the session to `budget` (the SessionManager's, shared by every session) from now on,
  // instead of the unlimited one it starts with. Before the session is shared.
  void AttachMemoryBudget(std::shared_ptr<MemoryBudget> budget);
  // Reserves `bytes` that a request is about to allocate for this session (memory_budget.h):
  // ResourceExhausted starting with `field` and naming the budget when it does not fit.
  absl::StatusOr<MemoryBudget::Reservation> ReserveMemory(int64_t bytes, std::string_view field);
  // What the budgets leave now, after the reservations held (AddBody's estimate), for what a new
  // body's solver will put on the session's backend (a local_global factor, checked before it is
  // built); bytes < 0 when no budget applies or on a GPU, whose solver bytes are device memory
  // under --gpu-memory-budget (memory_budget.h).
  MemoryBudget::Headroom SolverHeadroom() const;
  // What the session holds, by part, as of its last operation.
  SessionMemory memory() const;

  // Copies taken under the session's lock.
  SessionContent Content() const;
  core::WorldSettings settings() const;

  // `field` names the body in errors ("body"). ResourceExhausted beyond the body limit, or when
  // the body with its frames and what it put on the backend passes a memory budget beyond
  // `reservation` (what the caller reserved from its estimate; grown here when short).
  absl::StatusOr<int32_t> AddBody(std::unique_ptr<core::Body> body, core::BodyOptions options,
                                  std::string_view field,
                                  MemoryBudget::Reservation* reservation = nullptr);
  absl::Status RemoveBody(int32_t body_id);

  // World constraints (core/sim/constraints.h). Errors name the member under "constraint."
  // ("constraint.pin.vertices[2]: ..."); ResourceExhausted beyond
  // limits.max_constraints_per_session; FailedPrecondition while failed.
  absl::StatusOr<int32_t> AddConstraint(core::ConstraintSpec spec);
  // NotFound ("constraint_id: ...") for an unknown id.
  absl::Status RemoveConstraint(int32_t constraint_id);

  // World::AddRobot under the lock with the model loaded from `spec` beforehand (off the lock;
  // core::LoadRobotModel), within the server's limits: its links count against
  // max_bodies_per_session, its mesh files' bytes against max_mesh_bytes_per_session with the
  // uploaded meshes and the other robots' files (ResourceExhausted naming the field). Publishes a
  // frame with the new topology. FailedPrecondition while failed.
  absl::StatusOr<RobotListing> AddRobot(core::RobotSpec spec,
                                        std::shared_ptr<const core::RobotModel> model);
  // World::SetJointState with the named joints' positions and velocities (the others keep their
  // positions, velocities 0), then the state's motor commands (World::SetJointMotor); NotFound
  // naming an unknown robot or joint, InvalidArgument naming commands[i] for a joint named twice
  // or a motor the joint cannot take; all checked before anything changes. Publishes a frame.
  // FailedPrecondition while failed.
  absl::Status SetJointState(int32_t robot_id, const JointStateByName& state);

  // Meshes from UploadMesh, kept until the session closes (snapshots and Restore leave them
  // alone). The bytes the session may still store, or ResourceExhausted when it already holds
  // limits.max_meshes_per_session meshes.
  absl::StatusOr<int64_t> MeshBudgetBytes() const;
  // Stores a checked mesh and returns its id ("mesh-1", "mesh-2", ... never reused);
  // ResourceExhausted when the count or byte limit would be passed.
  absl::StatusOr<std::string> StoreMesh(UploadedMesh mesh);
  // NotFound "<field>.mesh_id: ..." for an unknown id.
  absl::StatusOr<std::shared_ptr<const UploadedMesh>> FindMesh(std::string_view mesh_id,
                                                               std::string_view field) const;

  // World::Step(n_steps, controls, ...) under the lock (core/sim/step_controls.h), then publishes
  // a frame when a step was taken.
  // `checks` are applied in order: the expected count, the preflight, then the interrupt before
  // each step; an interrupted call's status says how many of n_steps were taken and where the
  // session is now.
  SessionStepResult Step(int n_steps, const core::StepControls& controls,
                         const StepCallChecks& checks = {});

  // The whole state serialized (version 2 blob); nothing is kept in the server. ResourceExhausted
  // when the blob would not fit in a reply (limits.max_message_bytes).
  absl::StatusOr<SessionSnapshot> Snapshot();
  // Replaces the whole state (settings included) by a blob's, from this session or any other,
  // in this process or another; clears kFailed. The blob is decoded onto the session's backend.
  // InvalidArgument naming `snapshot` for a bad blob, ResourceExhausted for one beyond this
  // server's limits or the device memory budget; either leaves the session as it was.
  absl::Status Restore(std::string_view blob);

  // World::SetBodyState under the lock (errors as there, naming the member), then publishes a
  // frame. FailedPrecondition while failed.
  absl::Status SetBodyState(int32_t body_id, const core::BodyStateUpdate& update);

  // The initial state (what ResetSession returns to): a copy of the World kept in memory, taken
  // when the first Step call begins unless MarkInitialState kept one before; MarkInitialState
  // replaces it. A session brought back from a state directory keeps none (it is not written
  // there) until MarkInitialState.
  // Keeps the current state; FailedPrecondition while failed.
  absl::Status MarkInitialState();
  // Restores the kept initial state (clearing kFailed) and publishes a frame; FailedPrecondition
  // naming `snapshot` when none is kept. ResourceExhausted when the backend cannot hold it (the
  // session is then as it was).
  absl::Status ResetToInitialState();

  // The whole state as a snapshot blob with the change marks it corresponds to, for the state
  // directory: no message size limit. FailedPrecondition while the session is failed (a diverged
  // World is not serialized; the last good state stays on disk).
  struct Capture {
    std::string blob;
    ChangeMarks marks;
    double time_s = 0.0;
  };
  absl::StatusOr<Capture> CaptureForStateDir() const;

 private:
  // Plain tokens (a new session: hashes computed here) or empty ones with the hashes.
  Session(std::string id, std::string name, core::World world, const ServerLimits& limits,
          std::string controller_token, std::string viewer_token, TokenHashes hashes);
  absl::Status CheckActive() const;  // requires mu_
  // Requires mu_: accounts what the session holds now and charges it to the budget.
  void AccountLocked();
  // Requires mu_: the session's memory with `world` in place of its World (a restore).
  SessionMemory MemoryWithLocked(const core::World& world, int64_t solver_bytes) const;
  // Requires mu_. `content_changed` renews the topology first. After a step, `state` and
  // `contacts` are that step's copies (else the state is copied here) and `diagnostics` its
  // entry.
  void PublishLocked(bool content_changed, std::shared_ptr<const core::WorldState> state = nullptr,
                     std::shared_ptr<const core::ContactReport> contacts = nullptr,
                     const core::StepDiagnostics* diagnostics = nullptr,
                     std::shared_ptr<const core::ConstraintReactions> reactions = nullptr);

  const std::string id_;
  const std::string name_;
  const core::PipelineKind pipeline_;             // the World's, which a snapshot never changes
  const std::shared_ptr<core::Backend> backend_;  // the World's, which a snapshot never changes
  const std::string device_;                      // backend_->name()
  const std::string controller_token_;
  const std::string viewer_token_;
  const TokenHashes token_hashes_;
  const ServerLimits limits_;

  mutable std::mutex mu_;
  core::World world_;
  std::atomic<SessionState> state_ = SessionState::kActive;  // written under mu_
  std::atomic<int64_t> device_bytes_ = 0;                    // written under mu_
  std::atomic<int64_t> content_version_ = 0;                 // written under mu_
  std::atomic<int64_t> step_count_ = 0;                      // written under mu_
  std::atomic<int> calls_in_flight_ = 0;
  std::atomic<std::chrono::steady_clock::rep> last_used_ticks_ =
      std::chrono::steady_clock::now().time_since_epoch().count();
  std::string failure_message_;
  uint64_t next_mesh_number_ = 1;
  std::map<std::string, std::shared_ptr<const UploadedMesh>, std::less<>> meshes_;
  int64_t mesh_bytes_ = 0;
  std::shared_ptr<const Topology> topology_;
  std::unique_ptr<core::WorldSnapshot> initial_;  // see MarkInitialState
  bool take_initial_at_first_step_ = true;        // false once kept, or for a restored session
  std::shared_ptr<FrameBus> frames_;
  std::shared_ptr<MemoryBudget> budget_ = std::make_shared<MemoryBudget>(0, 0);
  const std::shared_ptr<MemoryBudget::Account> account_ = std::make_shared<MemoryBudget::Account>();
  SessionMemory memory_;       // as of the last AccountLocked
  int64_t initial_bytes_ = 0;  // what initial_ holds
  const std::shared_ptr<Strand> strand_ = std::make_shared<Strand>();
};

}  // namespace contactsim::server
