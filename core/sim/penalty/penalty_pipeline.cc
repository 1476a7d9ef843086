#include "core/sim/penalty/penalty_pipeline.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/collision/discrete_penetration.h"
#include "core/collision/proximity.h"
#include "core/common/parallel_for.h"
#include "core/contact/friction/viscous_friction.h"
#include "core/contact/penalty/cpf.h"
#include "core/contact/penalty/cpf_exact.h"
#include "core/contact/penalty/dpf.h"
#include "core/contact/penalty/penalty_pair.h"
#include "core/contact/penalty/static_plane.h"
#include "core/sim/body_utils.h"
#include "core/sim/constraints.h"
#include "oneapi/tbb/blocked_range.h"
#include "oneapi/tbb/parallel_for.h"

namespace contactsim::core {
namespace {

// Pairs per parallel task: large enough to amortize scheduling, small enough to balance.
constexpr size_t kPairGrain = 64;

// An edge is flat when its two faces are coplanar: the sine of the angle between their normals
// is at most this. Rounding leaves ~1e-16 on flat meshes; a fold of 1e-6 rad departs from flat
// by 1 um per metre of face, far below penalty penetration depths, so the VF pairs of the two
// faces still carry any contact there.
constexpr double kFlatEdgeSine = 1e-6;

// True when the edge has exactly two faces whose normals at the start of the step agree within
// kFlatEdgeSine. Boundary and non-manifold edges are never flat.
bool IsFlatEdge(const Body& body, int32_t edge) {
  const TriangleMesh& mesh = body.surface();
  if (mesh.edge_face_count(edge) != 2) return false;
  const Points3& x = body.positions_t0();
  const int32_t* faces = mesh.edge_faces_begin(edge);
  Vec3 normals[2];
  for (int k = 0; k < 2; ++k) {
    const Vec3 a = x.row(mesh.faces()(faces[k], 0)).transpose();
    const Vec3 b = x.row(mesh.faces()(faces[k], 1)).transpose();
    const Vec3 c = x.row(mesh.faces()(faces[k], 2)).transpose();
    normals[k] = (b - a).cross(c - a);
  }
  const double scale = normals[0].norm() * normals[1].norm();
  return scale > 0.0 && normals[0].dot(normals[1]) > 0.0 &&
         normals[0].cross(normals[1]).norm() <= kFlatEdgeSine * scale;
}

// True when the pair's depth at the end of the step is not certainly on the side it came from:
// s delta(1) is positive or lost in delta's evaluation error bound, so the features meet at t = 1
// or have crossed by rounding. A pair that stays apart by more than rounding (came within the
// minimum separation, or CCD's tolerance, without touching) is not.
bool EndsInContact(const CubicPolynomial& depth, double penetrating_sign) {
  return penetrating_sign * depth.Evaluate(1.0) >= -depth.EvaluationErrorBound(1.0);
}

// True when the body's surface is closed and encloses a positive volume at the start of the step
// (sum over faces of x0 . (x1 x x2) / 6): its faces wind counter-clockwise seen from outside, the
// TriangleMesh convention, so each face's normal (b - a) x (c - a) points out of the body. A closed
// mesh wound the other way (a static body built from user data can be) fails the test.
bool IsOutwardClosed(const Body& body) {
  const TriangleMesh& mesh = body.surface();
  if (!mesh.is_closed()) return false;
  const Points3& x = body.positions_t0();
  double six_volume = 0.0;
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const Vec3 a = x.row(mesh.faces()(f, 0)).transpose();
    const Vec3 b = x.row(mesh.faces()(f, 1)).transpose();
    const Vec3 c = x.row(mesh.faces()(f, 2)).transpose();
    six_volume += a.dot(b.cross(c));
  }
  return six_volume > 0.0;
}

// True for a VF hit whose vertex crosses a face of an outward-wound closed body B from the face's
// back, i.e. from inside B, which it leaves there: m = (b - a) x (c - a) is the face's outward
// normal and the pair penetrates while s m . (p - q) > 0, so s > 0 puts the side the vertex came
// from behind the face. A pair started there would take the inside of B as the side to push the
// vertex back to (its normal -s m / |m| points into B) and hold it inside: chain links were pulled
// into the chain benchmark's box by such pairs, from vertices that went in through the box's top
// and out through a side (docs/validation.md). The paper's VF normal is the triangle's own
// (Eq. 12-14), whose penetrating side is always the back, so it starts no such pair either. Open
// surfaces (cloth) have no inside: the side of approach decides there, as for EE pairs, whose
// normal (the edges' common perpendicular) has no outward orientation of its own.
bool IsExitCrossing(CcdPairKind kind, bool body_b_outward_closed, double penetrating_sign) {
  return kind == CcdPairKind::kVertexFace && body_b_outward_closed && penetrating_sign > 0.0;
}

const SimBody* FindBody(std::span<SimBody> bodies, int32_t id) {
  const auto it =
      std::lower_bound(bodies.begin(), bodies.end(), id,
                       [](const SimBody& body, int32_t value) { return body.id < value; });
  return it != bodies.end() && it->id == id ? &*it : nullptr;
}

ContactFeatureKind FeatureKind(CcdPairKind kind) {
  return kind == CcdPairKind::kVertexFace ? ContactFeatureKind::kVertexFace
                                          : ContactFeatureKind::kEdgeEdge;
}

bool IsCpfModel(ContactModel model) {
  return model == ContactModel::kCpf || model == ContactModel::kCpfExact;
}

struct FrictionOutcome {
  Vec3 impulse_Ns = Vec3::Zero();  // on the first feature's point [N s]
  FrictionMode mode = FrictionMode::kNone;
  FrictionContactState state;
};

// Friction over the step for one contact (see the header, step 5). offset_W is the point the
// Yamane-Nakamura spring anchors (p - q, or p against a plane) [m]; inverse_mass_along(u) bounds
// the contact's inverse effective mass along the unit direction u [1/kg].
template <typename InverseMassAlong>
FrictionOutcome ComputeFriction(const FrictionSettings& settings, const FrictionContactState& state,
                                const Vec3& offset_W, const Vec3& v_slip_W, const Vec3& unit_normal,
                                double normal_force_N, double dt_s,
                                const InverseMassAlong& inverse_mass_along) {
  FrictionOutcome out;
  out.state = state;
  if (settings.model == FrictionModel::kNone || !(normal_force_N > 0.0)) return out;
  if (settings.model == FrictionModel::kYamaneNakamura) {
    const FrictionResult r = YamaneNakamuraFriction(state, offset_W, v_slip_W, unit_normal,
                                                    normal_force_N, settings.yamane_nakamura, dt_s);
    out.impulse_Ns = r.impulse_Ns;
    out.mode = r.mode;
    out.state = r.state;
  } else {
    out.impulse_Ns = dt_s * ViscousFrictionForce(v_slip_W, unit_normal, settings.viscous);
    out.mode = FrictionMode::kSlip;
  }
  // Dynamic friction may stop the slip within the step, never reverse it.
  const double magnitude = out.impulse_Ns.norm();
  if (out.mode == FrictionMode::kSlip && magnitude > 0.0) {
    const Vec3 v_t = v_slip_W - unit_normal.dot(v_slip_W) * unit_normal;
    const double w = inverse_mass_along(Vec3(out.impulse_Ns / magnitude));
    if (w > 0.0) {
      const double cap = v_t.norm() / w;
      if (magnitude > cap) out.impulse_Ns *= cap / magnitude;
    }
  }
  return out;
}

}  // namespace

