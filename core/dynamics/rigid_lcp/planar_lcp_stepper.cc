#include "core/dynamics/rigid_lcp/planar_lcp_stepper.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dynamics/rigid_lcp/planar_contact_lcp.h"

namespace contactsim::core {
namespace {

Points2 Posed(const Points2& body, const Vec2& x, double theta) {
  const Eigen::Matrix2d r = Eigen::Rotation2Dd(theta).toRotationMatrix();
  return (body * r.transpose()).rowwise() + x.transpose();
}

struct Box {
  Vec2 lo, hi;
};

void Grow(const Points2& p, Box* b) {
  b->lo = b->lo.cwiseMin(p.colwise().minCoeff().transpose());
  b->hi = b->hi.cwiseMax(p.colwise().maxCoeff().transpose());
}

bool Overlap(const Box& a, const Box& b) {
  return (a.lo.array() <= b.hi.array()).all() && (b.lo.array() <= a.hi.array()).all();
}

double Cross(const Vec2& r, const Vec2& n) { return r.x() * n.y() - r.y() * n.x(); }

absl::Status CheckBody(const PlanarRigidBody& b, int i) {
  const std::string name = absl::StrCat("bodies[", i, "]");
  if (auto s = ValidateConvexPolygon(b.vertices_body); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ".vertices_body: ", s.message()));
  }
  if (!b.position_m.allFinite() || !std::isfinite(b.angle_rad) || !b.velocity_m_s.allFinite() ||
      !std::isfinite(b.angular_velocity_rad_s) || !b.applied_force_n.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": non-finite state"));
  }
  if (!b.is_static && !(b.mass_kg > 0.0 && b.inertia_kg_m2 > 0.0 && std::isfinite(b.mass_kg) &&
                        std::isfinite(b.inertia_kg_m2))) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": mass and inertia must be > 0"));
  }
  return absl::OkStatus();
}

int Root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// One constraint with the indices of its bodies (the primary's body1, body2).
struct PairConstraint {
  int body1 = -1, body2 = -1;
  PolygonConstraint constraint;
};

double CombinedGap(const PolygonConstraint& c) {
  double g = c.primary.gap_m;
  for (const PolygonContact& s : c.secondaries) g = std::max(g, s.gap_m);
  return g;
}

// The deepest any vertex of a or b lies inside the other [m].
double DeepestVertex(const Points2& a, const Points2& b) {
  double d = 0.0;
  for (int v = 0; v < a.rows(); ++v) d = std::max(d, PolygonPenetrationDepth(a.row(v), b));
  for (int v = 0; v < b.rows(); ++v) d = std::max(d, PolygonPenetrationDepth(b.row(v), a));
  return d;
}

// The constraints of every pair (not both static) whose boxes over the current and the
// predicted configurations, widened by max_gap_m, overlap. widen_by_penetration: a pair's
// feasibility distance grows by the deepest vertex penetration between them, so that a vertex
// deeper than max_gap_m still has its constraints (the projection's case).
void Gather(const std::vector<PlanarRigidBody>& bs, const std::vector<Points2>& now,
            const std::vector<std::vector<Points2>>& predictions,
            const PolygonConstraintOptions& options, PolygonContactModel model,
            bool widen_by_penetration, std::vector<PairConstraint>* all,
            PolygonConstraintStats* stats) {
  const int n = static_cast<int>(bs.size());
  std::vector<Box> boxes(n);
  for (int i = 0; i < n; ++i) {
    boxes[i] = {now[i].colwise().minCoeff().transpose(), now[i].colwise().maxCoeff().transpose()};
    for (const std::vector<Points2>& p : predictions) Grow(p[i], &boxes[i]);
    boxes[i].lo.array() -= options.max_gap_m;
    boxes[i].hi.array() += options.max_gap_m;
  }
  all->clear();
  *stats = {};
  std::vector<PolygonConstraint> made;
  std::vector<PolygonPrediction> at_end(predictions.size());
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if ((bs[i].is_static && bs[j].is_static) || !Overlap(boxes[i], boxes[j])) continue;
      for (size_t k = 0; k < predictions.size(); ++k) {
        at_end[k] = {&predictions[k][i], &predictions[k][j]};
      }
      made.clear();
      PolygonConstraintOptions pair_options = options;
      if (widen_by_penetration) pair_options.max_gap_m += DeepestVertex(now[i], now[j]);
      MakePolygonConstraints(model, now[i], now[j], at_end, pair_options, &made, stats);
      for (PolygonConstraint& c : made) {
        const bool a_first = c.primary.body1 == 0;
        all->push_back({a_first ? i : j, a_first ? j : i, std::move(c)});
      }
    }
  }
}

