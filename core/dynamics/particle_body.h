// ParticleBody: the shared state and stepping of lumped-mass deformables (mass-spring cloth,
// corotational FEM). Each vertex i has a position x_i [m], velocity v_i [m/s] and lumped mass
// m_i [kg]; a pinned vertex has infinite mass (inverse mass 0): forces and impulses never move it,
// its velocity stays 0, and only SetPositions places it.
//
// Symplectic Euler in the predict/correct form of body.h, with the internal forces f_int(x, v)
// of the derived class (elastic plus internal damping; they sum to zero, so they conserve linear
// momentum) and Rayleigh mass damping at rate alpha [1/s]:
//   v*_i   = v_i + dt (f_int,i(x_t0, v) / m_i + g + f_ext,i / m_i - alpha v_i)
//   x_t1,i = x_t0,i + dt v*_i
//   v_i    = v*_i + J_i / m_i,   x_i = x_t0,i + dt v_i     (Correct)
// Forces are evaluated once per step at the start state, so the step is explicit.
//
// Run-time holds (World constraints, core/sim/constraints.h): a held vertex has inverse mass 0
// like a pinned one. It is an infinite-mass driver: forces and impulses do not move it, and it is
// left out of the kinetic energy, the momenta and the gravitational energy. By default it stays
// where it is (v = 0); DriveHeldVertex, between Predict and Correct, moves it instead to a given
// end-of-step position x_t1 with v = (x_t1 - x_t0) / dt, and Correct lands it exactly there.
#pragma once

#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/body.h"

namespace contactsim::core {

class ParticleBody : public Body {
 public:
  const Points3& positions_t0() const override { return positions_t0_; }
  const Points3& positions_t1() const override { return positions_t1_; }
  // Velocities at the start of the step [m/s], one row per vertex.
  const Points3& velocities() const { return velocities_; }
  Vec3 VertexVelocity(int i) const override { return velocities_.row(i).transpose(); }

  // Lumped vertex masses [kg], pinned vertices included.
  const Eigen::VectorXd& masses() const { return masses_; }
  // Pinned at creation or held at run time: inverse mass 0.
  bool is_pinned(int i) const { return inverse_masses_[i] == 0.0; }
  bool is_held(int i) const { return held_[i] != 0; }
  // Pinned by the factory (the `pinned` argument), whether or not held now.
  bool is_pinned_at_creation(int i) const { return pinned_[i] != 0; }

  // Holds (held = true: velocity set to 0) or releases vertex i; a released vertex that was
  // pinned at creation stays pinned (v = 0), any other keeps the velocity it was last driven
  // with. Between steps only (FailedPrecondition otherwise); InvalidArgument for a bad index.
  absl::Status SetVertexHeld(int i, bool held);
  // Between Predict and Correct, for a held vertex only (FailedPrecondition otherwise): moves it
  // to x_t1 [m] (finite) over this step.
  absl::Status DriveHeldVertex(int i, const Vec3& x_t1_m);
  // Sets the start-of-step velocity [m/s] (finite) of a held vertex, which SetVertexHeld zeroes
  // and SetVelocities leaves at zero: a vertex driven by an attachment keeps the velocity of its
  // last drive, which the next step's internal damping reads (world serialization restores it).
  // Between steps, for a held vertex only (FailedPrecondition otherwise).
  absl::Status SetHeldVertexVelocity(int i, const Vec3& velocity_m_per_s);
  // Between Predict and Correct: the force on vertex i that Predict evaluated, external plus
  // internal, f_ext,i + f_int,i(x_t0, v) [N] (no gravity, no mass damping). For a held vertex it
  // is the force its holder must take up.
  Vec3 PredictedVertexForce(int i) const { return force_scratch_.row(i).transpose(); }
  double InverseMass(int i) const override { return inverse_masses_[i]; }
  double InverseMassAlong(int i, const Vec3& /*unit_direction*/) const override {
    return inverse_masses_[i];
  }
  // Rayleigh mass-proportional damping rate alpha [1/s].
  double mass_damping_per_s() const { return mass_damping_per_s_; }