PenaltyPipeline::PenaltyPipeline(const WorldSettings& settings) : settings_(settings) {}

PenaltyPipeline::~PenaltyPipeline() = default;

absl::Status PenaltyPipeline::CheckBody(const Body& body) const {
  if (body.type() == BodyType::kHyperelastic) {
    return absl::InvalidArgumentError(
        "body: the penalty pipeline does not step hyperelastic bodies (create the session with "
        "the local_global pipeline)");
  }
  return absl::OkStatus();
}

void PenaltyPipeline::ForgetBody(int32_t body_id) {
  std::erase_if(pairs_, [&](const TrackedPair& pair) {
    return pair.key.body_a == body_id || pair.key.body_b == body_id;
  });
  std::erase_if(plane_contacts_,
                [&](const PlaneContact& contact) { return contact.body_id == body_id; });
}

void PenaltyPipeline::ForgetPlane(int32_t plane_id) {
  std::erase_if(plane_contacts_,
                [&](const PlaneContact& contact) { return contact.plane_id == plane_id; });
}

void PenaltyPipeline::Clear() {
  pairs_.clear();
  plane_contacts_.clear();
}

absl::Status PenaltyPipeline::RestoreContacts(std::vector<TrackedPair> pairs,
                                              std::vector<PlaneContact> plane_contacts) {
  for (size_t i = 1; i < pairs.size(); ++i) {
    if (!(pairs[i - 1].key < pairs[i].key)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tracked_pairs[", i, "]: keys must be strictly ascending"));
    }
  }
  const auto key_of = [](const PlaneContact& c) {
    return std::make_tuple(c.body_id, c.vertex, c.plane_id);
  };
  for (size_t i = 1; i < plane_contacts.size(); ++i) {
    if (!(key_of(plane_contacts[i - 1]) < key_of(plane_contacts[i]))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plane_contacts[", i, "]: (body, vertex, plane) must be strictly ascending"));
    }
  }
  pairs_ = std::move(pairs);
  plane_contacts_ = std::move(plane_contacts);
  return absl::OkStatus();
}

std::unique_ptr<Pipeline> PenaltyPipeline::Clone() const {
  auto clone = std::make_unique<PenaltyPipeline>(settings_);
  clone->pairs_ = pairs_;
  clone->plane_contacts_ = plane_contacts_;
  return clone;
}

