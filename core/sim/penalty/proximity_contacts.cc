#include "core/sim/penalty/proximity_contacts.h"

#include "core/collision/discrete_penetration.h"
#include "core/common/interruptible_parallel_for.h"
#include "core/common/parallel_for.h"
#include "core/common/status_macros.h"
#include "core/sim/penalty/contact_dashpots.h"
#include "core/sim/penalty/pair_grain.h"
#include "oneapi/tbb/blocked_range.h"

namespace contactsim::core {

absl::Status ProximityQuery::FindContacts(const WorldSettings& settings, const StepInput& input,
                                          std::span<const char> immovable,
                                          std::vector<ProximityWork>* contacts) {
  contacts->clear();
  const size_t n = input.bodies.size();
  bvhs_.resize(n);
  std::vector<char> enabled(n, 0);
  for (size_t bi = 0; bi < n; ++bi) {
    const SimBody& sim_body = input.bodies[bi];
    if (!sim_body.collision.enabled) continue;
    enabled[bi] = 1;
    BuildFaceBoxes(sim_body.body->surface(), sim_body.body->positions_t1(), &face_boxes_);
    bvhs_[bi].Update(face_boxes_);
    RETURN_IF_ERROR(input.AskInterrupt());
  }
  DiscretePenetrationOptions options;
  options.thickness_m = settings.min_separation_m;
  // Every vertex of A inside B's box (grown by the thickness) is a query, in (A, B, vertex) order.
  struct Query {
    int32_t a = 0;
    int32_t b = 0;
    int32_t vertex = 0;
  };
  std::vector<Query> queries;
  for (size_t a = 0; a < n; ++a) {
    if (!enabled[a]) continue;
    for (size_t b = 0; b < n; ++b) {
      if (a == b || !enabled[b] || (immovable[a] && immovable[b])) continue;
      if (bvhs_[a].empty() || bvhs_[b].empty()) continue;
      const Aabb box_b = Inflated(bvhs_[b].nodes()[0].box, options.thickness_m);
      if (!Overlaps(bvhs_[a].nodes()[0].box, box_b)) continue;
      const Points3& x = input.bodies[a].body->positions_t1();
      for (const int32_t v : input.bodies[a].surface_vertices) {
        const Vec3 p = x.row(v).transpose();
        if ((p.array() >= box_b.lo.array()).all() && (p.array() <= box_b.hi.array()).all()) {
          queries.push_back({static_cast<int32_t>(a), static_cast<int32_t>(b), v});
        }
      }
    }
  }
  std::vector<ProximityWork> slots(queries.size());
  std::vector<char> found(queries.size(), 0);
  const PenaltyParams params{.stiffness_n_per_m = settings.stiffness_n_per_m,
                             .dt_s = settings.dt_s};
  RETURN_IF_ERROR(InterruptibleParallelFor(
      queries.size(), kPairGrain, kPairInterruptChunk, input.interrupt,
      [&](const tbb::blocked_range<size_t>& range) {
        for (size_t k = range.begin(); k < range.end(); ++k) {
          const Query& query = queries[k];
          const Body& body_b = *input.bodies[query.b].body;
          const DiscreteSurface surface{.mesh = &body_b.surface(),
                                        .positions = &body_b.positions_t1(),
                                        .bvh = &bvhs_[query.b]};
          const Vec3 p = input.bodies[query.a].body->positions_t1().row(query.vertex).transpose();
          VertexPenetration hit;
          if (!VertexPenetrates(p, surface, options, &hit)) continue;
          ProximityWork& work = slots[k];
          work.body_index_a = query.a;
          work.body_index_b = query.b;
          work.vertex = query.vertex;
          work.face = hit.closest.face;
          work.vertices = {query.vertex, body_b.surface().faces()(work.face, 0),
                           body_b.surface().faces()(work.face, 1),
                           body_b.surface().faces()(work.face, 2)};
          work.weights = hit.closest.weights;
          work.depth_m = hit.depth_m;
          work.normal = hit.normal;
          // Eq. 1-3 at t = 1: I = dt k delta n on the vertex, -I on the closest point.
          work.normal_impulse_on_p_n_s =
              params.dt_s * params.stiffness_n_per_m * hit.depth_m * hit.normal;
          if (settings.contact_restitution < 1.0) {
            work.normal_impulse_on_p_n_s += ProximityDashpotImpulse(settings, input, work);
          }
          work.impulses_n_s[0] = work.normal_impulse_on_p_n_s;
          for (int i = 0; i < 3; ++i) {
            work.impulses_n_s[i + 1] = -work.weights[i] * work.normal_impulse_on_p_n_s;
          }
          found[k] = 1;
        }
      }));
  for (size_t k = 0; k < slots.size(); ++k) {
    if (found[k]) contacts->push_back(slots[k]);
  }
  return absl::OkStatus();
}

void CountProximityFrictionShares(const ProximityWork& work, FrictionShares* shares) {
  shares->Count(work.body_index_a, work.vertex);
  if (shares->counts_whole_body(work.body_index_b)) {
    shares->Count(work.body_index_b, 0);
    return;
  }
  for (int i = 0; i < 3; ++i) {
    if (work.weights[i] != 0.0) shares->Count(work.body_index_b, work.vertices[i + 1]);
  }
}

void ComputeProximityFriction(const WorldSettings& settings, const StepInput& input,
                              const FrictionShares& shares, ProximityWork* work) {
  const double dt = settings.dt_s;
  const double normal_force_n = work->normal_impulse_on_p_n_s.norm() / dt;
  const Body& a = *input.bodies[work->body_index_a].body;
  const Body& b = *input.bodies[work->body_index_b].body;
  const auto point_on_b = [&](const Points3& x) {
    Vec3 q = Vec3::Zero();
    for (int i = 0; i < 3; ++i) q += work->weights[i] * x.row(work->vertices[i + 1]).transpose();
    return q;
  };
  const Vec3 p0 = a.positions_t0().row(work->vertex).transpose();
  const Vec3 p1 = a.positions_t1().row(work->vertex).transpose();
  const Vec3 v_slip =
      ((p1 - p0) - (point_on_b(b.positions_t1()) - point_on_b(b.positions_t0()))) / dt;
  const auto inverse_mass_along = [&](const Vec3& u) {
    double sum =
        a.InverseMassAlong(work->vertex, u) * shares.Share(work->body_index_a, work->vertex);
    for (int i = 0; i < 3; ++i) {
      sum += work->weights[i] * b.InverseMassAlong(work->vertices[i + 1], u) *
             shares.Share(work->body_index_b, work->vertices[i + 1]);
    }
    return sum;
  };
  // Viscous friction only (validation refuses Yamane-Nakamura: it needs tracked anchors).
  const FrictionOutcome friction =
      ComputeFriction(settings.friction, FrictionContactState(), p1 - point_on_b(b.positions_t1()),
                      v_slip, work->normal, normal_force_n, dt, inverse_mass_along);
  work->friction_mode = friction.mode;
  work->friction_impulse_on_p_n_s = friction.impulse_n_s;
  work->impulses_n_s[0] += friction.impulse_n_s;
  for (int i = 0; i < 3; ++i) work->impulses_n_s[i + 1] -= work->weights[i] * friction.impulse_n_s;
}

ContactRecord ProximityRecord(const WorldSettings& settings, const StepInput& input,
                              const ProximityWork& work) {
  // At the corrected end: the vertex, the point with the same weights on the face, and the
  // depth along the step's normal (<= 0 once the vertex has left along n).
  const Points3& x_a = input.bodies[work.body_index_a].body->positions_t0();
  const Points3& x_b = input.bodies[work.body_index_b].body->positions_t0();
  const Vec3 p = x_a.row(work.vertex).transpose();
  Vec3 q = Vec3::Zero();
  for (int i = 0; i < 3; ++i) q += work.weights[i] * x_b.row(work.vertices[i + 1]).transpose();
  ContactRecord record;
  record.body_a = input.bodies[work.body_index_a].id;
  record.body_b = input.bodies[work.body_index_b].id;
  record.kind = ContactFeatureKind::kVertexFace;
  record.feature_a = work.vertex;
  record.feature_b = work.face;
  record.p_WC = p;
  record.normal_W = work.normal;
  record.depth_m = settings.min_separation_m > 0.0 &&
                           !input.bodies[work.body_index_b].body->surface().is_closed()
                       ? settings.min_separation_m - (p - q).dot(work.normal)
                       : (q - p).dot(work.normal);
  record.normal_impulse_n_s = work.normal_impulse_on_p_n_s;
  record.friction_impulse_n_s = work.friction_impulse_on_p_n_s;
  record.friction_mode = work.friction_mode;
  return record;
}

}  // namespace contactsim::core