  absl::Status AddVertexForce(int i, const Vec3& force_n) override;
  // The external forces added for the next step [N], one row per vertex (world serialization).
  const Points3& pending_forces_n() const { return external_forces_; }
  absl::Status AddVertexImpulse(int i, const Vec3& impulse_n_s) override;
  absl::Status Predict(double dt_s, const Vec3& gravity_m_per_s2) override;
  absl::Status Correct(double dt_s) override;
  void AbandonStep() override;
  double ExternalWorkOfLastStep() const override { return external_work_last_step_j_; }

  double KineticEnergy() const override;
  // Elastic energy plus the gravitational energy of the free (unpinned) vertices.
  double PotentialEnergy(const Vec3& gravity_m_per_s2) const override;
  Vec3 LinearMomentum() const override;
  Vec3 AngularMomentum() const override;
  absl::Status CheckFinite() const override;

  // Internal forces f_int(x, v) at the current positions and velocities [N], one row per vertex
  // (pinned vertices included: their rows are the reactions of the pins). Excludes gravity,
  // external forces and mass damping.
  Points3 InternalForces() const;
  // Elastic energy at the current positions [J].
  double ElasticEnergy() const { return ElasticEnergyAt(positions_t0_); }

  // Restore or script the state between steps (not between Predict and Correct: then
  // FailedPrecondition). Sizes must match (n x 3) and entries be finite (InvalidArgument naming
  // the argument). SetPositions is how pinned vertices are moved; SetVelocities leaves pinned
  // vertices at zero velocity.
  absl::Status SetPositions(const Points3& positions_m);
  absl::Status SetVelocities(const Points3& velocities_m_per_s);

 protected:
  // `masses` [kg] must be positive for every vertex not in `pinned`; the derived Create checks
  // this with CheckMassesAndPins before constructing.
  ParticleBody(const Points3& rest_positions_m, Eigen::VectorXd masses_kg,
               const std::vector<int>& pinned, double mass_damping_per_s);

  // InvalidArgument for a pinned index out of range, or a vertex with zero mass (used by no
  // element) that is not pinned.
  static absl::Status CheckMassesAndPins(const Eigen::VectorXd& masses_kg,
                                         const std::vector<int>& pinned);

  // For bodies stepped implicitly (hyperelastic_body.h) instead of by Predict/Correct: ends a step
  // at the end positions x_end [m] and velocities v_end [m/s] (n x 3) of the free vertices;
  // pinned and held vertices keep their positions and velocities. Records the external work
  // sum_i f_ext,i . (x_end,i - x_i) and clears the forces and impulses, as Correct does.
  // `driven`: held vertices that their holder moved over the step (attachments to moving
  // bodies): they take x_end and v_end too, and driver_work_j, the work the holders did on the
  // body [J], is added to the external work. FailedPrecondition between Predict and Correct or
  // for a driven vertex that is not held; InvalidArgument for a shape mismatch.
  absl::Status FinishImplicitStep(const Points3& x_end_m, const Points3& v_end_mps,
                                  std::span<const int32_t> driven = {}, double driver_work_j = 0.0);

  // Adds f_int(x, v) [N] to the rows of `forces` (n x 3).
  virtual void AddInternalForces(const Points3& x, const Points3& v, Points3* forces) const = 0;
  virtual double ElasticEnergyAt(const Points3& x) const = 0;
  // Called after the positions at the start of the step changed (Correct, SetPositions): a
  // derived class that keeps quantities of positions_t0() (CorotationalFem: the tets' rotations)
  // recomputes them here.
  virtual void OnPositionsChanged() {}

 private:
  Points3 positions_t0_;
  Points3 positions_t1_;
  Points3 velocities_;
  Points3 predicted_velocities_;  // v* between Predict and Correct
  Points3 external_forces_;       // [N], applied by Predict, cleared by Correct
  Points3 impulses_;              // [N s], consumed by Correct
  Points3 force_scratch_;         // reused by Predict to avoid a per-step allocation
  Eigen::VectorXd masses_;
  Eigen::VectorXd inverse_masses_;  // 0 for pinned and held vertices
  Eigen::VectorXd free_masses_;     // m_i, 0 for pinned and held vertices (energy, momenta)
  std::vector<char> pinned_;        // pinned at creation
  std::vector<char> held_;          // held at run time (SetVertexHeld)
  double mass_damping_per_s_ = 0.0;
  double external_work_last_step_j_ = 0.0;  // see Body::ExternalWorkOfLastStep
  double predicted_dt_s_ = 0.0;
  bool predicted_ = false;
};

}  // namespace contactsim::core
