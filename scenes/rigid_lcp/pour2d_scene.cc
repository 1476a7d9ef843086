#include "scenes/rigid_lcp/pour2d_scene.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/geometry/convex_polygon2d.h"

namespace contactsim::scenes {
namespace {

using core::PlanarRigidBody;
using core::Points2;

PlanarRigidBody StaticRectangle(double x0, double x1, double y0, double y1) {
  PlanarRigidBody b;
  b.is_static = true;
  b.vertices_body.resize(4, 2);
  b.vertices_body << x0, y0, x1, y0, x1, y1, x0, y1;
  return b;
}

struct Box {
  core::Vec2 lo, hi;
};

double Median(const std::vector<double>& sorted) {
  if (sorted.empty()) return 0.0;
  const size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

}  // namespace

absl::StatusOr<std::map<std::string, std::vector<PlanarRigidBody>>> LoadPour2dBodySets(
    const std::string& csv_path) {
  std::ifstream in(csv_path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", csv_path));
  std::map<std::string, std::vector<PlanarRigidBody>> sets;
  std::string line;
  int line_number = 0;
  bool header = true;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // set,idx,mass,J,pos_x,...
      header = false;
      continue;
    }
    const std::vector<std::string> f = absl::StrSplit(line, ',');
    auto bad = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat(csv_path, ":", line_number, ": ", why));
    };
    if (f.size() != 14) return bad("expected 14 fields");
    double v[11];
    for (int k = 0; k < 10; ++k) {
      if (!absl::SimpleAtod(f[2 + k], &v[k])) return bad(absl::StrCat("field ", 3 + k));
    }
    int n_verts = 0;
    if (!absl::SimpleAtoi(f[12], &n_verts) || n_verts < 3) return bad("n_verts");
    const std::vector<std::string> xy = absl::StrSplit(f[13], ' ', absl::SkipEmpty());
    if (static_cast<int>(xy.size()) != 2 * n_verts) return bad("verts_local_xy count");
    PlanarRigidBody b;
    b.vertices_body.resize(n_verts, 2);
    for (int k = 0; k < 2 * n_verts; ++k) {
      if (!absl::SimpleAtod(xy[k], &b.vertices_body(k / 2, k % 2))) return bad("vertex");
    }
    if (auto s = core::ValidateConvexPolygon(b.vertices_body); !s.ok()) return bad(s.ToString());
    b.mass_kg = v[0];
    b.inertia_kg_m2 = v[1];
    b.position_m = {v[2], v[3]};
    b.angle_rad = v[4];
    b.velocity_m_s = {v[5], v[6]};
    b.angular_velocity_rad_s = v[7];
    b.applied_force_n = {v[8], v[9]};
    sets[f[0]].push_back(std::move(b));
  }
  if (sets.empty()) return absl::InvalidArgumentError(absl::StrCat(csv_path, ": no bodies"));
  return sets;
}

std::vector<PlanarRigidBody> Pour2dContainer() {
  return {StaticRectangle(-1.0, 1.0, -0.4, 0.0), StaticRectangle(-1.2, -0.8, -0.4, 1.6),
          StaticRectangle(0.8, 1.2, -0.4, 1.6)};
}

double TotalOverlapArea(const std::vector<PlanarRigidBody>& bodies) {
  const int n = static_cast<int>(bodies.size());
  std::vector<Points2> world(n);
  std::vector<Box> boxes(n);
  for (int i = 0; i < n; ++i) {
    world[i] = core::PlanarWorldVertices(bodies[i]);
    boxes[i] = {world[i].colwise().minCoeff().transpose(),
                world[i].colwise().maxCoeff().transpose()};
  }
  double total = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (bodies[i].is_static && bodies[j].is_static) continue;
      if ((boxes[i].lo.array() > boxes[j].hi.array()).any() ||
          (boxes[j].lo.array() > boxes[i].hi.array()).any()) {
        continue;
      }
      total += core::ConvexPolygonIntersectionArea(world[i], world[j]);
    }
  }
  return total;
}

absl::StatusOr<Pour2dRun> RunPour2d(const std::vector<PlanarRigidBody>& set,
                                    const Pour2dOptions& options,
                                    const std::function<void(int, int)>& progress) {
  if (!(options.h > 0.0)) return absl::InvalidArgumentError("h: must be > 0");
  const double h = options.h;
  Pour2dRun run;
  // floor(5 / h) as MATLAB's 1:5/h; the 1e-9 keeps 5 / 0.001 = 4999.999... at 5000.
  run.steps = static_cast<int>(std::floor(options.duration_s / h + 1e-9));
  const int spawn_interval = std::max(1, static_cast<int>(std::lround(0.25 / h)));
  core::PlanarLcpSettings settings;
  settings.model = options.model;
  settings.max_gap_m = std::max(0.5 * h, 8e-4);
  settings.applicability_threshold = -0.2;
  settings.predicted_feasibility = true;
  settings.swept_feasibility = options.swept_feasibility;
  settings.contact_set_passes = options.contact_set_passes;
  settings.projection_iterations = options.projection_iterations;
  settings.standard_requires_applicability = options.standard_requires_applicability;
  settings.solver = options.solver;
  settings.apply_unsolved = true;  // counted as a failure below, never silently
  std::vector<PlanarRigidBody> bodies = Pour2dContainer();
  size_t next = 0;
  run.overlap_m2.reserve(run.steps);
  const auto start = std::chrono::steady_clock::now();
  for (int k = 1; k <= run.steps; ++k) {
    if ((k - 1) % spawn_interval == 0 && next < set.size()) {
      bodies.push_back(set[next++]);
      ++run.bodies_spawned;
    }
    absl::StatusOr<core::PlanarLcpStepReport> report = core::StepPlanarLcp(&bodies, h, settings);
    if (!report.ok()) return report.status();
    if (!report->solved) ++run.failed_steps;
    run.projection_failures += report->projection_failures;
    if (report->contact_set_passes > 1) ++run.contact_set_resolves;
    for (int p = 3; p >= 0; --p) {
      if (report->islands_by_path[p] > 0) {
        ++run.steps_by_path[p];
        break;
      }
    }
    const int combined = report->stats.intercontact + report->stats.cross_contact;
    if (combined > 0) ++run.steps_with_intercontact;
    run.unilateral += report->stats.unilateral;
    run.intercontact += report->stats.intercontact;
    run.cross_contact += report->stats.cross_contact;
    run.largest_lcp = std::max(run.largest_lcp, report->largest_lcp);
    run.max_residual = std::max(run.max_residual, report->max_residual);
    if (k < run.steps) run.overlap_m2.push_back(TotalOverlapArea(bodies));
    if (progress) progress(k, run.steps);
  }
  for (const PlanarRigidBody& b : bodies) {
    if (!b.is_static && (b.position_m.y() < 0.0 || std::abs(b.position_m.x()) > 0.8)) {
      ++run.escaped;
    }
  }
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

OverlapSummary SummarizeOverlap(std::vector<double> samples) {
  OverlapSummary s;
  s.samples = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = Median(samples);
  std::vector<double> above;
  for (double x : samples) {
    if (x > s.median) above.push_back(x);
  }
  s.q3 = above.empty() ? s.median : Median(above);
  const size_t rank = static_cast<size_t>(std::ceil(0.75 * samples.size()));
  s.p75 = samples[std::max<size_t>(rank, 1) - 1];
  s.max = samples.back();
  return s;
}

}  // namespace contactsim::scenes
