// The paper's 2D polygon-pouring experiment (Williams, Lu & Trinkle 2016 §6, Figs. 20–21), exactly
// as shared/papers/peg-formulation-notes.md §6 reconstructs it from the authors' scripts:
//   container: 3 static counter-clockwise rectangles, floor [-1, 1] x [-0.4, 0], walls
//     [-1.2, -0.8] x [-0.4, 1.6] and [0.8, 1.2] x [-0.4, 1.6];
//   bodies: one of the ten sets of shared/papers/peg-2d-body-sets.csv (25 polygons each, in spawn
//     order, with their start state: m = 0.25 kg, J = 0.003 kg m^2, at (-0.5, 0.8) with vx = 0.7
//     or (0.5, 0.8) with vx = -0.7, F = (0, -9.8 m)); a new one at the start of every step k
//     with (k - 1) mod round(0.25 / h) = 0;
//   floor(5 / h) steps, frictionless, feasibility distance max(0.5 h, 8e-4) (h in s read as m),
//     eps_theta = -0.2;
//   metric: after each step, the total overlap area, the sum over body pairs (not both static)
//     with overlapping boxes of their intersection area (Sutherland–Hodgman + shoelace). The
//     authors sample at the start of steps 2 ... N, i.e. after steps 1 ... N - 1; so do we.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/rigid_lcp/planar_lcp_stepper.h"

namespace contactsim::scenes {

// Set letter -> its polygons in spawn order. NotFound when the file is missing, InvalidArgument
// naming the line for a malformed row.
absl::StatusOr<std::map<std::string, std::vector<core::PlanarRigidBody>>> LoadPour2dBodySets(
    const std::string& csv_path);

std::vector<core::PlanarRigidBody> Pour2dContainer();

// Sum over pairs (not both static) of the bodies' intersection areas [m^2].
double TotalOverlapArea(const std::vector<core::PlanarRigidBody>& bodies);

struct Pour2dOptions {
  core::PolygonContactModel model = core::PolygonContactModel::kPeg;
  double h = 0.004;
  double duration_s = 5.0;  // floor(duration / h) steps
  // false: the authors' feasibility test alone (current or predicted configuration), with which
  // falling polygons tunnel through the floor (docs/rigid_lcp.md).
  bool swept_feasibility = true;
  int contact_set_passes = 3;     // planar_lcp_stepper.h (1: the authors' single pass)
  int projection_iterations = 0;  // planar_lcp_stepper.h (0: the paper's stepper)
  bool standard_requires_applicability = false;
  core::LcpSolverChainOptions solver;
};

struct Pour2dRun {
  int steps = 0;
  int bodies_spawned = 0;
  std::vector<double> overlap_m2;  // after steps 1 ... N - 1
  int failed_steps = 0;            // steps with an unsolved island (applied with the best attempt)
  // Steps by the last fallback path any of their islands needed (index: LcpSolverPath); steps
  // without contact are counted in none of them.
  std::array<int, 4> steps_by_path = {0, 0, 0, 0};
  int steps_with_intercontact = 0;  // steps with >= 1 I (from vertex–vertex or X)
  long unilateral = 0, intercontact = 0, cross_contact = 0;
  int largest_lcp = 0;
  int escaped = 0;
  int projection_failures = 0;
  int contact_set_resolves = 0;  // steps solved more than once (the contact set grew)  // polygons
                                 // whose centre is outside the container's interior at the end
  double max_residual = 0.0;
  double wall_s = 0.0;
};

// Runs one set; `progress` (if given) is called every step with (step, steps).
absl::StatusOr<Pour2dRun> RunPour2d(const std::vector<core::PlanarRigidBody>& set,
                                    const Pour2dOptions& options,
                                    const std::function<void(int, int)>& progress = {});

struct OverlapSummary {
  double median = 0.0;
  double q3 = 0.0;   // the authors' "Q3": the median of the samples above the median
  double p75 = 0.0;  // the 75th percentile (nearest rank)
  double max = 0.0;
  int samples = 0;
};

OverlapSummary SummarizeOverlap(std::vector<double> samples);

}  // namespace contactsim::scenes