void PenaltyPipeline::EvaluatePair(const Candidate& candidate, const StepInput& input,
                                   PairWork* work) const {
  *work = PairWork();
  const auto prepare = [&](const PairKey& key) {
    work->body_a = FindBody(input.bodies, key.body_a);
    work->body_b = FindBody(input.bodies, key.body_b);
    if (work->body_a == nullptr || work->body_b == nullptr) return false;
    work->body_index_a = static_cast<int32_t>(work->body_a - input.bodies.data());
    work->body_index_b = static_cast<int32_t>(work->body_b - input.bodies.data());
    const Body& a = *work->body_a->body;
    const Body& b = *work->body_b->body;
    work->vertices = PairVertexIndices(key, a, b);
    work->trajectory = GatherTrajectory(key.kind, work->vertices, a, b);
    return true;
  };
  if (candidate.tracked != nullptr) {
    work->pair = *candidate.tracked;
    if (prepare(work->pair.key)) {
      const CubicPolynomial depth = PairDepthCubic(work->pair.key.kind, work->trajectory);
      work->intervals = PenetrationIntervalsOf(depth, work->pair.penetrating_sign, 0.0);
      work->active = work->intervals.count > 0;
    }
    work->dropped = !work->active;
  }
  if (!work->active && candidate.hit != nullptr) {
    const CcdHit& hit = *candidate.hit;
    if (hit.status == CcdStatus::kInvalidInput) {
      work->invalid_hit = true;
      return;
    }
    TrackedPair pair;
    pair.key = KeyOf(hit);
    pair.weights = hit.kind == CcdPairKind::kVertexFace ? hit.weights
                                                        : Vec3(hit.weights[0], hit.weights[1], 0.0);
    if (!prepare(pair.key)) return;
    if (hit.kind == CcdPairKind::kEdgeEdge && (IsFlatEdge(*work->body_a->body, hit.feature_a) ||
                                               IsFlatEdge(*work->body_b->body, hit.feature_b))) {
      work->flat_edge_hit = true;
      return;
    }
    // The sign and intervals at toi came with the hit, from the narrow phase's roots.
    pair.penetrating_sign = hit.penetration.penetrating_sign;
    if (pair.penetrating_sign == 0.0) return;  // coplanar motion: no depth is defined
    if (IsExitCrossing(hit.kind, outward_closed_[work->body_index_b] != 0, pair.penetrating_sign)) {
      work->exit_hit = true;
      return;
    }
    work->intervals = hit.penetration.intervals;
    if (work->intervals.count == 0) {
      // No penetration within the step. A crossing at t = 1 (within rounding) has no interval
      // left in this step, and the next step's CCD cannot see it again once the features sit
      // on the inside: keep the pair, without an impulse, for the next step's tracked
      // evaluation from t = 0, which drops it if it does not penetrate then.
      work->deferred =
          EndsInContact(PairDepthCubic(pair.key.kind, work->trajectory), pair.penetrating_sign);
      if (work->deferred) work->pair = pair;
      return;  // otherwise it came within the separation without crossing
    }
    work->pair = pair;
    work->active = true;
    work->is_new = true;
  }
  if (work->active) ComputeNormalImpulse(work);
}

void PenaltyPipeline::ComputeNormalImpulse(PairWork* work) const {
  const PenaltyParams params{.stiffness_n_per_m = settings_.stiffness_n_per_m,
                             .dt_s = settings_.dt_s};
  TrackedPair& pair = work->pair;
  const bool vf = pair.key.kind == CcdPairKind::kVertexFace;
  const Vec3& w = pair.weights;
  const PairTrajectory& traj = work->trajectory;
  const std::span<const TimeInterval> spans(work->intervals.intervals.data(),
                                            work->intervals.count);
  NormalFallbackOptions fallback;
  fallback.fallback_normal = pair.normal_W;

  VertexImpulses normal_impulses = ZeroImpulses();
  switch (settings_.contact_model) {
    case ContactModel::kCpf: {
      const CpfResult r = vf ? CpfVertexFace(traj, w, spans, params, fallback)
                             : CpfEdgeEdge(traj, w[0], w[1], spans, params, fallback);
      work->status = r.status;
      work->normal_impulse_on_p_Ns = r.impulse_on_p_Ns;
      normal_impulses = r.impulses_Ns;
      work->normal_t1 = r.normal_t1;
      break;
    }
    case ContactModel::kCpfExact: {
      CpfExactOptions options;
      options.fallback = fallback;
      options.quadrature.relative_tolerance = settings_.cpf_exact_relative_tolerance;
      const CpfExactResult r = vf ? CpfExactVertexFace(traj, w, spans, params, options)
                                  : CpfExactEdgeEdge(traj, w[0], w[1], spans, params, options);
      work->status = r.cpf.status;
      work->converged = r.converged;
      work->normal_impulse_on_p_Ns = r.cpf.impulse_on_p_Ns;
      normal_impulses = r.cpf.impulses_Ns;
      work->normal_t1 = r.cpf.normal_t1;
      break;
    }
    case ContactModel::kDpfCcdNormal: {
      Vec3 n = PairGeometryAt(pair.key.kind, traj.x_t1, w, pair.penetrating_sign).normal;
      if (n.isZero(0.0)) n = pair.normal_W;
      if (n.isZero(0.0)) {
        work->status = PenaltyStatus::kNoNormal;
        break;
      }
      const DpfResult r = vf ? DpfVertexFaceWithNormal(traj, w, n, params)
                             : DpfEdgeEdgeWithNormal(traj, w[0], w[1], n, params);
      work->status = r.status;
      work->normal_impulse_on_p_Ns = params.dt_s * r.force_on_p_N;
      normal_impulses = r.impulses_Ns;
      work->normal_t1 = r.normal;
      break;
    }
    case ContactModel::kDpf: {
      const std::array<Vec3, 4>& x = traj.x_t1;
      DpfResult r;
      if (vf) {
        const PointTriangleProximity closest = PointTriangleClosest(x[0], x[1], x[2], x[3]);
        r = DpfVertexFace(traj, closest.weights, params, fallback);
      } else {
        const SegmentSegmentProximity closest = SegmentSegmentClosest(x[0], x[1], x[2], x[3]);
        r = DpfEdgeEdge(traj, closest.s, closest.u, params, fallback);
      }
      work->status = r.status;
      work->normal_impulse_on_p_Ns = params.dt_s * r.force_on_p_N;
      normal_impulses = r.impulses_Ns;
      work->normal_t1 = r.normal;
      break;
    }
    case ContactModel::kDpfProximity:
      break;  // no tracked pairs: ComputeProximityContacts
  }
  if (work->status != PenaltyStatus::kOk) {
    work->normal_impulse_on_p_Ns.setZero();
    work->impulses_Ns = ZeroImpulses();
    return;
  }
  work->impulses_Ns = normal_impulses;
  if (!work->normal_t1.isZero(0.0)) pair.normal_W = work->normal_t1;
}

