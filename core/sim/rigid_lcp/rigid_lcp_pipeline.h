// RigidLcpPipeline: the World's rigid polytope pipeline (docs/rigid_lcp.md; Williams, Lu &
// Trinkle 2016): Stewart–Trinkle velocity-level time stepping of rigid convex polytopes with the
// standard or the PEG contact model and polyhedral Coulomb friction
// (WorldSettings::rigid_lcp), one LCP per step (core/dynamics/rigid_lcp/).
//
// Bodies: rigid bodies of every kind. Each collides as the convex hull of its mesh, taken in its
// body frame when the pipeline first meets it, so a mesh must be convex: CheckBody refuses one
// whose volume differs from its hull's (a non-convex part such as a container is built from
// several convex bodies). Static and kinematic bodies take part with their scripted velocities;
// ground planes are half-spaces. Deformable bodies and World constraints are refused.
//
// Per step: the dynamic bodies' applied forces and torques and gravity give the free velocities,
// the stepper finds the potential contacts within the distance the step's motion can close,
// builds the model's constraints and solves their LCP (Lemke with its fallback chain); a step
// whose LCP no solver answers is an error, so the World stops it as diverged with the solver's
// message. The bodies then end the step with RigidBody::FinishExternalStep (the work of applied
// forces and of kinematic bodies enters the World's energy reference).
//
// Report: one record per constraint that carries an impulse, on body A of its primary contact
// (ContactRecord): normal and friction impulse [N s] over the step, the primary's contact point
// and normal (from B towards A), depth max(-gap, 0) at the start of the step; feature indices
// index the body's collision polytope (kVertexFace: vertex of A, face of B; kEdgeEdge: edges;
// kVertexPlane: vertex of A, the plane's id).
//
// State between steps: every step finds its contacts anew, but its solvers start from the last
// step's (the warm start: the active set the pivoting tries first, the impulses PGS starts from;
// polytope_stepper.h), which snapshots carry (RLWS) so that they replay bit-identically; the
// hulls are a cache rebuilt from the bodies' meshes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_union.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

class RigidLcpPipeline final : public Pipeline {
 public:
  explicit RigidLcpPipeline(const WorldSettings& settings);

  // Largest LCP a step may form (unknowns after eliminating the velocities): the dense solvers
  // hold an n x n matrix (8 n^2 bytes, 128 MB at the limit) and pivot in O(n^3).
  static constexpr int kMaxLcpUnknowns = 4000;

  absl::Status Step(const StepInput& input, StepDiagnostics* diagnostics,
                    ContactReport* report) override;
  absl::Status CheckBody(const Body& body) const override;
  absl::Status CheckConstraint(const ConstraintSpec& spec, const SimBody& body,
                               const SimBody* target) const override;
  // A removed body shifts the bodies' indices that the warm start's constraints name: the next
  // step starts cold rather than from a guess that names other bodies.
  void ForgetBody(int32_t body_id) override {
    shapes_.erase(body_id);
    warm_start_ = {};
  }
  void ForgetPlane(int32_t /*plane_id*/) override {}
  void Clear() override {
    shapes_.clear();
    warm_start_ = {};
  }
  std::unique_ptr<Pipeline> Clone() const override;

  // Where the next step's solvers start (polytope_stepper.h); kept in snapshots (RLWS).
  const PolytopeWarmStart& warm_start() const { return warm_start_; }
  void RestoreWarmStart(PolytopeWarmStart warm_start) { warm_start_ = std::move(warm_start); }

 private:
  // The body's collision polytope in its body frame (origin at the centre of mass), cached.
  absl::StatusOr<std::shared_ptr<const PolytopeUnion>> ShapeOf(const SimBody& body);

  WorldSettings settings_;
  std::map<int32_t, std::shared_ptr<const PolytopeUnion>> shapes_;
  PolytopeWarmStart warm_start_;
};

}  // namespace contactsim::core
