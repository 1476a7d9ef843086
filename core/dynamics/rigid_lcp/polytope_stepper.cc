#include "core/dynamics/rigid_lcp/polytope_stepper.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/collision/polytope/penetration_bound.h"
#include "core/collision/polytope/posed_polytope.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

namespace contactsim::core {
namespace {

struct PosedPiece {
  int body = 0;
  int piece = 0;
  PosedPolytope posed;
};

// The constraint and its rows, with global body indices (-1: not an unknown).
struct BuiltConstraint {
  PolytopeContactResult result;
  SpatialLcpConstraint rows;
  // The same rows without the correction of penetrations: psi / h replaced by max(psi, 0) / h
  // (the fallback below).
  SpatialLcpConstraint rows_without_correction;
  // The spin row [0; n] of its contact patch (torsional_friction_radius_m > 0 and mu > 0).
  std::optional<SpatialLcpRow> spin;
  // FaceAxisPenetrationBound of the two pieces when the primary's gap is negative (infinite for a
  // plane, whose gap is exact): how much of -psi_p the energy test lets the correction ask for.
  double depth_bound_m = std::numeric_limits<double>::infinity();
  int island = -1;
};

// The separation speed a constraint's row may ask for with positive work (SpatialLcpEnergyBound):
// its constant's -b, with psi_p counted down to the certified depth only.
double HonestPrimarySpeed(const BuiltConstraint& c, const SpatialLcpRow& row, double h) {
  const double psi = c.result.geometry.primary.gap_m;
  const double honest_psi = std::max(psi, -c.depth_bound_m);
  return std::max(0.0, -(row.bias + (honest_psi - psi) / h));
}

// A contact is "the same" one step later when it joins the same pieces (or plane) through the
// same primary features.
using ContactKey = std::tuple<int, int, int, int, int32_t, int, int, int, int>;

ContactKey KeyOf(const PolytopeContactResult& c) {
  const PotentialContact& p = c.geometry.primary;
  return {c.body1, c.body2,    c.piece1,  c.piece2, c.plane_id, static_cast<int>(p.kind),
          p.body1, p.feature1, p.feature2};
}

ContactKey KeyOf(const PolytopeWarmContact& c) {
  return {c.body1, c.body2,        c.piece1,   c.piece2,  c.plane_id,
          c.kind,  c.feature_body, c.feature1, c.feature2};
}

PolytopeWarmContact WarmContactOf(const PolytopeContactResult& c) {
  PolytopeWarmContact w;
  const PotentialContact& p = c.geometry.primary;
  w.body1 = c.body1;
  w.body2 = c.body2;
  w.piece1 = c.piece1;
  w.piece2 = c.piece2;
  w.plane_id = c.plane_id;
  w.kind = static_cast<int>(p.kind);
  w.feature_body = p.body1;
  w.feature1 = p.feature1;
  w.feature2 = p.feature2;
  w.normal_impulse_n_s = c.normal_impulse_n_s;
  w.friction_impulse_n_s = c.friction_impulse_n_s;
  return w;
}

int FindRoot(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// CPU time of the calling thread [s]: what the step costs, whatever else the machine runs.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

Vec6 Twist(const RigidBodyState& s) {
  Vec6 nu;
  nu << s.v_WB_m_per_s, s.w_WB_rad_per_s;
  return nu;
}

absl::Status CheckSettings(const PolytopeStepSettings& s) {
  if (!(std::isfinite(s.dt_s) && s.dt_s > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat("dt_s: must be finite and > 0, got ", s.dt_s));
  }
  if (!s.gravity_m_per_s2.allFinite()) {
    return absl::InvalidArgumentError("gravity_m_per_s2: must be finite");
  }
  if (!(std::isfinite(s.friction_coefficient) && s.friction_coefficient >= 0.0)) {
    return absl::InvalidArgumentError("friction_coefficient: must be finite and >= 0");
  }
  if (!(std::isfinite(s.torsional_friction_radius_m) && s.torsional_friction_radius_m >= 0.0)) {
    return absl::InvalidArgumentError("torsional_friction_radius_m: must be finite and >= 0");
  }
  if (s.friction_directions < 3) {
    return absl::InvalidArgumentError("friction_directions: must be >= 3");
  }
  if (!(std::isfinite(s.contact_distance_floor_m) && s.contact_distance_floor_m > 0.0)) {
    return absl::InvalidArgumentError("contact_distance_floor_m: must be finite and > 0");
  }
  return absl::OkStatus();
}

// The torsional friction patches of an island's constraints (in the order given): contacts
// between the same pieces (or a piece and a plane) whose primary normals agree within 1e-3 rad
// form one patch (a face pair's vertex contacts share the face's normal exactly; a curved
// polytope's neighbouring faces differ by far more).
std::vector<SpatialLcpTorsionPatch> TorsionPatches(std::span<const BuiltConstraint> built,
                                                   std::span<const int> order,
                                                   const PolytopeStepSettings& settings) {
  std::vector<SpatialLcpTorsionPatch> patches;
  if (!(settings.torsional_friction_radius_m > 0.0) || !(settings.friction_coefficient > 0.0)) {
    return patches;
  }
  constexpr double kSameNormalCos = 1.0 - 5e-7;  // cos(1e-3 rad)
  std::vector<int> first_of_patch;  // a member's index into built, for its key and normal
  for (size_t k = 0; k < order.size(); ++k) {
    const BuiltConstraint& c = built[order[k]];
    if (!c.spin.has_value()) continue;
    const PolytopeContactResult& r = c.result;
    const Vec3& n = r.geometry.primary.normal_W;
    size_t p = 0;
    for (; p < patches.size(); ++p) {
      const PolytopeContactResult& f = built[first_of_patch[p]].result;
      if (f.body1 == r.body1 && f.body2 == r.body2 && f.piece1 == r.piece1 &&
          f.piece2 == r.piece2 && f.plane_id == r.plane_id &&
          f.geometry.primary.normal_W.dot(n) > kSameNormalCos) {
        break;
      }
    }
    if (p == patches.size()) {
      patches.push_back(
          {{}, *c.spin, settings.friction_coefficient * settings.torsional_friction_radius_m});
      first_of_patch.push_back(order[k]);
    }
    patches[p].constraints.push_back(static_cast<int>(k));
  }
  return patches;
}

}  // namespace

std::vector<Vec3> FrictionConeDirections(const Vec3& normal, int count) {
  int axis = 0;
  normal.cwiseAbs().minCoeff(&axis);
  const Vec3 t1 = (Vec3::Unit(axis) - normal[axis] * normal).normalized();
  const Vec3 t2 = normal.cross(t1);
  std::vector<Vec3> out(count);
  for (int k = 0; k < count; ++k) {
    const double angle = 2.0 * M_PI * k / count;
    out[k] = std::cos(angle) * t1 + std::sin(angle) * t2;
  }
  return out;
}

namespace {

// The velocity-level step (the top of polytope_stepper.h, without the projection).
absl::Status StepVelocities(std::span<const PolytopeBodyInput> bodies,
                            std::span<const PolytopePlaneInput> planes,
                            std::span<const JointInput> joints, bool solve_joints,
                            const PolytopeStepSettings& settings, PolytopeStepResult* result,
                            const PolytopeWarmStart* previous_step) {
  if (absl::Status s = CheckSettings(settings); !s.ok()) return s;
  const double h = settings.dt_s;
  const int nb = static_cast<int>(bodies.size());
  // settings.interrupt's first non-OK answer: asked before each island and by the solvers (every
  // PGS sweep, every few Lemke pivots); once given, the step returns it without moving a body.
  absl::Status interruption;
  const std::function<bool()> should_stop = [&settings, &interruption] {
    if (interruption.ok() && settings.interrupt) interruption = settings.interrupt();
    return !interruption.ok();
  };
  LcpSolverChainOptions solver = settings.solver;
  if (settings.interrupt) solver.lemke.should_stop = should_stop;

  // Free velocities, inverse masses and speed bounds.
  std::vector<Vec6> nu(nb), free_nu(nb);
  std::vector<Mat6> inverse_mass(nb, Mat6::Zero());
  std::vector<double> speed_bound(nb);
  std::vector<Mat3> rotation(nb);
  for (int b = 0; b < nb; ++b) {
    const PolytopeBodyInput& body = bodies[b];
    if (body.shape == nullptr && body.collides) {
      return absl::InvalidArgumentError(absl::StrCat("bodies[", b, "].shape: null"));
    }
    const bool dynamic = body.kind == RigidBodyKind::kDynamic;
    if (dynamic && !(std::isfinite(body.mass_kg) && body.mass_kg > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bodies[", b, "].mass_kg: must be > 0 for a dynamic body"));
    }
    rotation[b] = body.state.q_WB.normalized().toRotationMatrix();
    nu[b] = body.kind == RigidBodyKind::kStatic ? Vec6::Zero() : Twist(body.state);
    free_nu[b] = nu[b];
    double r_max = 0.0;
    for (int p = 0; body.shape != nullptr && p < body.shape->num_pieces(); ++p) {
      r_max = std::max(r_max, body.shape->piece(p).vertices().rowwise().norm().maxCoeff());
    }
    speed_bound[b] = nu[b].head<3>().norm() + nu[b].tail<3>().norm() * r_max;
    if (dynamic) {
      const Mat3 inverse_inertia =
          rotation[b] * body.inertia_body_kg_m2.inverse() * rotation[b].transpose();
      inverse_mass[b].topLeftCorner<3, 3>() = Mat3::Identity() / body.mass_kg;
      inverse_mass[b].bottomRightCorner<3, 3>() = inverse_inertia;
      Vec6 force;
      force << body.force_n + body.mass_kg * settings.gravity_m_per_s2, body.torque_n_m;
      free_nu[b] += h * inverse_mass[b] * force;
      speed_bound[b] = std::max(speed_bound[b],
                                free_nu[b].head<3>().norm() + free_nu[b].tail<3>().norm() * r_max);
    }
    if (!free_nu[b].allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("bodies[", b, "]: non-finite state"));
    }
  }
  auto is_dynamic = [&](int b) { return b >= 0 && bodies[b].kind == RigidBodyKind::kDynamic; };

  // Joints: torque motors in the free velocities, the other rows for the islands' LCPs.
  RETURN_IF_ERROR(ValidateJoints(joints, nb));
  std::vector<JointBodyView> joint_views(nb);
  for (int b = 0; b < nb; ++b) {
    joint_views[b] = {bodies[b].state.p_WB_m, rotation[b], nu[b], is_dynamic(b)};
  }
  std::vector<JointRowSet> joint_rows;
  if (solve_joints && !joints.empty()) {
    std::vector<Vec6> motor_wrenches(nb, Vec6::Zero());
    AddJointMotorWrenches(joints, joint_views, &motor_wrenches);
    for (int b = 0; b < nb; ++b) {
      if (is_dynamic(b)) free_nu[b] += h * inverse_mass[b] * motor_wrenches[b];
    }
    joint_rows = BuildJointRows(joints, joint_views, h);
  }

  std::vector<PosedPiece> pieces;
  for (int b = 0; b < nb; ++b) {
    if (!bodies[b].collides) continue;
    for (int p = 0; p < bodies[b].shape->num_pieces(); ++p) {
      pieces.push_back(
          {b, p, PosedPolytope(bodies[b].shape->piece(p), rotation[b], bodies[b].state.p_WB_m)});
    }
  }

  // One constraint's rows from its geometry; g1, g2: global bodies of the primary's body1 and
  // body2 (g2 = -1 for a plane).
  auto build = [&](const ContactConstraintGeometry& geometry, int g1, int g2, int piece1,
                   int piece2, int32_t plane_id) {
    BuiltConstraint built;
    PolytopeContactResult& r = built.result;
    r.body1 = g1;
    r.body2 = g2;
    r.piece1 = piece1;
    r.piece2 = piece2;
    r.plane_id = plane_id;
    r.geometry = geometry;
    // The row of an impulse along direction at the contact point plus an angular impulse
    // (torsional friction), on the second body and opposite on the first.
    auto row = [&](const PotentialContact& c, const Vec3& direction, double gap_term,
                   const Vec3& angular = Vec3::Zero()) {
      // c.body1 names the query's side; map it to the global bodies.
      const int first = c.body1 == geometry.primary.body1 ? g1 : g2;
      const int second = first == g1 ? g2 : g1;
      const Vec3 point = c.point1_W + 0.5 * c.gap_m * c.normal_W;
      SpatialLcpRow out;
      out.bias = gap_term;
      const int sides[2] = {first, second};
      const double signs[2] = {-1.0, 1.0};
      for (int side = 0; side < 2; ++side) {
        const int b = sides[side];
        if (b < 0) continue;
        Vec6 g = PushAtOffset(direction, point - bodies[b].state.p_WB_m);
        g.tail<3>() += angular;
        g *= signs[side];
        if (is_dynamic(b)) {
          (side == 0 ? out.body_a : out.body_b) = b;
          (side == 0 ? out.jacobian_a : out.jacobian_b) = g;
        } else {
          out.bias += g.dot(nu[b]);
        }
      }
      return out;
    };
    const PotentialContact& p = geometry.primary;
    r.point_W = p.point1_W + 0.5 * p.gap_m * p.normal_W;
    built.rows.primary = row(p, p.normal_W, p.gap_m / h);
    for (const PotentialContact& s : geometry.secondaries) {
      built.rows.secondaries.push_back(row(s, s.normal_W, s.gap_m / h));
    }
    built.rows.friction_coefficient = settings.friction_coefficient;
    if (settings.friction_coefficient > 0.0) {
      for (const Vec3& d : FrictionConeDirections(p.normal_W, settings.friction_directions)) {
        built.rows.friction.push_back(row(p, d, 0.0));
      }
      if (settings.torsional_friction_radius_m > 0.0) {
        built.spin = row(p, Vec3::Zero(), 0.0, p.normal_W);
      }
    }
    built.rows_without_correction = built.rows;
    built.rows_without_correction.primary = row(p, p.normal_W, std::max(p.gap_m, 0.0) / h);
    for (size_t j = 0; j < geometry.secondaries.size(); ++j) {
      const PotentialContact& s = geometry.secondaries[j];
      built.rows_without_correction.secondaries[j] = row(s, s.normal_W, std::max(s.gap_m, 0.0) / h);
    }
    return built;
  };

  const double search_start = ThreadCpuSeconds();
  std::vector<BuiltConstraint> built;
  ContactConstraintStats& constraint_stats = result->stats.constraints;
  constraint_stats = ContactConstraintStats{};
  std::vector<ContactConstraintGeometry> geometries;
  // Bodies joined by a joint do not collide with each other (their shapes meet at the joint).
  std::vector<std::pair<int, int>> jointed;
  for (const JointInput& j : joints) {
    if (j.parent >= 0) {
      jointed.emplace_back(std::min(j.parent, j.child), std::max(j.parent, j.child));
    }
  }
  std::sort(jointed.begin(), jointed.end());
  auto linked = [&](int a, int b) {
    return !jointed.empty() &&
           std::binary_search(jointed.begin(), jointed.end(),
                              std::pair<int, int>(std::min(a, b), std::max(a, b)));
  };
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (size_t j = i + 1; j < pieces.size(); ++j) {
      const PosedPiece& a = pieces[i];
      const PosedPiece& b = pieces[j];
      const int group = bodies[a.body].collision_group;
      if (a.body == b.body || (!is_dynamic(a.body) && !is_dynamic(b.body)) ||
          linked(a.body, b.body) || (group >= 0 && group == bodies[b.body].collision_group)) {
        continue;
      }
      const double gap = std::max(settings.contact_distance_floor_m,
                                  h * (speed_bound[a.body] + speed_bound[b.body]));
      const double reach = a.posed.bounding_radius_m() + b.posed.bounding_radius_m() + gap;
      if ((a.posed.center_m() - b.posed.center_m()).squaredNorm() > reach * reach) continue;
      ContactConstraintOptions options = settings.constraints;
      options.potential.max_gap_m = gap;
      // A vertex inside a face deeper than the paper's delta (2.5 mm) would lose its contact and
      // fall through (notes §7.6); one step's motion bounds how deep it can have got.
      options.potential.max_penetration_m = std::max(options.potential.max_penetration_m, gap);
      // Two large overlapping hulls take milliseconds or more to search: ask before each pair.
      if (should_stop()) return interruption;
      geometries.clear();
      MakeContactConstraints(settings.model, a.posed, b.posed, options, &geometries,
                             &constraint_stats);
      std::optional<double> depth_bound;  // computed for the first negative gap of the pair
      for (const ContactConstraintGeometry& g : geometries) {
        const bool a_first = g.primary.body1 == 0;
        built.push_back(build(g, a_first ? a.body : b.body, a_first ? b.body : a.body,
                              a_first ? a.piece : b.piece, a_first ? b.piece : a.piece, -1));
        if (settings.energy_check && g.primary.gap_m < 0.0) {
          if (!depth_bound.has_value()) depth_bound = FaceAxisPenetrationBound(a.posed, b.posed);
          built.back().depth_bound_m = *depth_bound;
        }
      }
    }
  }
  for (const PosedPiece& a : pieces) {
    if (!is_dynamic(a.body)) continue;
    for (const PolytopePlaneInput& plane : planes) {
      ContactConstraintOptions options = settings.constraints;
      options.potential.max_gap_m =
          std::max(settings.contact_distance_floor_m, h * speed_bound[a.body]);
      geometries.clear();
      MakePlaneContactConstraints(a.posed, plane.normal, plane.offset_m, options, &geometries,
                                  &constraint_stats);
      for (const ContactConstraintGeometry& g : geometries) {
        built.push_back(build(g, a.body, -1, a.piece, 0, plane.id));
      }
    }
  }

