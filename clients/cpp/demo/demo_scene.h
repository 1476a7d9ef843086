// The demo's default scene, built through the API (no scene file): the ground plane z = 0, a
// 1 kg box pushed towards a target by a PD force, and two 1 kg boxes resting on the plane, so
// that every step has contacts. Penalty pipeline, CPF, Yamane-Nakamura friction, dt = 1 ms.
//
// Why these numbers: the boxes are (0.2 m)^3 at 125 kg/m^3 (1 kg). With the four bottom corners
// in contact the vertical mode has omega^2 = 4 k / m and the rocking modes 6 k / m; with
// s = (omega dt)^2 CPF is stable for s <= 2 and damps by |lambda|^2 = 1 - s / 2 per step
// (tests/physics/box_rest_jitter_test.cc). k = 1e5 N/m at dt = 1 ms gives s = 0.4 and 0.6, so a
// landing bounce decays by 0.89 per step, with margin left for the friction springs' coupling to
// rocking (with k = 2.5e5 N/m, s = 1.0 and 1.5, the resting boxes kept jittering).
// The boxes start 0.5 mm above the plane and land within 10 ms.
#pragma once

#include <string>
#include <vector>

#include "contactsim/v1/simulation.pb.h"

namespace contactsim::client::demo {

inline constexpr double kDemoDt_s = 0.001;              // [s]
inline constexpr double kDemoStiffness_n_per_m = 1e5;   // [N/m] per contact
inline constexpr double kBoxHalfSize_m = 0.1;           // [m]
inline constexpr double kBoxDensity_kg_per_m3 = 125.0;  // (0.2 m)^3 -> 1 kg
inline constexpr double kDropHeight_m = 0.0005;         // gap below the boxes at t = 0 [m]

v1::CreateSessionRequest DemoSessionRequest();

struct DemoBody {
  std::string name;
  v1::BodySpec spec;
};
// The pushed box first, then the resting boxes.
std::vector<DemoBody> DemoBodies();

// A horizontal PD force [N] on the pushed box towards (target_x_m, target_y_m):
// f = kp (p_target - p) - kd v in x and y, its magnitude capped at max_force_n; z is 0.
struct PdGains {
  double kp_n_per_m = 100.0;
  double kd_ns_per_m = 20.0;  // critical damping of 1 kg: 2 sqrt(kp m)
  double max_force_n = 20.0;
};
v1::Vec3 PdForce(double target_x_m, double target_y_m, const v1::Vec3& p_WB_m,
                 const v1::Vec3& v_WB_m_per_s, const PdGains& gains = {});

}  // namespace contactsim::client::demo
