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

Box BoxOf(const Points2& p, const Points2& q, double margin) {
  Box b{p.colwise().minCoeff().transpose().cwiseMin(q.colwise().minCoeff().transpose()),
        p.colwise().maxCoeff().transpose().cwiseMax(q.colwise().maxCoeff().transpose())};
  b.lo.array() -= margin;
  b.hi.array() += margin;
  return b;
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

// One constraint between bodies i (polygon a) and j (polygon b), with its bodies.
struct PairConstraint {
  int body1 = -1, body2 = -1;  // indices into bodies: the primary's body1, body2
  PolygonConstraint constraint;
};

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
  std::vector<PlanarRigidBody>& bs = *bodies;
  const int n = static_cast<int>(bs.size());
  for (int i = 0; i < n; ++i) {
    if (auto s = CheckBody(bs[i], i); !s.ok()) return s;
  }
  std::vector<Points2> now(n), predicted(n);
  std::vector<Box> boxes(n);
  for (int i = 0; i < n; ++i) {
    now[i] = PlanarWorldVertices(bs[i]);
    predicted[i] = bs[i].is_static
                       ? now[i]
                       : Posed(bs[i].vertices_body, bs[i].position_m + h * bs[i].velocity_m_s,
                               bs[i].angle_rad + h * bs[i].angular_velocity_rad_s);
    boxes[i] = BoxOf(now[i], predicted[i], settings.max_gap_m);
  }
  PolygonConstraintOptions options;
  options.max_gap_m = settings.max_gap_m;
  options.applicability_threshold = settings.applicability_threshold;
  options.swept_feasibility = settings.predicted_feasibility && settings.swept_feasibility;
  PlanarLcpStepReport report;
  std::vector<PairConstraint> all;
  std::vector<PolygonConstraint> made;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if ((bs[i].is_static && bs[j].is_static) || !Overlap(boxes[i], boxes[j])) continue;
      made.clear();
      MakePolygonConstraints(
          settings.model, now[i], now[j], settings.predicted_feasibility ? &predicted[i] : nullptr,
          settings.predicted_feasibility ? &predicted[j] : nullptr, options, &made, &report.stats);
      for (PolygonConstraint& c : made) {
        const bool a_first = c.primary.body1 == 0;
        all.push_back({a_first ? i : j, a_first ? j : i, std::move(c)});
      }
    }
  }
  report.constraints = static_cast<int>(all.size());
  // Islands: dynamic bodies joined by a constraint.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const PairConstraint& pc : all) {
    if (!bs[pc.body1].is_static && !bs[pc.body2].is_static) {
      parent[Root(parent, pc.body1)] = Root(parent, pc.body2);
    }
  }
  auto island_of = [&](const PairConstraint& pc) {
    return Root(parent, bs[pc.body1].is_static ? pc.body2 : pc.body1);
  };
  std::vector<std::vector<int>> by_island(n);
  for (int k = 0; k < static_cast<int>(all.size()); ++k) by_island[island_of(all[k])].push_back(k);

  std::vector<Eigen::Vector3d> velocity(n, Eigen::Vector3d::Zero());
  for (int i = 0; i < n; ++i) {
    if (bs[i].is_static) continue;
    velocity[i] << bs[i].velocity_m_s + h * bs[i].applied_force_n / bs[i].mass_kg,
        bs[i].angular_velocity_rad_s;
  }
  std::vector<int> local(n, -1);
  for (int root = 0; root < n; ++root) {
    const std::vector<int>& ks = by_island[root];
    if (ks.empty()) continue;
    std::vector<int> members;
    auto local_index = [&](int body) {
      if (bs[body].is_static) return -1;
      if (local[body] < 0) {
        local[body] = static_cast<int>(members.size());
        members.push_back(body);
      }
      return local[body];
    };
    std::vector<PlanarLcpConstraint> lcp_constraints;
    lcp_constraints.reserve(ks.size());
    for (int k : ks) {
      const PairConstraint& pc = all[k];
      auto row = [&](const PolygonContact& c) {
        PlanarLcpRow r;
        r.body_a = local_index(pc.body1);
        r.body_b = local_index(pc.body2);
        const Vec2& n = c.normal_W;
        const Vec2 r1 = c.point1_W - bs[pc.body1].position_m;
        const Vec2 r2 = c.point1_W + c.gap_m * n - bs[pc.body2].position_m;
        r.jacobian_a << -n, -Cross(r1, n);
        r.jacobian_b << n, Cross(r2, n);
        r.bias = c.gap_m / h;
        return r;
      };
      PlanarLcpConstraint lc;
      lc.primary = row(pc.constraint.primary);
      for (const PolygonContact& s : pc.constraint.secondaries) lc.secondaries.push_back(row(s));
      lcp_constraints.push_back(std::move(lc));
    }
    std::vector<PlanarLcpBody> lcp_bodies(members.size());
    for (size_t m = 0; m < members.size(); ++m) {
      const PlanarRigidBody& b = bs[members[m]];
      lcp_bodies[m] = {1.0 / b.mass_kg, 1.0 / b.inertia_kg_m2, velocity[members[m]]};
    }
    absl::StatusOr<PlanarLcpSolution> solution =
        SolvePlanarContactLcp(lcp_bodies, lcp_constraints, settings.solver);
    if (!solution.ok()) return solution.status();
    ++report.islands;
    report.lcp_size += solution->lcp_size;
    report.largest_lcp = std::max(report.largest_lcp, solution->lcp_size);
    report.max_residual = std::max(report.max_residual, solution->solver.solution.residual);
    if (solution->solver.solved) {
      ++report.islands_by_path[static_cast<int>(solution->solver.path)];
    } else {
      ++report.unsolved_islands;
      report.solved = false;
    }
    for (size_t m = 0; m < members.size(); ++m) {
      velocity[members[m]] = solution->velocity[m];
      local[members[m]] = -1;
    }
  }
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
  return report;
}

}  // namespace contactsim::core
