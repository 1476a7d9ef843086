// Friction of one penalty contact over the step (penalty_pipeline.h, step 5), and the friction
// shares that cap it. From the contact's normal force |f_n| = |I_p| / dt, unit normal n and slip
// velocity v:
//   Yamane-Nakamura  yamane_nakamura.h, with the spring anchored at an offset (p - q, or p against
//                    a plane) so the anchor moves with body B;
//   viscous          J = -dt c T v.
// Dynamic friction may stop the slip within the step, never reverse it: its impulse is capped at
// |v_t| / w, w = sum_i |d_i| N_i W_i(t^), where N_i, the friction share, is how many friction
// contacts move vertex i this step (a rigid body: its whole body).
#pragma once

#include <cstdint>
#include <vector>

#include "core/common/eigen_types.h"
#include "core/contact/friction/viscous_friction.h"
#include "core/contact/friction/yamane_nakamura.h"
#include "core/sim/pipeline.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

struct FrictionOutcome {
  Vec3 impulse_n_s = Vec3::Zero();  // on the first feature's point [N s]
  FrictionMode mode = FrictionMode::kNone;
  FrictionContactState state;
};

// Friction over the step for one contact. offset_W is the point the Yamane-Nakamura spring
// anchors (p - q, or p against a plane) [m]; inverse_mass_along(u) bounds the contact's inverse
// effective mass along the unit direction u [1/kg].
template <typename InverseMassAlong>
FrictionOutcome ComputeFriction(const FrictionSettings& settings, const FrictionContactState& state,
                                const Vec3& offset_W, const Vec3& v_slip_W, const Vec3& unit_normal,
                                double normal_force_n, double dt_s,
                                const InverseMassAlong& inverse_mass_along) {
  FrictionOutcome out;
  out.state = state;
  if (settings.model == FrictionModel::kNone || !(normal_force_n > 0.0)) return out;
  if (settings.model == FrictionModel::kYamaneNakamura) {
    const FrictionResult r = YamaneNakamuraFriction(state, offset_W, v_slip_W, unit_normal,
                                                    normal_force_n, settings.yamane_nakamura, dt_s);
    out.impulse_n_s = r.impulse_n_s;
    out.mode = r.mode;
    out.state = r.state;
  } else {
    out.impulse_n_s = dt_s * ViscousFrictionForce(v_slip_W, unit_normal, settings.viscous);
    out.mode = FrictionMode::kSlip;
  }
  // Dynamic friction may stop the slip within the step, never reverse it.
  const double magnitude = out.impulse_n_s.norm();
  if (out.mode == FrictionMode::kSlip && magnitude > 0.0) {
    const Vec3 v_t = v_slip_W - unit_normal.dot(v_slip_W) * unit_normal;
    const double w = inverse_mass_along(Vec3(out.impulse_n_s / magnitude));
    if (w > 0.0) {
      const double cap = v_t.norm() / w;
      if (magnitude > cap) out.impulse_n_s *= cap / magnitude;
    }
  }
  return out;
}

// How many friction contacts move each vertex this step; a rigid body counts for its whole body.
// Each contact stage counts its own contacts (any order: the counts are integers) before any
// friction is computed.
class FrictionShares {
 public:
  // Zero counts for the bodies of this step.
  void Reset(const StepInput& input);
  // One more contact moving the vertex (a rigid body: the body; pass any vertex).
  void Count(int32_t body_index, int32_t vertex) {
    ++counts_[body_index][whole_body_[body_index] ? 0 : vertex];
  }
  // A rigid body's contacts are counted once per contact, however many of its vertices they move.
  bool counts_whole_body(int32_t body_index) const { return whole_body_[body_index] != 0; }
  // N_i >= 1.
  int32_t Share(int32_t body_index, int32_t vertex) const;

 private:
  std::vector<std::vector<int32_t>> counts_;  // per body: 1 entry (rigid) or per vertex
  std::vector<char> whole_body_;              // per body: rigid
};

}  // namespace contactsim::core
