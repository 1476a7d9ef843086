// Pipeline: the stepping scheme of one World (docs/architecture.md). A World owns one Pipeline;
// each Step advances all bodies by one time step dt [s] from t_n to t_n + dt, resolving contacts
// the pipeline's way, and describes what it did in a ContactReport and a StepDiagnostics.
//
// A pipeline may keep state between steps (tracked contact pairs, friction anchors, collision
// caches). Clone copies everything that changes the results of later steps, so a World restored
// from a snapshot replays bit-identically; caches that do not change results may start empty.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "core/contact/contact_report.h"
#include "core/linalg/backend.h"
#include "core/sim/constraints.h"
#include "core/sim/sim_body.h"
#include "core/sim/step_diagnostics.h"
#include "core/sim/world_robot.h"

namespace contactsim::core {

struct StepInput {
  std::span<SimBody> bodies;            // ascending id
  std::span<const GroundPlane> planes;  // ascending id
  // The World's constraints, applied through their step hooks (constraints.h); may be null.
  ConstraintSet* constraints = nullptr;
  // Articulated robots (world_robot.h): their links are among the bodies; the pipeline writes
  // each joint's step result into last_joint_states. Only rigid_lcp takes robots.
  std::span<WorldRobot> robots;
  // The caller's interrupt (World::Step's), for a pipeline whose one step can take long: it may
  // ask it during the step, on the calling thread only, and on a non-OK answer return that answer
  // with its own state and every body's unchanged but for what Predict began and the loads added
  // for the step (the World then counts no step and calls Body::AbandonStep on every body). Null:
  // none. rigid_lcp, penalty and local_global ask it.
  const std::function<absl::Status()>* interrupt = nullptr;

  // The interrupt's answer (OK without one).
  absl::Status AskInterrupt() const {
    return interrupt != nullptr ? (*interrupt)() : absl::OkStatus();
  }
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;

  // One step. Fills the contact counts and CCD statistics of *diagnostics (the World adds the
  // energies and the divergence check) and replaces *report. An error leaves the bodies
  // part-way through the step: the World then stops as diverged.
  virtual absl::Status Step(const StepInput& input, StepDiagnostics* diagnostics,
                            ContactReport* report) = 0;
  // Called by the World before each step (before its controls are applied): acquires what the
  // step will need on the backend (e.g. a system factored for a new set of bodies) without moving
  // any body. An error here (ResourceExhausted naming a device memory budget) leaves the World
  // unchanged: the World returns it and does not step or diverge.
  virtual absl::Status PrepareStep(const StepInput& /*input*/) { return absl::OkStatus(); }

  // Whether the pipeline can step this body (World::AddBody asks before adding it): OK, or
  // InvalidArgument saying why not, e.g. "body: the penalty pipeline does not step hyperelastic
  // bodies (use the local_global pipeline)".
  virtual absl::Status CheckBody(const Body& body) const = 0;
  // Whether the pipeline honours this World constraint (World::AddConstraint asks before adding
  // it) on `body`, following `target` (an attachment's rigid body; null otherwise or when there
  // is no such body, which ConstraintSet::Add reports): OK, or InvalidArgument whose message
  // begins with the field ("pin.body_id: ...").
  virtual absl::Status CheckConstraint(const ConstraintSpec& spec, const SimBody& body,
                                       const SimBody* target) const = 0;

  // Drops the contact state that involves a removed body or plane.
  virtual void ForgetBody(int32_t body_id) = 0;
  virtual void ForgetPlane(int32_t plane_id) = 0;
  // Drops all contact state.
  virtual void Clear() = 0;

  // A copy on the same backend (see the top of this file).
  virtual std::unique_ptr<Pipeline> Clone() const = 0;
  // Moves the pipeline's solvers to the World's backend (World::Restore of a snapshot taken or
  // deserialized on another one): solvers built on the old one are dropped and rebuilt when next
  // stepped, with the same bits on the CPU. Pipelines that do not use the backend ignore it.
  virtual void SetBackend(std::shared_ptr<Backend> /*backend*/) {}

 protected:
  Pipeline() = default;
  Pipeline(const Pipeline&) = default;
  Pipeline& operator=(const Pipeline&) = default;
};

}  // namespace contactsim::core