struct IslandSolve {
  bool solved = true;
  std::vector<int> by_path = std::vector<int>(4, 0);
  int unsolved = 0, islands = 0, lcp_size = 0, largest_lcp = 0;
  double max_residual = 0.0;
};

// Solves the LCP of each island (dynamic bodies joined by constraints) with rows
// G^T nu+ + bias_scale psi; *velocity holds the free velocities on entry and nu+ on return.
absl::StatusOr<IslandSolve> SolveIslands(const std::vector<PlanarRigidBody>& bs,
                                         const std::vector<PairConstraint>& all, double bias_scale,
                                         const LcpSolverChainOptions& solver,
                                         std::vector<Eigen::Vector3d>* velocity) {
  const int n = static_cast<int>(bs.size());
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const PairConstraint& pc : all) {
    if (!bs[pc.body1].is_static && !bs[pc.body2].is_static) {
      parent[Root(parent, pc.body1)] = Root(parent, pc.body2);
    }
  }
  std::vector<std::vector<int>> by_island(n);
  for (int k = 0; k < static_cast<int>(all.size()); ++k) {
    const PairConstraint& pc = all[k];
    by_island[Root(parent, bs[pc.body1].is_static ? pc.body2 : pc.body1)].push_back(k);
  }
  IslandSolve out;
  std::vector<int> local(n, -1);
  for (int root = 0; root < n; ++root) {
    if (by_island[root].empty()) continue;
    std::vector<int> members;
    auto local_index = [&](int body) {
      if (bs[body].is_static) return -1;
      if (local[body] < 0) {
        local[body] = static_cast<int>(members.size());
        members.push_back(body);
      }
      return local[body];
    };
    std::vector<PlanarLcpConstraint> constraints;
    for (int k : by_island[root]) {
      const PairConstraint& pc = all[k];
      auto row = [&](const PolygonContact& c) {
        PlanarLcpRow r;
        r.body_a = local_index(pc.body1);
        r.body_b = local_index(pc.body2);
        const Vec2& nrm = c.normal_W;
        const Vec2 r1 = c.point1_W - bs[pc.body1].position_m;
        const Vec2 r2 = c.point1_W + c.gap_m * nrm - bs[pc.body2].position_m;
        r.jacobian_a << -nrm, -Cross(r1, nrm);
        r.jacobian_b << nrm, Cross(r2, nrm);
        r.bias = bias_scale * c.gap_m;
        return r;
      };
      PlanarLcpConstraint lc;
      lc.primary = row(pc.constraint.primary);
      for (const PolygonContact& s : pc.constraint.secondaries) lc.secondaries.push_back(row(s));
      constraints.push_back(std::move(lc));
    }
    std::vector<PlanarLcpBody> lcp_bodies(members.size());
    for (size_t m = 0; m < members.size(); ++m) {
      const PlanarRigidBody& b = bs[members[m]];
      lcp_bodies[m] = {1.0 / b.mass_kg, 1.0 / b.inertia_kg_m2, (*velocity)[members[m]]};
    }
    absl::StatusOr<PlanarLcpSolution> solution =
        SolvePlanarContactLcp(lcp_bodies, constraints, solver);
    if (!solution.ok()) return solution.status();
    ++out.islands;
    out.lcp_size += solution->lcp_size;
    out.largest_lcp = std::max(out.largest_lcp, solution->lcp_size);
    out.max_residual = std::max(out.max_residual, solution->solver.solution.residual);
    if (solution->solver.solved) {
      ++out.by_path[static_cast<int>(solution->solver.path)];
    } else {
      ++out.unsolved;
      out.solved = false;
    }
    for (size_t m = 0; m < members.size(); ++m) {
      (*velocity)[members[m]] = solution->velocity[m];
      local[members[m]] = -1;
    }
  }
  return out;
}

}  // namespace

Points2 PlanarWorldVertices(const PlanarRigidBody& body) {
  return Posed(body.vertices_body, body.position_m, body.angle_rad);
}