  const double islands_start = ThreadCpuSeconds();
  result->stats.search_seconds = islands_start - search_start;

  // Islands of dynamic bodies joined by constraints.
  std::vector<int> parent(nb);
  std::iota(parent.begin(), parent.end(), 0);
  for (const BuiltConstraint& c : built) {
    const int a = c.rows.primary.body_a, b = c.rows.primary.body_b;
    if (a >= 0 && b >= 0) parent[FindRoot(parent, a)] = FindRoot(parent, b);
  }
  for (const JointRowSet& j : joint_rows) {
    for (size_t k = 1; k < j.joined.size(); ++k) {
      parent[FindRoot(parent, j.joined[k - 1])] = FindRoot(parent, j.joined[k]);
    }
  }
  std::vector<int> island_of_root(nb, -1);
  std::vector<std::vector<int>> island_bodies, island_constraints;
  for (size_t ci = 0; ci < built.size(); ++ci) {
    const SpatialLcpRow& p = built[ci].rows.primary;
    const int any = p.body_a >= 0 ? p.body_a : p.body_b;
    if (any < 0) continue;  // touches no dynamic body (cannot happen: pairs need one)
    const int root = FindRoot(parent, any);
    if (island_of_root[root] < 0) {
      island_of_root[root] = static_cast<int>(island_bodies.size());
      island_bodies.emplace_back();
      island_constraints.emplace_back();
    }
    built[ci].island = island_of_root[root];
    island_constraints[built[ci].island].push_back(static_cast<int>(ci));
  }
  std::vector<std::vector<int>> island_joints(island_bodies.size());
  for (size_t ji = 0; ji < joint_rows.size(); ++ji) {
    if (joint_rows[ji].joined.empty()) continue;  // between non-dynamic bodies: nothing to solve
    const int root = FindRoot(parent, joint_rows[ji].joined[0]);
    if (island_of_root[root] < 0) {
      island_of_root[root] = static_cast<int>(island_bodies.size());
      island_bodies.emplace_back();
      island_constraints.emplace_back();
      island_joints.emplace_back();
    }
    island_joints[island_of_root[root]].push_back(static_cast<int>(ji));
  }
  std::vector<JointStepResult> joint_results(joint_rows.size());
  for (int b = 0; b < nb; ++b) {
    if (!is_dynamic(b)) continue;
    const int island = island_of_root[FindRoot(parent, b)];
    if (island >= 0) island_bodies[island].push_back(b);
  }