void PenaltyPipeline::ComputePairFriction(PairWork* work) const {
  const double dt = settings_.dt_s;
  const double normal_force_N = work->normal_impulse_on_p_Ns.norm() / dt;
  if (settings_.friction.model == FrictionModel::kNone || !(normal_force_N > 0.0)) return;
  TrackedPair& pair = work->pair;
  const Vec3& w = pair.weights;
  const PairTrajectory& traj = work->trajectory;
  const std::optional<PenaltyPair> points = pair.key.kind == CcdPairKind::kVertexFace
                                                ? MakeVertexFacePair(traj, w)
                                                : MakeEdgeEdgePair(traj, w[0], w[1]);
  if (!points) return;
  const Vec3 p0 = points->p(0.0), p1 = points->p(1.0);
  const Vec3 q0 = points->q(0.0), q1 = points->q(1.0);
  const Vec3 v_slip = ((p1 - p0) - (q1 - q0)) / dt;
  const int on_a = NumVerticesOnA(pair.key.kind);
  const auto inverse_mass_along = [&](const Vec3& u) {
    double sum = 0.0;
    for (int i = 0; i < 4; ++i) {
      const int32_t body_index = i < on_a ? work->body_index_a : work->body_index_b;
      const Body& body = i < on_a ? *work->body_a->body : *work->body_b->body;
      sum += std::abs(points->distribution[i]) * body.InverseMassAlong(work->vertices[i], u) *
             FrictionShare(body_index, work->vertices[i]);
    }
    return sum;
  };
  const FrictionOutcome friction =
      ComputeFriction(settings_.friction, pair.friction, p1 - q1, v_slip, work->normal_t1,
                      normal_force_N, dt, inverse_mass_along);
  pair.friction = friction.state;
  work->friction_mode = friction.mode;
  work->friction_impulse_on_p_Ns = friction.impulse_Ns;
  const VertexImpulses friction_impulses = DistributeImpulse(*points, friction.impulse_Ns);
  for (int i = 0; i < 4; ++i) work->impulses_Ns[i] += friction_impulses[i];
}

void PenaltyPipeline::ComputePlaneContacts(const StepInput& input, StepDiagnostics* diagnostics) {
  plane_work_.clear();
  if (input.planes.empty()) return;
  const double dt = settings_.dt_s;
  const double k = settings_.stiffness_n_per_m;
  const PenaltyParams params{.stiffness_n_per_m = k, .dt_s = dt};
  const bool cpf = IsCpfModel(settings_.contact_model);
  size_t previous = 0;  // plane_contacts_ and this loop both go in (body, vertex, plane) order
  for (size_t bi = 0; bi < input.bodies.size(); ++bi) {
    const SimBody& sim_body = input.bodies[bi];
    if (!sim_body.collision.enabled || immovable_[bi]) continue;
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
        if (cpf) {
          const StaticPlaneResult r =
              CpfVertexStaticPlane(x0, x1, plane.normal, plane.offset_m, params);
          if (r.status != PenaltyStatus::kOk || !r.penetrating) continue;
          work.normal_impulse_Ns = r.impulse_Ns;
        } else {
          if (depth_1 <= 0.0) continue;
          work.normal_impulse_Ns = dt * k * depth_1 * plane.normal;
        }
        work.body_index = static_cast<int32_t>(bi);
        work.vertex = v;
        work.plane_index = static_cast<int32_t>(pi);
        const auto key = std::make_tuple(sim_body.id, v, plane.id);
        const auto key_of = [](const PlaneContact& c) {
          return std::make_tuple(c.body_id, c.vertex, c.plane_id);
        };
        while (previous < plane_contacts_.size() && key_of(plane_contacts_[previous]) < key) {
          ++previous;
        }
        if (previous < plane_contacts_.size() && key_of(plane_contacts_[previous]) == key) {
          work.friction = plane_contacts_[previous].friction;
        }
        plane_work_.push_back(work);
      }
    }
  }
  diagnostics->plane_contacts = static_cast<int32_t>(plane_work_.size());
}

