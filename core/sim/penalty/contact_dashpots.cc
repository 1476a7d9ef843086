#include "core/sim/penalty/contact_dashpots.h"

#include <Eigen/Geometry>
#include <array>
#include <cmath>
#include <span>

#include "core/contact/penalty/contact_damping.h"
#include "core/sim/penalty/tracked_pair.h"

namespace contactsim::core {
namespace {

// The dashpot's scheme for the contact model: CPF's interval integral (also the static plane's
// closed form) or DPF at the predicted end.
DashpotScheme DashpotSchemeOf(ContactModel model) {
  return model == ContactModel::kCpf || model == ContactModel::kCpfExact
             ? DashpotScheme::kCpf
             : DashpotScheme::kDpfAtPredictedEnd;
}

double SideInverseMass(const Body& body, std::span<const int32_t> vertices,
                       std::span<const double> shares, const Vec3& u) {
  const bool rigid = body.type() == BodyType::kRigid;
  double sum = 0.0;
  for (size_t i = 0; i < vertices.size(); ++i) {
    if (shares[i] == 0.0) continue;
    const double weight = rigid ? std::abs(shares[i]) : shares[i] * shares[i];
    sum += weight * body.InverseMassAlong(vertices[i], u);
  }
  return sum;
}

}  // namespace

double DashpotFor(const WorldSettings& settings, double inverse_mass_per_kg) {
  if (!(inverse_mass_per_kg > 0.0) || !(settings.contact_restitution < 1.0)) return 0.0;
  return DashpotCoefficient(settings.contact_restitution, settings.stiffness_n_per_m,
                            1.0 / inverse_mass_per_kg, settings.dt_s,
                            DashpotSchemeOf(settings.contact_model));
}

double PairDashpot(const WorldSettings& settings, const PairWork& work) {
  const std::array<Vec3, 4>& x = work.trajectory.x_t0;
  const Vec3& w = work.pair.weights;
  const bool vf = work.pair.key.kind == CcdPairKind::kVertexFace;
  // The pair's normal at the start of the step (its direction only; the sign does not matter).
  Vec3 n = vf ? Vec3((x[2] - x[1]).cross(x[3] - x[1])) : Vec3((x[1] - x[0]).cross(x[3] - x[2]));
  if (!(n.norm() > 0.0)) n = work.pair.normal_W;
  if (!(n.norm() > 0.0)) return 0.0;
  n.normalize();
  const std::array<double, 4> shares =
      vf ? std::array<double, 4>{1.0, w[0], w[1], w[2]}
         : std::array<double, 4>{1.0 - w[0], w[0], 1.0 - w[1], w[1]};
  const int on_a = NumVerticesOnA(work.pair.key.kind);
  const std::span<const int32_t> v(work.vertices);
  const std::span<const double> d(shares);
  return DashpotFor(settings,
                    SideInverseMass(*work.body_a->body, v.first(on_a), d.first(on_a), n) +
                        SideInverseMass(*work.body_b->body, v.subspan(on_a), d.subspan(on_a), n));
}

Vec3 ProximityDashpotImpulse(const WorldSettings& settings, const StepInput& input,
                             const ProximityWork& work) {
  const Body& a = *input.bodies[work.body_index_a].body;
  const Body& b = *input.bodies[work.body_index_b].body;
  const std::array<double, 3> face_shares = {work.weights[0], work.weights[1], work.weights[2]};
  const std::span<const int32_t> corners(work.vertices.data() + 1, 3);
  const std::array<double, 1> one = {1.0};
  const double c = DashpotFor(
      settings,
      SideInverseMass(a, std::span<const int32_t>(work.vertices.data(), 1), one, work.normal) +
          SideInverseMass(b, corners, face_shares, work.normal));
  if (!(c > 0.0)) return Vec3::Zero();
  // The depth's change over the step, n . ((q(1) - q(0)) - (p(1) - p(0))), q the closest point
  // with its weights fixed: the dashpot c d(delta)/dtau held over dt, as DPF's spring.
  Vec3 rise =
      a.positions_t0().row(work.vertex).transpose() - a.positions_t1().row(work.vertex).transpose();
  for (int i = 0; i < 3; ++i) {
    rise += work.weights[i] * (b.positions_t1().row(work.vertices[i + 1]).transpose() -
                               b.positions_t0().row(work.vertices[i + 1]).transpose());
  }
  return c * work.normal.dot(rise) * work.normal;
}

}  // namespace contactsim::core