  std::vector<Vec6> next_nu = free_nu;
  PolytopeStepStats& stats = result->stats;
  stats.unilateral = stats.intercontact = 0;
  stats.islands = static_cast<int>(island_bodies.size());
  stats.largest_lcp = stats.attempts = stats.pivots = stats.iterations = 0;
  stats.max_residual = stats.max_velocity_residual_m_per_s = 0.0;
  stats.uncorrected_islands = 0;
  stats.iterative_islands = stats.iterative_fallbacks = stats.warm_started = 0;
  stats.iterative_local_solves = 0;
  stats.warm_active_sets = 0;
  stats.energy_rejections = 0;
  std::map<ContactKey, const PolytopeWarmContact*> previous;
  const bool have_previous = previous_step != nullptr && !previous_step->empty();
  if (have_previous) {
    for (const PolytopeWarmContact& c : previous_step->contacts) previous.emplace(KeyOf(c), &c);
  }
  auto previous_of = [&](const BuiltConstraint& c) -> const PolytopeWarmContact* {
    const auto found = previous.find(KeyOf(c.result));
    return found == previous.end() ? nullptr : found->second;
  };
  PolytopeWarmStart& warm_out = result->warm_start;
  warm_out.contacts.clear();
  warm_out.joints.assign(joint_rows.size(), PolytopeWarmJoint{});
  for (size_t island = 0; island < island_bodies.size(); ++island) {
    if (should_stop()) return interruption;
    std::vector<int> local(nb, -1);
    std::vector<SpatialLcpBody> lcp_bodies;
    for (const int b : island_bodies[island]) {
      local[b] = static_cast<int>(lcp_bodies.size());
      lcp_bodies.push_back({inverse_mass[b], free_nu[b]});
    }
    auto localize = [&](SpatialLcpRow row) {
      if (row.body_a >= 0) row.body_a = local[row.body_a];
      if (row.body_b >= 0) row.body_b = local[row.body_b];
      if (row.body_c >= 0) row.body_c = local[row.body_c];
      return row;
    };
    auto island_rows = [&](bool corrected) {
      std::vector<SpatialLcpConstraint> rows;
      for (const int ci : island_constraints[island]) {
        SpatialLcpConstraint c = corrected ? built[ci].rows : built[ci].rows_without_correction;
        c.primary = localize(c.primary);
        for (SpatialLcpRow& s : c.secondaries) s = localize(s);
        for (SpatialLcpRow& f : c.friction) f = localize(f);
        rows.push_back(std::move(c));
      }
      return rows;
    };
    SpatialLcpJointRows lcp_joints;
    for (const int ji : island_joints[island]) {
      for (const SpatialLcpSoftRow& r : joint_rows[ji].bilateral) {
        lcp_joints.bilateral.push_back({localize(r.row), r.compliance, r.bound});
      }
      for (const SpatialLcpRow& r : joint_rows[ji].limits) {
        lcp_joints.unilateral.push_back(localize(r));
      }
      for (const SpatialLcpSoftRow& r : joint_rows[ji].bounded) {
        lcp_joints.bounded.push_back({localize(r.row), r.compliance, r.bound});
      }
    }
    // PGS visits the constraints from the bottom up (against gravity): a pile's weight then
    // reaches its base within a sweep. It takes contacts only: an island with joints pivots.
    std::vector<int>& order = island_constraints[island];
    const Vec3 up =
        settings.gravity_m_per_s2.norm() > 0.0 ? Vec3(-settings.gravity_m_per_s2) : Vec3::UnitZ();
    std::vector<SpatialLcpTorsionPatch> patches = TorsionPatches(built, order, settings);
    for (SpatialLcpTorsionPatch& patch : patches) patch.spin = localize(patch.spin);
    int size = SpatialJointLcpSize(lcp_joints) + SpatialTorsionLcpSize(patches);
    for (const int ci : order) size += SpatialContactLcpSize({&built[ci].rows, 1});
    const bool iterative = lcp_joints.empty() && settings.torsional_friction_radius_m == 0.0 &&
                           settings.direct_max_unknowns > 0 && size > settings.direct_max_unknowns;
    if (!iterative && size > settings.max_lcp_unknowns) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "rigid_lcp: an island of ", lcp_bodies.size(), " bodies and ", order.size(),
          " constraints makes an LCP of ", size, " unknowns, over the limit of ",
          settings.max_lcp_unknowns,
          lcp_joints.empty() ? "" : " (islands with joints are solved by pivoting)",
          settings.torsional_friction_radius_m > 0.0 ? " (torsional friction is solved by pivoting)"
                                                     : ""));
    }
    if (iterative) {
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return built[a].result.point_W.dot(up) < built[b].result.point_W.dot(up);
      });
    }
    const std::vector<SpatialLcpConstraint> lcp_constraints = island_rows(true);
    // The energy test's honest separation speeds, for the rows with and without correction.
    std::optional<SpatialLcpEnergyBound> energy, energy_uncorrected;
    if (settings.energy_check) {
      energy.emplace();
      energy_uncorrected.emplace();
      for (const int ci : order) {
        energy->primary_speed.push_back(HonestPrimarySpeed(built[ci], built[ci].rows.primary, h));
        energy_uncorrected->primary_speed.push_back(
            std::max(0.0, -built[ci].rows_without_correction.primary.bias));
      }
    }
    const SpatialLcpEnergyBound* energy_or_null = energy.has_value() ? &*energy : nullptr;
    // The previous step's active set on the constraints and joints that persist (the rest
    // guessed inactive), for the pivoting's step 0.
    std::optional<SpatialLcpActivity> guess;
    if (have_previous) {
      guess.emplace();
      for (const int ci : order) {
        const PolytopeWarmContact* was = previous_of(built[ci]);
        guess->constraints.push_back(was != nullptr ? was->active
                                                    : SpatialLcpActivity::Constraint{});
      }
      for (const int ji : island_joints[island]) {
        const JointRowSet& rows = joint_rows[ji];
        const bool known = ji < static_cast<int>(previous_step->joints.size()) &&
                           previous_step->joints[ji].limits.size() == rows.limits.size() &&
                           previous_step->joints[ji].bounded.size() == rows.bounded.size();
        for (size_t k = 0; k < rows.limits.size(); ++k) {
          guess->unilateral.push_back(known ? previous_step->joints[ji].limits[k] : 0);
        }
        for (size_t k = 0; k < rows.bounded.size(); ++k) {
          guess->bounded.push_back(known ? previous_step->joints[ji].bounded[k] : 0);
        }
      }
      for (const SpatialLcpTorsionPatch& patch : patches) {
        const PolytopeWarmContact* was = previous_of(built[order[patch.constraints.front()]]);
        guess->torsion.push_back(was != nullptr ? was->torsion : 0);
      }
    }
    const SpatialLcpActivity* guess_or_null = guess.has_value() ? &*guess : nullptr;
    SpatialContactPgsOptions pgs = settings.iterative;
    pgs.residual_tolerance_m_per_s = settings.iterative_tolerance_m / h;
    pgs.local_solver = solver;  // local exact solves pivot as the islands do
    if (settings.interrupt) pgs.should_stop = should_stop;
    absl::StatusOr<SpatialLcpSolution> solution;
    bool by_sweeps = false;  // the answer is SolveSpatialContactPgs's (residual in m/s)
    if (iterative) {
      SpatialContactWarmStart warm;
      for (const int ci : order) {
        const PolytopeWarmContact* was = previous_of(built[ci]);
        stats.warm_started += was != nullptr ? 1 : 0;
        warm.normal_impulse.push_back(was != nullptr ? was->normal_impulse_n_s : 0.0);
        warm.friction_impulse.push_back(was != nullptr ? was->friction_impulse_n_s : Vec3::Zero());
      }
      solution = SolveSpatialContactPgs(lcp_bodies, lcp_constraints, pgs, &warm);
      if (!solution.ok()) return solution.status();
      stats.iterative_local_solves += solution->local_solves;
      if (!interruption.ok()) return interruption;
      if (solution->solver.solved) {
        ++stats.iterative_islands;
        by_sweeps = true;
      } else if (size <= settings.max_lcp_unknowns) {
        absl::StatusOr<SpatialLcpSolution> direct =
            SolveSpatialContactLcp(lcp_bodies, lcp_constraints, lcp_joints, patches, solver,
                                   guess_or_null, energy_or_null);
        if (!direct.ok()) return direct.status();
        if (direct->solver.solved) ++stats.iterative_fallbacks;
        direct->solver.attempts.insert(direct->solver.attempts.begin(),
                                       solution->solver.attempts.begin(),
                                       solution->solver.attempts.end());
        solution = std::move(direct);
      }
    } else {
      solution = SolveSpatialContactLcp(lcp_bodies, lcp_constraints, lcp_joints, patches, solver,
                                        guess_or_null, energy_or_null);
      if (!solution.ok()) return solution.status();
    }
    stats.energy_rejections += solution->energy_rejections;
    // Kept for the failure message when no path passes the energy test.
    const int corrected_rejections = solution->energy_rejections;
    const SpatialLcpEnergyBalance corrected_energy = solution->energy;
    if (!solution->solver.solved && settings.retry_without_correction) {
      // Demanding that every penetration close within the step can ask for separations that no
      // velocity meets at once (a body wedged between others): then the LCP has no solution.
      // Without the correction, nu+ = the contact velocities of the start of the step is feasible
      // (every row's constant is >= 0), and the Stewart–Trinkle LCP of a feasible problem is
      // solvable (Anitescu & Potra 1997); the penetration is left to the next step's rows.
      absl::StatusOr<SpatialLcpSolution> retry =
          size <= settings.max_lcp_unknowns
              ? SolveSpatialContactLcp(
                    lcp_bodies, island_rows(false), lcp_joints, patches, solver, nullptr,
                    energy_uncorrected.has_value() ? &*energy_uncorrected : nullptr)
              : SolveSpatialContactPgs(lcp_bodies, island_rows(false), pgs);
      if (!retry.ok()) return retry.status();
      stats.energy_rejections += retry->energy_rejections;
      if (retry->solver.solved) {
        ++stats.uncorrected_islands;
        by_sweeps = size > settings.max_lcp_unknowns;
        solution = std::move(retry);
      }
    }
    if (!interruption.ok()) return interruption;
    const LcpSolverChainResult& chain = solution->solver;
    if (!chain.solved) {
      std::string attempts;
      for (const LcpSolverAttempt& a : chain.attempts) {
        absl::StrAppend(&attempts, attempts.empty() ? "" : "; ",
                        std::string(LcpSolverPathName(a.path)), ": ",
                        std::string(LcpSolveStatusName(a.status)), " (residual ", a.residual, ")");
      }
      std::string island_name = "bodies";
      for (const int b : island_bodies[island]) absl::StrAppend(&island_name, " ", b);
      std::string energy_note;
      if (corrected_rejections > 0) {
        energy_note = absl::StrCat("; ", corrected_rejections,
                                   " answers refused as creating energy (the last: kinetic energy ",
                                   corrected_energy.next_j, " J after the step, ",
                                   corrected_energy.free_j, " J in the free motion, at most ",
                                   corrected_energy.allowed_j, " J allowed)");
      }
      return absl::FailedPreconditionError(
          absl::StrCat("rigid_lcp: the contact LCP of an island of ", lcp_bodies.size(),
                       " bodies (", island_name, "; ", solution->lcp_size,
                       " unknowns) has no accepted solution: ", attempts, energy_note));
    }
    if (solution->lcp_size >= stats.largest_lcp) {
      stats.largest_lcp = solution->lcp_size;
      stats.largest_path = chain.path;
    }
    stats.attempts = std::max(stats.attempts, static_cast<int>(chain.attempts.size()));
    stats.warm_active_sets += chain.path == LcpSolverPath::kWarmActiveSet ? 1 : 0;
    stats.pivots += chain.solution.pivots;
    stats.iterations += chain.solution.iterations;
    if (by_sweeps) {
      stats.max_velocity_residual_m_per_s =
          std::max(stats.max_velocity_residual_m_per_s, chain.solution.residual);
    } else {
      stats.max_residual = std::max(stats.max_residual, chain.solution.residual);
    }
    for (const int b : island_bodies[island]) next_nu[b] = solution->velocity[local[b]];
    size_t bilateral = 0, unilateral = 0, bounded = 0;
    for (const int ji : island_joints[island]) {
      const JointRowSet& rows = joint_rows[ji];
      const std::span<const double> all_bilateral(solution->bilateral_impulse);
      const std::span<const double> all_unilateral(solution->unilateral_impulse);
      const std::span<const double> all_bounded(solution->bounded_impulse);
      joint_results[ji] = JointResultFromImpulses(
          joints[ji], rows, all_bilateral.subspan(bilateral, rows.bilateral.size()),
          all_unilateral.subspan(unilateral, rows.limits.size()),
          all_bounded.subspan(bounded, rows.bounded.size()), joint_views, h);
      bilateral += rows.bilateral.size();
      unilateral += rows.limits.size();
      bounded += rows.bounded.size();
    }
    for (size_t k = 0; k < island_constraints[island].size(); ++k) {
      PolytopeContactResult& r = built[island_constraints[island][k]].result;
      const Vec3& n = r.geometry.primary.normal_W;
      r.normal_impulse_n_s = solution->normal_impulse[k];
      r.friction_impulse_n_s.setZero();
      r.torsional_impulse_n_m_s = 0.0;
      if (!solution->friction_impulse[k].empty()) {
        const std::vector<Vec3> directions =
            FrictionConeDirections(n, static_cast<int>(solution->friction_impulse[k].size()));
        for (size_t d = 0; d < directions.size(); ++d) {
          r.friction_impulse_n_s += solution->friction_impulse[k][d] * directions[d];
        }
      }
      r.sliding_speed_m_per_s = solution->sliding_speed[k];
    }
    // A patch's torque is shared by its contacts in proportion to their normal impulses, so that
    // the contacts' sum is the patch's.
    for (size_t t = 0; t < patches.size(); ++t) {
      double normal_sum = 0.0;
      for (const int k : patches[t].constraints) normal_sum += solution->normal_impulse[k];
      if (!(normal_sum > 0.0)) continue;
      for (const int k : patches[t].constraints) {
        built[island_constraints[island][k]].result.torsional_impulse_n_m_s =
            solution->torsion_impulse[t] * solution->normal_impulse[k] / normal_sum;
      }
    }
    // What the next step starts from.
    const SpatialLcpActivity& activity = solution->activity;
    const size_t first_warm = warm_out.contacts.size();
    for (size_t k = 0; k < order.size(); ++k) {
      PolytopeWarmContact w = WarmContactOf(built[order[k]].result);
      if (k < activity.constraints.size()) w.active = activity.constraints[k];
      warm_out.contacts.push_back(w);
    }
    for (size_t t = 0; t < patches.size() && t < activity.torsion.size(); ++t) {
      warm_out.contacts[first_warm + patches[t].constraints.front()].torsion = activity.torsion[t];
    }
    size_t limit_row = 0, bounded_row = 0;
    for (const int ji : island_joints[island]) {
      const JointRowSet& rows = joint_rows[ji];
      PolytopeWarmJoint& w = warm_out.joints[ji];
      for (size_t k = 0; k < rows.limits.size(); ++k, ++limit_row) {
        w.limits.push_back(limit_row < activity.unilateral.size() ? activity.unilateral[limit_row]
                                                                  : 0);
      }
      for (size_t k = 0; k < rows.bounded.size(); ++k, ++bounded_row) {
        w.bounded.push_back(bounded_row < activity.bounded.size() ? activity.bounded[bounded_row]
                                                                  : 0);
      }
    }
  }

  stats.islands_seconds = ThreadCpuSeconds() - islands_start;

  // Integrate and collect what each body received.
  result->next.resize(nb);
  result->received_impulse_n_s.assign(nb, Vec3::Zero());
  result->received_angular_impulse_n_m_s.assign(nb, Vec3::Zero());
  for (int b = 0; b < nb; ++b) {
    RigidBodyState next = bodies[b].state;
    if (is_dynamic(b)) {
      next.v_WB_m_per_s = next_nu[b].head<3>();
      next.w_WB_rad_per_s = next_nu[b].tail<3>();
      next.p_WB_m += h * next.v_WB_m_per_s;
      const Vec3& w = next.w_WB_rad_per_s;
      const double angle = w.norm() * h;
      if (angle > 0.0) {
        next.q_WB =
            (Eigen::Quaterniond(Eigen::AngleAxisd(angle, w.normalized())) * next.q_WB).normalized();
      }
    }
    result->next[b] = next;
  }
  result->contacts.clear();
  for (BuiltConstraint& c : built) {
    PolytopeContactResult& r = c.result;
    if (r.geometry.unilateral()) {
      ++stats.unilateral;
    } else {
      ++stats.intercontact;
    }
    const Vec3 on_body2 =
        r.normal_impulse_n_s * r.geometry.primary.normal_W + r.friction_impulse_n_s;
    const int sides[2] = {r.body1, r.body2};
    const double signs[2] = {-1.0, 1.0};
    for (int side = 0; side < 2; ++side) {
      const int b = sides[side];
      if (b < 0) continue;
      result->received_impulse_n_s[b] += signs[side] * on_body2;
      result->received_angular_impulse_n_m_s[b] +=
          (r.point_W - bodies[b].state.p_WB_m).cross(signs[side] * on_body2) +
          signs[side] * r.torsional_impulse_n_m_s * r.geometry.primary.normal_W;
    }
    result->contacts.push_back(std::move(r));
  }
  // Joints: the coordinates at the step end (a joint between non-dynamic bodies carried nothing).
  std::vector<JointBodyView> end_views(nb);
  for (int b = 0; b < nb; ++b) {
    end_views[b] = {result->next[b].p_WB_m, result->next[b].q_WB.normalized().toRotationMatrix(),
                    Twist(result->next[b]), is_dynamic(b)};
  }
  for (size_t ji = 0; ji < joint_rows.size(); ++ji) {
    if (joint_rows[ji].joined.empty()) {
      joint_results[ji] =
          JointResultFromImpulses(joints[ji], joint_rows[ji], {}, {}, {}, joint_views, h);
    }
    const JointCoordinate q = ComputeJointCoordinate(joints[ji], end_views);
    joint_results[ji].position = q.position;
    joint_results[ji].velocity = q.velocity;
  }
  result->joints = std::move(joint_results);
  return absl::OkStatus();
}

}  // namespace

