// Torsional (spin) friction of the rigid_lcp step (PolytopeStepSettings::
// torsional_friction_radius_m, docs/rigid_lcp.md): an inverted square pyramid balanced on its apex
// on the ground. The apex lies on the vertical axis through the centre of mass, so a spin about
// that axis gives the apex no sliding velocity: linear friction does nothing and only the
// patch's spin friction, up to mu r N, acts. Analytically (I_zz the inertia about the axis,
// N = m g on the apex):
//   a spin omega0 decelerates at mu r m g / I_zz and stops at t* = I_zz omega0 / (mu r m g);
//   an applied torque tau below mu r m g is held; above it, the spin accelerates at
//   (tau - mu r m g) / I_zz;
//   with r = 0 (point contacts) nothing resists the spin.
// The Stewart–Trinkle step applies exactly these impulses (mu r N h per step while spinning, the
// spin set to zero in the step that would reverse it), so the bounds are round-off bounds.
#include <gtest/gtest.h>

#include <cmath>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_hull.h"
#include "core/geometry/polytope_mass_properties.h"

namespace contactsim::core {
namespace {

constexpr double kG = 9.81;
constexpr double kMass = 1.0;
constexpr double kMu = 0.5;
constexpr double kRadius = 0.01;  // r [m]
constexpr double kDt = 1e-3;
// Base half-width a = 0.1 m at the top, apex 0.1 m below the base; the centre of mass is h / 4
// below the base, the body frame's origin.
constexpr double kHalfWidth = 0.1, kHeight = 0.1;

struct Pyramid {
  PolytopeUnion shape;
  Mat3 inertia;  // about the centre of mass [kg m^2]
  double inertia_zz = 0.0;
};

Pyramid MakeInvertedPyramid() {
  const double top = kHeight / 4, apex = -3 * kHeight / 4;
  Points3 points(5, 3);
  points << kHalfWidth, kHalfWidth, top,  //
      -kHalfWidth, kHalfWidth, top,       //
      -kHalfWidth, -kHalfWidth, top,      //
      kHalfWidth, -kHalfWidth, top,       //
      0.0, 0.0, apex;
  absl::StatusOr<ConvexPolytope> hull = ConvexHull(points);
  EXPECT_TRUE(hull.ok()) << hull.status();
  absl::StatusOr<MassProperties> mass = ComputeMassPropertiesForMass(*hull, kMass);
  EXPECT_TRUE(mass.ok()) << mass.status();
  // The frame's origin is the centre of mass (to round-off).
  EXPECT_LT(mass->center_of_mass_m.norm(), 1e-12);
  absl::StatusOr<PolytopeUnion> shape = PolytopeUnion::Create({*std::move(hull)});
  EXPECT_TRUE(shape.ok()) << shape.status();
  return {*std::move(shape), mass->inertia_about_com_kg_m2, mass->inertia_about_com_kg_m2(2, 2)};
}

struct SpinRun {
  std::vector<double> omega_z;            // after each step [rad/s]
  std::vector<double> torsional_impulse;  // summed over the contacts, on the pyramid [N m s]
  double max_tilt_rad = 0.0;
  double max_sink_m = 0.0;
};

SpinRun Spin(const Pyramid& pyramid, double radius_m, double omega0, double torque_n_m, int steps) {
  PolytopeBodyInput body;
  body.shape = &pyramid.shape;
  body.mass_kg = kMass;
  body.inertia_body_kg_m2 = pyramid.inertia;
  body.state.p_WB_m = Vec3(0, 0, 3 * kHeight / 4);  // the apex on the ground
  body.state.w_WB_rad_per_s = Vec3(0, 0, omega0);
  body.torque_n_m = Vec3(0, 0, torque_n_m);
  const PolytopePlaneInput ground;
  PolytopeStepSettings settings;
  settings.dt_s = kDt;
  settings.friction_coefficient = kMu;
  settings.torsional_friction_radius_m = radius_m;
  SpinRun run;
  std::vector<PolytopeBodyInput> bodies = {body};
  for (int i = 0; i < steps; ++i) {
    PolytopeStepResult result;
    const absl::Status status = StepPolytopes(bodies, {&ground, 1}, settings, &result);
    EXPECT_TRUE(status.ok()) << "step " << i << ": " << status;
    if (!status.ok()) break;
    bodies[0].state = result.next[0];
    run.omega_z.push_back(bodies[0].state.w_WB_rad_per_s.z());
    double torsion = 0.0;
    for (const PolytopeContactResult& c : result.contacts) {
      // On body2 (the pyramid is body1 against a plane: it receives the opposite).
      torsion -= c.torsional_impulse_n_m_s * c.geometry.primary.normal_W.z();
    }
    run.torsional_impulse.push_back(torsion);
    const Vec3 axis = bodies[0].state.q_WB * Vec3::UnitZ();
    run.max_tilt_rad = std::max(run.max_tilt_rad, std::acos(std::min(1.0, axis.z())));
    run.max_sink_m =
        std::max(run.max_sink_m, 3 * kHeight / 4 - bodies[0].state.p_WB_m.z() * axis.z());
  }
  return run;
}

TEST(RigidLcpTorsionTest, ASpinStopsAtTheAnalyticTime) {
  const Pyramid pyramid = MakeInvertedPyramid();
  const double omega0 = 2.0;
  const double friction_torque = kMu * kRadius * kMass * kG;
  const double per_step = friction_torque * kDt / pyramid.inertia_zz;    // spin lost per step
  const int stop_step = static_cast<int>(std::ceil(omega0 / per_step));  // t* / h, rounded up
  const SpinRun run = Spin(pyramid, kRadius, omega0, 0.0, stop_step + 100);
  ASSERT_EQ(run.omega_z.size(), static_cast<size_t>(stop_step + 100));
  std::printf("I_zz %.6g kg m^2; t* %.4g s (%d steps); tilt %.3g rad; sink %.3g m\n",
              pyramid.inertia_zz, omega0 / per_step * kDt, stop_step, run.max_tilt_rad,
              run.max_sink_m);
  // The first step's normal impulse brings the apex to rest on the ground (the apex starts at
  // the surface, moving 0): from it on N h = m g h exactly, and the spin falls by the same
  // amount each step. Round-off over ~160 steps of LCP solves: 1e-9 rad/s.
  for (int k = 0; k + 1 < stop_step; ++k) {
    EXPECT_NEAR(run.omega_z[k], omega0 - (k + 1) * per_step, 1e-9) << "step " << k;
    EXPECT_NEAR(run.torsional_impulse[k], -friction_torque * kDt, 1e-9 * friction_torque * kDt)
        << "step " << k;
  }
  // It stops in the step that would reverse it and stays stopped: sticking.
  for (int k = stop_step; k < stop_step + 100; ++k) {
    EXPECT_NEAR(run.omega_z[k], 0.0, 1e-12) << "step " << k;
  }
  // Balanced on its apex: the spin does not tip it, and the apex stays on the ground (the
  // position error of a velocity-level step, h^2 |omega|^2 r, is far below 1e-6 m here).
  EXPECT_LT(run.max_tilt_rad, 1e-9);
  EXPECT_LT(std::abs(run.max_sink_m), 1e-6);
}

TEST(RigidLcpTorsionTest, HoldsATorqueBelowTheBoundAndYieldsAboveIt) {
  const Pyramid pyramid = MakeInvertedPyramid();
  const double friction_torque = kMu * kRadius * kMass * kG;
  const SpinRun held = Spin(pyramid, kRadius, 0.0, 0.95 * friction_torque, 200);
  for (const double w : held.omega_z) EXPECT_NEAR(w, 0.0, 1e-12);
  EXPECT_NEAR(held.torsional_impulse.back(), -0.95 * friction_torque * kDt,
              1e-9 * friction_torque * kDt);
  const SpinRun slipping = Spin(pyramid, kRadius, 0.0, 1.5 * friction_torque, 200);
  const double alpha = 0.5 * friction_torque / pyramid.inertia_zz;
  // omega after k + 1 steps = (k + 1) h alpha, the first step included (N h = m g h from it on
  // and the first step's torque impulse bounded by the same N).
  EXPECT_NEAR(slipping.omega_z.back(), 200 * kDt * alpha, 1e-9 * 200 * kDt * alpha);
}

TEST(RigidLcpTorsionTest, PointContactsResistNoSpin) {
  const Pyramid pyramid = MakeInvertedPyramid();
  const SpinRun run = Spin(pyramid, 0.0, 2.0, 0.0, 200);
  // Only the apex touches, at the axis: without a patch nothing opposes the spin.
  EXPECT_NEAR(run.omega_z.back(), 2.0, 1e-12);
  EXPECT_EQ(run.torsional_impulse.back(), 0.0);
}

TEST(RigidLcpTorsionTest, RefusesANegativeOrNonFiniteRadius) {
  const Pyramid pyramid = MakeInvertedPyramid();
  PolytopeBodyInput body;
  body.shape = &pyramid.shape;
  body.mass_kg = kMass;
  PolytopeStepSettings settings;
  PolytopeStepResult result;
  for (const double r : {-1e-3, std::nan(""), HUGE_VAL}) {
    settings.torsional_friction_radius_m = r;
    const absl::Status status = StepPolytopes({&body, 1}, {}, settings, &result);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("torsional_friction_radius_m"), std::string::npos) << status;
  }
}

}  // namespace
}  // namespace contactsim::core
