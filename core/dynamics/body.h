// Body: the one interface through which a World steps rigid bodies, cloth and FEM solids uniformly
// in the explicit penalty pipeline (Tang et al. 2012, Sec. 3.3, Eq. 7), per step of length dt [s]:
//
//   1. Predict(dt, g):  v* = v + dt M^-1 (f_int(x_t0, v) + M g + f_ext)
//                       x_t1 = x_t0 + dt v*                 (per vertex; rigid bodies: the mesh
//                       vertices at the predicted pose, so each vertex moves on the straight line
//                       x(t) = (1 - t) x_t0 + t x_t1, t in [0, 1], that CCD assumes)
//   2. the World runs CCD on (x_t0, x_t1) and calls AddVertexImpulse(i, J_i) [N s]
//   3. Correct(dt):     v = v* + M^-1 sum_i J_i             (rigid: the wrench sum J_i and
//                                                            sum r_i x J_i about the centre of
//                                                            mass)
//                       x = x_t0 + dt v                      (symplectic Euler)
//
// Correct with no impulses gives back exactly the predicted positions. M is the lumped (diagonal)
// vertex mass for deformables; vertices with infinite mass (pinned vertices, static and kinematic
// bodies) have inverse mass 0 and ignore forces and impulses.
//
// A Body is not thread-safe; one stepping strand owns it. Methods taking a vertex index i from the
// World's own loops (VertexVelocity, InverseMass, InverseMassAlong) expect 0 <= i < num_vertices()
// and do not check it (hot path); the Add* methods check and return InvalidArgument.
#pragma once

#include "absl/status/status.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// kHyperelastic: a tet mesh stepped implicitly by the local_global pipeline
// (local_global/hyperelastic_body.h).
enum class BodyType { kRigid, kMassSpringCloth, kCorotationalFem, kHyperelastic };

class Body {
 public:
  virtual ~Body() = default;

  virtual BodyType type() const = 0;

  // Collision surface topology. Its vertex indices are the body's vertex indices (a FEM body's
  // interior vertices are referenced by no face); its vertex coordinates are the rest shape, not
  // the current positions.
  virtual const TriangleMesh& surface() const = 0;

  int num_vertices() const { return static_cast<int>(positions_t0().rows()); }
  // World vertex positions at the start of the step [m].
  virtual const Points3& positions_t0() const = 0;
  // Predicted positions at the end of the step [m]; equal to positions_t0() outside a step
  // (before Predict and after Correct).
  virtual const Points3& positions_t1() const = 0;
  // World velocity of vertex i at the start of the step [m/s].
  virtual Vec3 VertexVelocity(int i) const = 0;

  // Inverse translational mass of vertex i [1/kg]: 1/m_i for a free particle, 1/m_body for every
  // vertex of a dynamic rigid body, 0 for pinned vertices and static or kinematic bodies.
  virtual double InverseMass(int i) const = 0;
  // Inverse effective mass at vertex i along the unit direction n [1/kg]: the velocity change
  // along n per unit impulse along n, n^T W_i n. Particles: InverseMass(i); rigid bodies add the
  // rotational term (r x n)^T I_W^-1 (r x n).
  virtual double InverseMassAlong(int i, const Vec3& unit_direction) const = 0;

  // Adds an external force [N] on vertex i for the next step: Predict applies it, Correct clears
  // it. Between steps only (FailedPrecondition between Predict and Correct); InvalidArgument for
  // an index out of range or a non-finite force.
  virtual absl::Status AddVertexForce(int i, const Vec3& force_n) = 0;
  // Adds an impulse [N s] at vertex i, applied by the next Correct and then cleared.
  // InvalidArgument for an index out of range or a non-finite impulse.
  virtual absl::Status AddVertexImpulse(int i, const Vec3& impulse_n_s) = 0;

  // Step 1 (see the top of this file). InvalidArgument for dt <= 0 or non-finite dt or gravity.
  // Calling Predict again before Correct predicts again from the same start state and forces.
  virtual absl::Status Predict(double dt_s, const Vec3& gravity_m_per_s2) = 0;
  // Step 3. FailedPrecondition without a preceding Predict; InvalidArgument if dt_s differs from
  // the dt of that Predict.
  virtual absl::Status Correct(double dt_s) = 0;
  // Abandons a step begun but not ended (a World step interrupted inside: World::Step's
  // interrupt): the body is between steps again at its start state (x_t1 = x_t0), and the forces
  // and impulses added for the step are dropped. Nothing to undo otherwise: state changes only at
  // Correct (or at the end of an implicit step).
  virtual void AbandonStep() = 0;

  // Work [J] that the forces from outside the simulation did on the rest of the world over the
  // last completed step (0 before the first): external forces along the step's motion, sum
  // f_i . (x_i,new - x_i,old) (rigid: F . dp + tau . w_new dt); for a kinematic body, the work it
  // did on what it touched, -(J . v + L . w) with J, L the contact impulse and its moment it
  // received. The World adds it to the energy reference of its divergence check, so a controller
  // that pushes a body is not mistaken for a blow-up.
  virtual double ExternalWorkOfLastStep() const = 0;

  // Kinetic energy at the start of the step [J]. Static and kinematic bodies report 0: they are
  // infinite-mass drivers and stay out of the energy balance.
  virtual double KineticEnergy() const = 0;
  // Gravitational plus elastic potential energy [J]: -sum m_i g . x_i + E_elastic(x), over the
  // vertices that can move (0 for static and kinematic bodies).
  virtual double PotentialEnergy(const Vec3& gravity_m_per_s2) const = 0;
  // Linear momentum sum m_i v_i [kg m/s] and angular momentum about the world origin [kg m^2/s]
  // (zero for static and kinematic bodies, like the kinetic energy).
  virtual Vec3 LinearMomentum() const = 0;
  virtual Vec3 AngularMomentum() const = 0;

  // OK when every position, velocity (and orientation) is finite; otherwise FailedPrecondition
  // naming the first non-finite quantity, e.g. "vertex 12: velocity z is nan".
  virtual absl::Status CheckFinite() const = 0;

  // An estimate of the largest stable explicit time step [s] for the body's internal forces, for
  // sanity messages (not a guarantee); +infinity when nothing limits it (rigid bodies).
  virtual double StableTimeStepEstimate() const = 0;

 protected:
  Body() = default;
  Body(const Body&) = default;
  Body& operator=(const Body&) = default;
  Body(Body&&) = default;
  Body& operator=(Body&&) = default;
};

}  // namespace contactsim::core