void PenaltyPipeline::ComputePlaneFriction(const StepInput& input) {
  const double dt = settings_.dt_s;
  next_plane_contacts_.clear();
  for (PlaneWork& work : plane_work_) {
    const SimBody& sim_body = input.bodies[work.body_index];
    const GroundPlane& plane = input.planes[work.plane_index];
    const Body& body = *sim_body.body;
    const Vec3 x0 = body.positions_t0().row(work.vertex).transpose();
    const Vec3 x1 = body.positions_t1().row(work.vertex).transpose();
    // The share is read only when friction slips (a friction model is set and counted).
    const FrictionOutcome friction =
        ComputeFriction(settings_.friction, work.friction, x1, (x1 - x0) / dt, plane.normal,
                        work.normal_impulse_Ns.norm() / dt, dt, [&](const Vec3& u) {
                          return body.InverseMassAlong(work.vertex, u) *
                                 FrictionShare(work.body_index, work.vertex);
                        });
    work.friction = friction.state;
    work.friction_impulse_Ns = friction.impulse_Ns;
    work.friction_mode = friction.mode;
    next_plane_contacts_.push_back(
        PlaneContact{sim_body.id, work.vertex, plane.id, friction.state});
  }
  plane_contacts_.swap(next_plane_contacts_);
}

void PenaltyPipeline::ComputeProximityContacts(const StepInput& input) {
  proximity_work_.clear();
  const size_t n = input.bodies.size();
  proximity_bvhs_.resize(n);
  std::vector<char> enabled(n, 0);
  for (size_t bi = 0; bi < n; ++bi) {
    const SimBody& sim_body = input.bodies[bi];
    if (!sim_body.collision.enabled) continue;
    enabled[bi] = 1;
    BuildFaceBoxes(sim_body.body->surface(), sim_body.body->positions_t1(), &face_boxes_);
    proximity_bvhs_[bi].Update(face_boxes_);
  }
  DiscretePenetrationOptions options;
  options.thickness_m = settings_.min_separation_m;
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
      if (a == b || !enabled[b] || (immovable_[a] && immovable_[b])) continue;
      if (proximity_bvhs_[a].empty() || proximity_bvhs_[b].empty()) continue;
      const Aabb box_b = Inflated(proximity_bvhs_[b].nodes()[0].box, options.thickness_m);
      if (!Overlaps(proximity_bvhs_[a].nodes()[0].box, box_b)) continue;
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
  const PenaltyParams params{.stiffness_n_per_m = settings_.stiffness_n_per_m,
                             .dt_s = settings_.dt_s};
  ParallelFor(tbb::blocked_range<size_t>(0, queries.size(), kPairGrain),
              [&](const tbb::blocked_range<size_t>& range) {
                for (size_t k = range.begin(); k < range.end(); ++k) {
                  const Query& query = queries[k];
                  const Body& body_b = *input.bodies[query.b].body;
                  const DiscreteSurface surface{.mesh = &body_b.surface(),
                                                .positions = &body_b.positions_t1(),
                                                .bvh = &proximity_bvhs_[query.b]};
                  const Vec3 p =
                      input.bodies[query.a].body->positions_t1().row(query.vertex).transpose();
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
                  work.normal_impulse_on_p_Ns =
                      params.dt_s * params.stiffness_n_per_m * hit.depth_m * hit.normal;
                  work.impulses_Ns[0] = work.normal_impulse_on_p_Ns;
                  for (int i = 0; i < 3; ++i) {
                    work.impulses_Ns[i + 1] = -work.weights[i] * work.normal_impulse_on_p_Ns;
                  }
                  found[k] = 1;
                }
              });
  for (size_t k = 0; k < slots.size(); ++k) {
    if (found[k]) proximity_work_.push_back(slots[k]);
  }
}