absl::Status StepPolytopes(std::span<const PolytopeBodyInput> bodies,
                           std::span<const PolytopePlaneInput> planes,
                           const PolytopeStepSettings& settings, PolytopeStepResult* result,
                           const PolytopeWarmStart* previous) {
  return StepPolytopes(bodies, planes, {}, settings, result, previous);
}

absl::Status StepPolytopes(std::span<const PolytopeBodyInput> bodies,
                           std::span<const PolytopePlaneInput> planes,
                           std::span<const JointInput> joints, const PolytopeStepSettings& settings,
                           PolytopeStepResult* result, const PolytopeWarmStart* previous) {
  RETURN_IF_ERROR(StepVelocities(bodies, planes, joints, true, settings, result, previous));
  result->stats.projection_passes = 0;
  result->stats.projection_failures = 0;
  result->stats.projection_seconds = 0.0;
  result->stats.projection_pivots = result->stats.projection_sweeps = 0;
  result->stats.projection_iterative_islands = result->stats.projection_iterative_fallbacks = 0;
  if (settings.projection_passes <= 0) return absl::OkStatus();
  const double projection_start = ThreadCpuSeconds();
  // Post-stabilization: the same constraints at the new poses, solved as a velocity step of
  // length 1 s from rest with no forces and no friction, give the displacement
  // dq = M^-1 G lambda with 0 <= lambda _|_ psi + G^T dq >= 0 (x += dx, q = exp(d theta) q);
  // the step's velocities are kept. Static and kinematic bodies stay where they are.
  double motion_m = 0.0;
  for (size_t b = 0; b < bodies.size(); ++b) {
    motion_m = std::max(motion_m, (result->next[b].p_WB_m - bodies[b].state.p_WB_m).norm());
  }
  PolytopeStepSettings projection = settings;
  projection.dt_s = 1.0;
  projection.gravity_m_per_s2.setZero();
  projection.friction_coefficient = 0.0;
  projection.projection_passes = 0;
  projection.retry_without_correction = false;
  projection.energy_check = false;  // a displacement, not a velocity: no kinetic energy to test
  // The projection decides how deep a vertex stays, so by default it pivots (exact) while the LCP
  // is within the pivoting limit; without friction its LCP is a fraction of the velocity step's.
  // projection_iterative sweeps the islands over direct_max_unknowns instead (without friction
  // PGS converges there in a few sweeps; the projection has no warm start, and pivoting from
  // scratch costs a large pile hundreds of pivots a pass), to iterative_tolerance_m of depth.
  if (!settings.projection_iterative) projection.direct_max_unknowns = settings.max_lcp_unknowns;
  // Candidates within the floor plus what the step moved: a vertex that ended deeper than the
  // step's band still has its constraints. (A band of each pair's own motion was tried: at
  // N = 100 a vertex then ended 2.3 mm inside the container; docs/rigid_lcp.md "3D pouring".)
  projection.contact_distance_floor_m = settings.contact_distance_floor_m + motion_m;
  std::vector<PolytopeBodyInput> at_rest(bodies.begin(), bodies.end());
  for (int pass = 0; pass < settings.projection_passes; ++pass) {
    for (size_t b = 0; b < at_rest.size(); ++b) {
      at_rest[b].state = result->next[b];
      at_rest[b].state.v_WB_m_per_s.setZero();
      at_rest[b].state.w_WB_rad_per_s.setZero();
      at_rest[b].force_n.setZero();
      at_rest[b].torque_n_m.setZero();
      if (at_rest[b].kind == RigidBodyKind::kKinematic) at_rest[b].kind = RigidBodyKind::kStatic;
    }
    PolytopeStepResult displaced;
    const absl::Status status =
        StepVelocities(at_rest, planes, joints, false, projection, &displaced, nullptr);
    result->stats.projection_pivots += displaced.stats.pivots;
    result->stats.projection_sweeps += displaced.stats.iterations;
    result->stats.projection_iterative_islands += displaced.stats.iterative_islands;
    result->stats.projection_iterative_fallbacks += displaced.stats.iterative_fallbacks;
    if (!status.ok()) {
      if (settings.interrupt) RETURN_IF_ERROR(settings.interrupt());  // not a failure: a stop
      ++result->stats.projection_failures;
      break;
    }
    bool moved = false;
    for (size_t b = 0; b < at_rest.size(); ++b) {
      if (bodies[b].kind != RigidBodyKind::kDynamic) continue;
      moved |= displaced.next[b].p_WB_m != result->next[b].p_WB_m ||
               displaced.next[b].q_WB.coeffs() != result->next[b].q_WB.coeffs();
      result->next[b].p_WB_m = displaced.next[b].p_WB_m;
      result->next[b].q_WB = displaced.next[b].q_WB;
    }
    ++result->stats.projection_passes;
    if (!moved) break;
  }
  result->stats.projection_seconds = ThreadCpuSeconds() - projection_start;
  return absl::OkStatus();
}

}  // namespace contactsim::core