absl::StatusOr<PlanarLcpStepReport> StepPlanarLcp(std::vector<PlanarRigidBody>* bodies, double h,
                                                  const PlanarLcpSettings& settings) {
  if (!(h > 0.0) || !std::isfinite(h)) return absl::InvalidArgumentError("h: must be > 0");
  if (!(settings.max_gap_m > 0.0)) {
    return absl::InvalidArgumentError("settings.max_gap_m: must be > 0");
  }
  if (settings.contact_set_passes < 1 || settings.projection_iterations < 0) {
    return absl::InvalidArgumentError(
        "settings: contact_set_passes must be >= 1, projection_iterations >= 0");
  }
  std::vector<PlanarRigidBody>& bs = *bodies;
  const int n = static_cast<int>(bs.size());
  for (int i = 0; i < n; ++i) {
    if (auto s = CheckBody(bs[i], i); !s.ok()) return s;
  }
  PolygonConstraintOptions options;
  options.max_gap_m = settings.max_gap_m;
  options.applicability_threshold = settings.applicability_threshold;
  options.swept_feasibility = settings.swept_feasibility;
  options.standard_requires_applicability = settings.standard_requires_applicability;

  std::vector<Points2> now(n);
  for (int i = 0; i < n; ++i) now[i] = PlanarWorldVertices(bs[i]);
  auto predict = [&](const std::vector<Eigen::Vector3d>& nu) {
    std::vector<Points2> p(n);
    for (int i = 0; i < n; ++i) {
      p[i] = bs[i].is_static ? now[i]
                             : Posed(bs[i].vertices_body, bs[i].position_m + h * nu[i].head<2>(),
                                     bs[i].angle_rad + h * nu[i](2));
    }
    return p;
  };
  std::vector<Eigen::Vector3d> start(n, Eigen::Vector3d::Zero()), free(n, Eigen::Vector3d::Zero());
  for (int i = 0; i < n; ++i) {
    if (bs[i].is_static) continue;
    start[i] << bs[i].velocity_m_s, bs[i].angular_velocity_rad_s;
    free[i] = start[i];
    free[i].head<2>() += h * bs[i].applied_force_n / bs[i].mass_kg;
  }
  std::vector<std::vector<Points2>> predictions;
  if (settings.predicted_feasibility) predictions.push_back(predict(start));

  PlanarLcpStepReport report;
  std::vector<PairConstraint> all;
  PolygonConstraintStats stats;
  Gather(bs, now, predictions, options, settings.model, false, &all, &stats);
  std::vector<Eigen::Vector3d> velocity;
  IslandSolve solve;
  for (int pass = 1;; ++pass) {
    velocity = free;
    absl::StatusOr<IslandSolve> s = SolveIslands(bs, all, 1.0 / h, settings.solver, &velocity);
    if (!s.ok()) return s.status();
    solve = *s;
    report.stats = stats;
    report.constraints = static_cast<int>(all.size());
    report.contact_set_passes = pass;
    if (!settings.predicted_feasibility || pass >= settings.contact_set_passes) break;
    // The candidates of the solved motion: if the set grows, solve again with it.
    predictions.push_back(predict(velocity));
    std::vector<PairConstraint> grown;
    PolygonConstraintStats grown_stats;
    Gather(bs, now, predictions, options, settings.model, false, &grown, &grown_stats);
    if (grown_stats.feasible_candidates == stats.feasible_candidates) break;
    all = std::move(grown);
    stats = grown_stats;
  }
  report.solved = solve.solved;
  report.islands = solve.islands;
  report.lcp_size = solve.lcp_size;
  report.largest_lcp = solve.largest_lcp;
  report.islands_by_path = solve.by_path;
  report.unsolved_islands = solve.unsolved;
  report.max_residual = solve.max_residual;
  if (!report.solved && !settings.apply_unsolved) {
    report.applied = false;
    return report;
  }
  for (int i = 0; i < n; ++i) {
    if (bs[i].is_static) continue;
    bs[i].velocity_m_s = velocity[i].head<2>();
    bs[i].angular_velocity_rad_s = velocity[i](2);
    bs[i].position_m += h * bs[i].velocity_m_s;
    bs[i].angle_rad += h * bs[i].angular_velocity_rad_s;
  }
  // Position projection at the new configuration (no predicted motion: the step is done).
  PolygonConstraintOptions at_rest = options;
  at_rest.swept_feasibility = false;
  for (int it = 0;; ++it) {
    for (int i = 0; i < n; ++i) now[i] = PlanarWorldVertices(bs[i]);
    Gather(bs, now, {}, at_rest, settings.model, true, &all, &stats);
    report.deepest_gap_m = 0.0;
    for (const PairConstraint& pc : all) {
      report.deepest_gap_m = std::min(report.deepest_gap_m, CombinedGap(pc.constraint));
    }
    if (it >= settings.projection_iterations ||
        report.deepest_gap_m >= -settings.projection_tolerance_m) {
      break;
    }
    std::vector<Eigen::Vector3d> shift(n, Eigen::Vector3d::Zero());
    absl::StatusOr<IslandSolve> s = SolveIslands(bs, all, 1.0, settings.solver, &shift);
    if (!s.ok()) return s.status();
    if (!s->solved) {
      ++report.projection_failures;
      break;
    }
    ++report.projection_iterations;
    for (int i = 0; i < n; ++i) {
      if (bs[i].is_static) continue;
      bs[i].position_m += shift[i].head<2>();
      bs[i].angle_rad += shift[i](2);
    }
  }
  return report;
}

}  // namespace contactsim::core