void PenaltyPipeline::ComputeProximityFriction(const StepInput& input, ProximityWork* work) const {
  const double dt = settings_.dt_s;
  const double normal_force_N = work->normal_impulse_on_p_Ns.norm() / dt;
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
        a.InverseMassAlong(work->vertex, u) * FrictionShare(work->body_index_a, work->vertex);
    for (int i = 0; i < 3; ++i) {
      sum += work->weights[i] * b.InverseMassAlong(work->vertices[i + 1], u) *
             FrictionShare(work->body_index_b, work->vertices[i + 1]);
    }
    return sum;
  };
  // Viscous friction only (validation refuses Yamane-Nakamura: it needs tracked anchors).
  const FrictionOutcome friction =
      ComputeFriction(settings_.friction, FrictionContactState(), p1 - point_on_b(b.positions_t1()),
                      v_slip, work->normal, normal_force_N, dt, inverse_mass_along);
  work->friction_mode = friction.mode;
  work->friction_impulse_on_p_Ns = friction.impulse_Ns;
  work->impulses_Ns[0] += friction.impulse_Ns;
  for (int i = 0; i < 3; ++i) work->impulses_Ns[i + 1] -= work->weights[i] * friction.impulse_Ns;
}

void PenaltyPipeline::CountFrictionShares(const StepInput& input) {
  if (settings_.friction.model == FrictionModel::kNone) return;  // no friction, no shares
  friction_shares_.resize(input.bodies.size());
  whole_body_shares_.assign(input.bodies.size(), 0);
  for (size_t bi = 0; bi < input.bodies.size(); ++bi) {
    const Body& body = *input.bodies[bi].body;
    whole_body_shares_[bi] = body.type() == BodyType::kRigid;
    friction_shares_[bi].assign(whole_body_shares_[bi] ? 1 : body.num_vertices(), 0);
  }
  const auto count = [&](int32_t body_index, int32_t vertex) {
    ++friction_shares_[body_index][whole_body_shares_[body_index] ? 0 : vertex];
  };
  for (const PairWork& work : pair_work_) {
    if (!work.active || work.normal_impulse_on_p_Ns.isZero(0.0)) continue;
    const Vec3& w = work.pair.weights;
    const bool vf = work.pair.key.kind == CcdPairKind::kVertexFace;
    const std::array<double, 4> shares =
        vf ? std::array<double, 4>{1.0, w[0], w[1], w[2]}
           : std::array<double, 4>{1.0 - w[0], w[0], 1.0 - w[1], w[1]};
    const int on_a = NumVerticesOnA(work.pair.key.kind);
    for (int side = 0; side < 2; ++side) {
      const int32_t body_index = side == 0 ? work.body_index_a : work.body_index_b;
      const int begin = side == 0 ? 0 : on_a;
      const int end = side == 0 ? on_a : 4;
      if (whole_body_shares_[body_index]) {
        count(body_index, 0);  // once per contact, however many of its vertices it moves
        continue;
      }
      for (int i = begin; i < end; ++i) {
        if (shares[i] != 0.0) count(body_index, work.vertices[i]);
      }
    }
  }
  for (const ProximityWork& work : proximity_work_) {
    count(work.body_index_a, work.vertex);
    if (whole_body_shares_[work.body_index_b]) {
      count(work.body_index_b, 0);
      continue;
    }
    for (int i = 0; i < 3; ++i) {
      if (work.weights[i] != 0.0) count(work.body_index_b, work.vertices[i + 1]);
    }
  }
  for (const PlaneWork& work : plane_work_) count(work.body_index, work.vertex);
}

int32_t PenaltyPipeline::FrictionShare(int32_t body_index, int32_t vertex) const {
  const std::vector<int32_t>& counts = friction_shares_[body_index];
  return std::max<int32_t>(1, counts[whole_body_shares_[body_index] ? 0 : vertex]);
}

