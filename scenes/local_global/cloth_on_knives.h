// Scene of Zeng et al. 2024, Sec. 7, Fig. 8 and Table 3 ("Cloth on Knives"): a square cloth
// falls onto codimensional triangle obstacles. Here: `blades` parallel knife blades, each a
// vertical quad of two triangles of zero thickness (TriangleMeshObstacle::two_sided, both sides
// free, sharp top edge and corners), in the planes x = x_b (spaced blade_spacing_m, centred on
// x = 0), spanning y in [-L/2, L/2] and z in [blade_top_m - blade_height_m, blade_top_m]; a
// frictional floor z >= 0 (half-space) catches what slides off. The cloth (cloth_drop.h) starts
// flat, at rest, drop_gap_m above the blade tops, centred over them. The blades have a contact
// thickness (blade_thickness_m, default 2 mm): the geometric checks below use their mid-planes.
// Sizes of Table 3: cells 71 (5,184 vertices, 10,082 triangles; paper 5.1k / 10.0k), 100
// (10,201 / 20,000; paper 10.2k / 20.2k), 123 (15,376 / 30,258; paper 15.3k / 30.3k).
#pragma once

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scenes/local_global/cloth_drop.h"

namespace contactsim::core {

struct ClothOnKnivesParams {
  ClothDropParams cloth;
  int blades = 4;
  double blade_spacing_m = 0.23;
  double blade_length_m = 1.2;  // along y, longer than the cloth
  double blade_height_m = 0.3;
  double blade_top_m = 0.3;
  // TriangleMeshObstacle::thickness_m of each blade: contacts keep the cloth 1 mm from the
  // blade's triangles, so a vertex that the inexact contact solve lets sink a little below the
  // top edge is still above it (a zero-thickness blade then has no side left to push it to).
  double blade_thickness_m = 2e-3;
  double drop_gap_m = 0.005;          // cloth height above the blade tops at the start
  double friction_coefficient = 0.3;  // blades and floor
};

struct ClothOnKnivesScene {
  explicit ClothOnKnivesScene(ClothDrop cloth_drop) : cloth(std::move(cloth_drop)) {}
  ClothDrop cloth;
  std::vector<double> blade_x_m;  // plane of each blade
  double blade_length_m = 0.0, blade_top_m = 0.0, blade_bottom_m = 0.0;

  // Whether the cloth surface (positions x_m) intersects a blade shrunk by tolerance_m on every
  // side (top lowered, bottom raised, ends pulled in): a cloth edge crossing the blade or a
  // blade edge crossing a cloth triangle. A draped cloth touches the top edge only.
  bool PassesThroughBlade(const Points3& x_m, double tolerance_m) const;
  // The smallest tolerance [m] (to 1e-7 m, searched in [0, 0.05]) at which PassesThroughBlade
  // is false: how deep the cloth reaches through a blade (0.05: at least that deep).
  double BladePenetrationDepth(const Points3& x_m) const;
};

// InvalidArgument naming the parameter for blades < 1 or non-positive sizes, a negative friction
// coefficient or drop gap; cloth, material and solver errors are passed through.
absl::StatusOr<ClothOnKnivesScene> BuildClothOnKnives(const ClothOnKnivesParams& params);

// The blades of the scene as obstacles (one two-sided quad each).
std::vector<TriangleMeshObstacle> KnifeBlades(const ClothOnKnivesParams& params);

}  // namespace contactsim::core
