#include "core/sim/penalty/plane_contacts.h"

#include <tuple>

#include "core/common/status_macros.h"
#include "core/contact/penalty/static_plane.h"
#include "core/sim/penalty/contact_dashpots.h"

namespace contactsim::core {
namespace {

bool IsCpfModel(ContactModel model) {
  return model == ContactModel::kCpf || model == ContactModel::kCpfExact;
}

}  // namespace

void PlaneContactStage::ForgetBody(int32_t body_id) {
  std::erase_if(contacts_, [&](const PlaneContact& contact) { return contact.body_id == body_id; });
}

void PlaneContactStage::ForgetPlane(int32_t plane_id) {
  std::erase_if(contacts_,
                [&](const PlaneContact& contact) { return contact.plane_id == plane_id; });
}

void PlaneContactStage::ComputeNormalImpulses(const WorldSettings& settings, const StepInput& input,
                                              std::span<const char> immovable,
                                              StepDiagnostics* diagnostics) {
  work_.clear();
  if (input.planes.empty()) return;
  const double dt = settings.dt_s;
  const double k = settings.stiffness_n_per_m;
  const PenaltyParams params{.stiffness_n_per_m = k, .dt_s = dt};
  const bool cpf = IsCpfModel(settings.contact_model);
  const bool damped_planes = settings.contact_restitution < 1.0;
  size_t previous = 0;  // contacts_ and this loop both go in (body, vertex, plane) order
  for (size_t bi = 0; bi < input.bodies.size(); ++bi) {
    const SimBody& sim_body = input.bodies[bi];
    if (!sim_body.collision.enabled || immovable[bi]) continue;
    const Body& body = *sim_body.body;
    for (const int32_t v : sim_body.surface_vertices) {
      if (body.InverseMass(v) == 0.0) continue;
      const Vec3 x0 = body.positions_t0().row(v).transpose();
      const Vec3 x1 = body.positions_t1().row(v).transpose();
      for (size_t pi = 0; pi < input.planes.size(); ++pi) {
        const GroundPlane& plane = input.planes[pi];
        const double depth_0 = plane.offset_m - plane.normal.dot(x0);
        const double depth_1 = plane.offset_m - plane.normal.dot(x1);
        if (depth_0 <= 0.0 && depth_1 <= 0.0) continue;
        PlaneWork work;
        PenaltyParams damped = params;
        if (damped_planes) {
          damped.damping_n_s_per_m = DashpotFor(settings, body.InverseMassAlong(v, plane.normal));
        }
        if (cpf) {
          const StaticPlaneResult r =
              CpfVertexStaticPlane(x0, x1, plane.normal, plane.offset_m, damped);
          if (r.status != PenaltyStatus::kOk || !r.penetrating) continue;
          work.normal_impulse_n_s = r.impulse_n_s;
        } else {
          if (depth_1 <= 0.0) continue;
          work.normal_impulse_n_s = dt * k * depth_1 * plane.normal;
          if (damped.damping_n_s_per_m > 0.0) {
            // The dashpot at the predicted velocity: c (depth_1 - depth_0) / dt over dt.
            work.normal_impulse_n_s +=
                damped.damping_n_s_per_m * (depth_1 - depth_0) * plane.normal;
          }
        }
        work.body_index = static_cast<int32_t>(bi);
        work.vertex = v;
        work.plane_index = static_cast<int32_t>(pi);
        const auto key = std::make_tuple(sim_body.id, v, plane.id);
        const auto key_of = [](const PlaneContact& c) {
          return std::make_tuple(c.body_id, c.vertex, c.plane_id);
        };
        while (previous < contacts_.size() && key_of(contacts_[previous]) < key) {
          ++previous;
        }
        if (previous < contacts_.size() && key_of(contacts_[previous]) == key) {
          work.friction = contacts_[previous].friction;
        }
        work_.push_back(work);
      }
    }
  }
  diagnostics->plane_contacts = static_cast<int32_t>(work_.size());
}

void PlaneContactStage::CountFrictionShares(FrictionShares* shares) const {
  for (const PlaneWork& work : work_) shares->Count(work.body_index, work.vertex);
}

void PlaneContactStage::ComputeFriction(const WorldSettings& settings, const StepInput& input,
                                        const FrictionShares& shares) {
  const double dt = settings.dt_s;
  next_contacts_.clear();
  for (PlaneWork& work : work_) {
    const SimBody& sim_body = input.bodies[work.body_index];
    const GroundPlane& plane = input.planes[work.plane_index];
    const Body& body = *sim_body.body;
    const Vec3 x0 = body.positions_t0().row(work.vertex).transpose();
    const Vec3 x1 = body.positions_t1().row(work.vertex).transpose();
    // The share is read only when friction slips (a friction model is set and counted).
    const FrictionOutcome friction = core::ComputeFriction(
        settings.friction, work.friction, x1, (x1 - x0) / dt, plane.normal,
        work.normal_impulse_n_s.norm() / dt, dt, [&](const Vec3& u) {
          return body.InverseMassAlong(work.vertex, u) * shares.Share(work.body_index, work.vertex);
        });
    work.friction = friction.state;
    work.friction_impulse_n_s = friction.impulse_n_s;
    work.friction_mode = friction.mode;
    next_contacts_.push_back(PlaneContact{sim_body.id, work.vertex, plane.id, friction.state});
  }
  contacts_.swap(next_contacts_);
}

absl::Status PlaneContactStage::ApplyImpulses(const StepInput& input,
                                              StepDiagnostics* diagnostics) const {
  for (const PlaneWork& work : work_) {
    diagnostics->stick_contacts += work.friction_mode == FrictionMode::kStick;
    diagnostics->slip_contacts += work.friction_mode == FrictionMode::kSlip;
    Body& body = *input.bodies[work.body_index].body;
    RETURN_IF_ERROR(
        body.AddVertexImpulse(work.vertex, work.normal_impulse_n_s + work.friction_impulse_n_s));
  }
  return absl::OkStatus();
}

void PlaneContactStage::AppendReport(const StepInput& input, ContactReport* report) const {
  for (const PlaneWork& work : work_) {
    const SimBody& sim_body = input.bodies[work.body_index];
    const GroundPlane& plane = input.planes[work.plane_index];
    const Vec3 x = sim_body.body->positions_t0().row(work.vertex).transpose();
    ContactRecord record;
    record.body_a = sim_body.id;
    record.body_b = kStaticEnvironmentBodyId;
    record.kind = ContactFeatureKind::kVertexPlane;
    record.feature_a = work.vertex;
    record.feature_b = plane.id;
    record.p_WC = x;
    record.normal_W = plane.normal;
    record.depth_m = plane.offset_m - plane.normal.dot(x);
    record.normal_impulse_n_s = work.normal_impulse_n_s;
    record.friction_impulse_n_s = work.friction_impulse_n_s;
    record.friction_mode = work.friction_mode;
    report->contacts.push_back(record);
  }
}

}  // namespace contactsim::core