absl::Status PenaltyPipeline::Step(const StepInput& input, StepDiagnostics* diagnostics,
                                   ContactReport* report) {
  const double dt = settings_.dt_s;
  report->contacts.clear();
  report->body_totals.clear();

  // 1. Predict. Bodies predict independently, so the order changes no result; constraints
  // (constraints.h) need deformables first, whose held vertices' forces go to the rigid bodies
  // they are attached to before those predict, and then drive the attached vertices to the
  // rigid bodies' predicted poses.
  ConstraintSet* constraints = input.constraints;
  if (constraints != nullptr) {
    if (absl::Status s = constraints->ApplyTargetForces(input.bodies); !s.ok()) return s;
  }
  for (const bool rigid_pass : {false, true}) {
    for (SimBody& sim_body : input.bodies) {
      if ((sim_body.body->type() == BodyType::kRigid) != rigid_pass) continue;
      if (absl::Status s = sim_body.body->Predict(dt, settings_.gravity_m_per_s2); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
      }
    }
    if (constraints != nullptr && !rigid_pass) {
      if (absl::Status s = constraints->ApplyAttachmentReactions(input.bodies); !s.ok()) return s;
    }
  }
  if (constraints != nullptr) {
    if (absl::Status s = constraints->DriveAttachedVertices(input.bodies); !s.ok()) return s;
  }
  for (const SimBody& sim_body : input.bodies) {
    if (!sim_body.body->positions_t1().allFinite()) {
      diagnostics->divergence = DivergenceKind::kNonFinite;
      diagnostics->divergence_message = absl::StrCat("body ", sim_body.id, " '", sim_body.name,
                                                     "': predicted positions are not finite");
      return absl::FailedPreconditionError(diagnostics->divergence_message);
    }
  }

  // 2. CCD on the predicted trajectories.
  immovable_.assign(input.bodies.size(), 0);
  outward_closed_.assign(input.bodies.size(), 0);
  collision_bodies_.clear();
  for (size_t i = 0; i < input.bodies.size(); ++i) {
    const SimBody& sim_body = input.bodies[i];
    immovable_[i] = IsImmovable(*sim_body.body);
    if (!sim_body.collision.enabled) continue;
    outward_closed_[i] = IsOutwardClosed(*sim_body.body);
    const Body& body = *sim_body.body;
    collision_bodies_.push_back(CollisionBody{
        .id = sim_body.id,
        .mesh = &body.surface(),
        .x_t0 = &body.positions_t0(),
        .x_t1 = &body.positions_t1(),
        .is_static = immovable_[i] != 0,
        .self_collision = settings_.self_collision && sim_body.collision.self_collision &&
                          body.type() != BodyType::kRigid,
    });
  }
  const bool proximity = settings_.contact_model == ContactModel::kDpfProximity;
  if (proximity) {
    // Discrete detection at t = 1 instead of CCD and tracking: nothing is carried over.
    ccd_result_.hits.clear();
    pairs_.clear();
    ComputeProximityContacts(input);
  } else {
    proximity_work_.clear();
    const CcdOptions ccd_options{.min_separation_m = settings_.min_separation_m,
                                 .tolerance_m = settings_.ccd_tolerance_m,
                                 .max_iterations = settings_.ccd_max_iterations};
    if (absl::Status s = ccd_.Run(collision_bodies_, ccd_options, &ccd_result_); !s.ok()) {
      return s;
    }
    diagnostics->ccd = ccd_result_.stats;
  }

  // 3. Merge the tracked pairs with the hits, both in key order.
  sorted_hits_.clear();
  for (const CcdHit& hit : ccd_result_.hits) sorted_hits_.push_back(&hit);
  std::stable_sort(sorted_hits_.begin(), sorted_hits_.end(),
                   [](const CcdHit* a, const CcdHit* b) { return KeyOf(*a) < KeyOf(*b); });
  // One candidate per key, so the table stays unique.
  sorted_hits_.erase(
      std::unique(sorted_hits_.begin(), sorted_hits_.end(),
                  [](const CcdHit* a, const CcdHit* b) { return KeyOf(*a) == KeyOf(*b); }),
      sorted_hits_.end());
  candidates_.clear();
  {
    size_t i = 0, j = 0;
    while (i < pairs_.size() || j < sorted_hits_.size()) {
      if (j == sorted_hits_.size() ||
          (i < pairs_.size() && pairs_[i].key < KeyOf(*sorted_hits_[j]))) {
        candidates_.push_back({&pairs_[i++], nullptr});
      } else if (i == pairs_.size() || KeyOf(*sorted_hits_[j]) < pairs_[i].key) {
        candidates_.push_back({nullptr, sorted_hits_[j++]});
      } else {
        candidates_.push_back({&pairs_[i++], sorted_hits_[j++]});
      }
    }
  }

  // 3-4. Intervals and normal impulses per pair, in parallel into per-pair slots; then the
  // vertices against the ground planes.
  pair_work_.resize(candidates_.size());
  ParallelFor(tbb::blocked_range<size_t>(0, candidates_.size(), kPairGrain),
              [&](const tbb::blocked_range<size_t>& range) {
                for (size_t k = range.begin(); k < range.end(); ++k) {
                  EvaluatePair(candidates_[k], input, &pair_work_[k]);
                }
              });
  ComputePlaneContacts(input, diagnostics);

  // 5. Friction, once every contact's normal impulse is known.
  CountFrictionShares(input);
  if (settings_.friction.model != FrictionModel::kNone) {
    ParallelFor(tbb::blocked_range<size_t>(0, pair_work_.size(), kPairGrain),
                [&](const tbb::blocked_range<size_t>& range) {
                  for (size_t k = range.begin(); k < range.end(); ++k) {
                    if (pair_work_[k].active) ComputePairFriction(&pair_work_[k]);
                  }
                });
    ParallelFor(tbb::blocked_range<size_t>(0, proximity_work_.size(), kPairGrain),
                [&](const tbb::blocked_range<size_t>& range) {
                  for (size_t k = range.begin(); k < range.end(); ++k) {
                    ComputeProximityFriction(input, &proximity_work_[k]);
                  }
                });
  }
  ComputePlaneFriction(input);

  // 6. Apply in key order on this thread.
  std::vector<TrackedPair> next_pairs;
  next_pairs.reserve(candidates_.size());
  for (const PairWork& work : pair_work_) {
    diagnostics->dropped_pairs += work.dropped;
    diagnostics->invalid_ccd_hits += work.invalid_hit;
    diagnostics->flat_edge_hits += work.flat_edge_hit;
    diagnostics->end_of_step_pairs += work.deferred;
    diagnostics->exit_hits += work.exit_hit;
    if (work.deferred) next_pairs.push_back(work.pair);  // no impulse, no report record
    if (!work.active) continue;
    next_pairs.push_back(work.pair);
    ++diagnostics->active_pairs;
    diagnostics->new_pairs += work.is_new;
    diagnostics->degenerate_pairs += work.status != PenaltyStatus::kOk;
    diagnostics->unconverged_pairs += !work.converged;
    diagnostics->stick_contacts += work.friction_mode == FrictionMode::kStick;
    diagnostics->slip_contacts += work.friction_mode == FrictionMode::kSlip;
    const int on_a = NumVerticesOnA(work.pair.key.kind);
    for (int i = 0; i < 4; ++i) {
      if (work.impulses_Ns[i].isZero(0.0)) continue;
      Body& body = i < on_a ? *work.body_a->body : *work.body_b->body;
      if (absl::Status s = body.AddVertexImpulse(work.vertices[i], work.impulses_Ns[i]); !s.ok()) {
        return s;
      }
    }
  }
  pairs_.swap(next_pairs);
  for (const ProximityWork& work : proximity_work_) {
    ++diagnostics->active_pairs;
    ++diagnostics->new_pairs;  // found anew every step: nothing is tracked
    diagnostics->slip_contacts += work.friction_mode == FrictionMode::kSlip;
    for (int i = 0; i < 4; ++i) {
      if (work.impulses_Ns[i].isZero(0.0)) continue;
      Body& body = *input.bodies[i == 0 ? work.body_index_a : work.body_index_b].body;
      if (absl::Status s = body.AddVertexImpulse(work.vertices[i], work.impulses_Ns[i]); !s.ok()) {
        return s;
      }
    }
  }
  for (const PlaneWork& work : plane_work_) {
    diagnostics->stick_contacts += work.friction_mode == FrictionMode::kStick;
    diagnostics->slip_contacts += work.friction_mode == FrictionMode::kSlip;
    Body& body = *input.bodies[work.body_index].body;
    if (absl::Status s =
            body.AddVertexImpulse(work.vertex, work.normal_impulse_Ns + work.friction_impulse_Ns);
        !s.ok()) {
      return s;
    }
  }

  for (SimBody& sim_body : input.bodies) {
    if (absl::Status s = sim_body.body->Correct(dt); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
    }
  }

  // 7. The report, at the corrected end of the step.
  report->contacts.reserve(diagnostics->active_pairs + plane_work_.size());
  double max_depth = 0.0;
  for (const PairWork& work : pair_work_) {
    if (!work.active) continue;
    const PairKey& key = work.pair.key;
    std::array<Vec3, 4> x_end;
    const int on_a = NumVerticesOnA(key.kind);
    for (int i = 0; i < 4; ++i) {
      const Body& body = i < on_a ? *work.body_a->body : *work.body_b->body;
      x_end[i] = body.positions_t0().row(work.vertices[i]).transpose();
    }
    const PairGeometry end =
        PairGeometryAt(key.kind, x_end, work.pair.weights, work.pair.penetrating_sign);
    ContactRecord record;
    record.body_a = key.body_a;
    record.body_b = key.body_b;
    record.kind = FeatureKind(key.kind);
    record.feature_a = key.feature_a;
    record.feature_b = key.feature_b;
    record.p_WC = end.p;
    record.normal_W = end.normal.isZero(0.0) ? work.normal_t1 : end.normal;
    record.depth_m = end.depth_m;
    record.normal_impulse_Ns = work.normal_impulse_on_p_Ns;
    record.friction_impulse_Ns = work.friction_impulse_on_p_Ns;
    record.friction_mode = work.friction_mode;
    max_depth = std::max(max_depth, record.depth_m);
    report->contacts.push_back(record);
  }
  for (const ProximityWork& work : proximity_work_) {
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
    record.depth_m = settings_.min_separation_m > 0.0 &&
                             !input.bodies[work.body_index_b].body->surface().is_closed()
                         ? settings_.min_separation_m - (p - q).dot(work.normal)
                         : (q - p).dot(work.normal);
    record.normal_impulse_Ns = work.normal_impulse_on_p_Ns;
    record.friction_impulse_Ns = work.friction_impulse_on_p_Ns;
    record.friction_mode = work.friction_mode;
    max_depth = std::max(max_depth, record.depth_m);
    report->contacts.push_back(record);
  }
  for (const PlaneWork& work : plane_work_) {
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
    record.normal_impulse_Ns = work.normal_impulse_Ns;
    record.friction_impulse_Ns = work.friction_impulse_Ns;
    record.friction_mode = work.friction_mode;
    max_depth = std::max(max_depth, record.depth_m);
    report->contacts.push_back(record);
  }
  diagnostics->max_penetration_depth_m = max_depth;

  return FillBodyTotals(input.bodies, report);
}

}  // namespace contactsim::core
