// LocalGlobalPipeline: the World's implicit hyperelastic pipeline (DESIGN.md Sec. 1; Zeng et al.
// 2024). Per step of length dt [s]:
//   1. the obstacles at the step start: every ground plane {n . x >= h} as a half-space, every
//      colliding static or kinematic rigid body as a triangle mesh at its current pose, moving at
//      its velocities v_WB and w_WB (about p_WB) over the step (mesh_contact.h: the rotation to
//      first order in the step), all with the Coulomb coefficient
//      WorldSettings::local_global.friction_coefficient;
//   2. each colliding hyperelastic body takes one implicit step against them
//      (HyperelasticBody::StepImplicit: local-global iterations with non-smooth Newton frictional
//      contact); bodies with collision disabled step without contact;
//   3. static and kinematic bodies advance (Predict/Correct) and receive the reactions of the
//      contact impulses, so a kinematic body's work on what it pushes enters the World's energy
//      reference (Body::ExternalWorkOfLastStep). The reaction on an obstacle's triangle or edge
//      is split equally over its vertices (the kinematic work sees the moment only to that
//      accuracy).
// The report has one record per contact with a positive normal force lambda_n [N]: impulses
// J_n = dt lambda_n n and J_f = dt (lambda_t1 t1 + lambda_t2 t2) on the hyperelastic body (body
// A, except for a body triangle against an obstacle vertex, where A is the obstacle); the
// contact point and depth at the step end; stick when |lambda_t| < mu lambda_n, else slip.
//
// Bodies: hyperelastic (any number; they do not collide with each other or themselves yet),
// static and kinematic rigid bodies. Dynamic rigid bodies, mass-spring cloth and explicit FEM are
// refused by CheckBody; World constraints are refused (pin vertices at creation instead).
//
// State between steps: none here; each body's solver keeps its previous contacts for the warm
// start and HyperelasticBody::Clone copies them, so snapshots replay bit-identically.
#pragma once

#include <memory>

#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

class LocalGlobalPipeline final : public Pipeline {
 public:
  explicit LocalGlobalPipeline(const WorldSettings& settings) : settings_(settings) {}

  absl::Status Step(const StepInput& input, StepDiagnostics* diagnostics,
                    ContactReport* report) override;
  absl::Status CheckBody(const Body& body) const override;
  absl::Status CheckConstraintOn(const SimBody& body) const override;
  void ForgetBody(int32_t /*body_id*/) override {}
  void ForgetPlane(int32_t /*plane_id*/) override {}
  void Clear() override {}
  std::unique_ptr<Pipeline> Clone() const override {
    return std::make_unique<LocalGlobalPipeline>(*this);
  }

 private:
  WorldSettings settings_;
};

}  // namespace contactsim::core
