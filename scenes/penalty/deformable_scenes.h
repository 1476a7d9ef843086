// Deformable penalty scenes: builders for the deformable benchmarks of Tang et al. 2012
// ("Continuous Penalty Forces", Sec. 4: octopus, cloth, dragons) with the bodies this library
// has (explicit corotational FEM and mass-spring surfaces, core/dynamics), returned as a
// PenaltyScene (penalty_scenes.h) with the contact model asked for. The paper gives only triangle
// counts, the cloth's dt (0.0333 s; Fig. 13: 0.03 and 0.01 s) and its k (2 "N/m" in SOFA's
// units, with SOFA's implicit integrator); every other value below is ours and stated here.
//
// Why these dt and k. Every body here is stepped explicitly (symplectic Euler), so dt must stay
// below the body's own critical step (StableTimeStepEstimate, asserted in
// tests/physics/deformable_scenes_test.cc) and the contact springs must not push a surface vertex
// past the CPF bound: a vertex of mass m_v in n pairs at once feels the stiffness n k, and needs
// omega dt = sqrt(n k / m_v) dt below sqrt(2) (world_settings.h), with n about 3 (one VF pair
// and EE pairs on its edges). Deformable surface vertices here weigh 1e-4 to 1e-2 kg, so k is
// tens to hundreds of N/m, not the 1e3-1e4 N/m of the rigid scenes: the k "per pair" acts on one
// vertex, not on a body. This is why the earlier FEM ball (k 1e3-1e4 N/m at dt 0.5 ms: omega dt 3
// to 10 on 2e-4 kg vertices) diverged, and why a thin bowl let it through at small k (see the
// blob). The paper's dt 0.03 s cannot be used: a cloth stiff enough to hold the tori would need an
// implicit integrator, which the penalty pipeline does not have.
//
//   blob        a soft corotational FEM ball (r 0.1 m, tet sphere of resolution 10: 1,200
//               surface triangles, 1,331 vertices, 6,000 tets; E 20 kPa, nu 0.3, 1000 kg/m^3:
//               4.2 kg; Rayleigh alpha 1 /s, beta 2e-5 s) dropped 5 cm, 8 cm off-centre, into a
//               static thick bowl (inner radius 0.3 m, wall 3 cm, 128 x 26 segments: 13,312
//               triangles); 14,512 triangles. dt 0.5 ms (FEM critical step estimate 0.77 ms),
//               k 200 N/m. The bowl is a closed solid 3 cm thick, thicker than any penetration.
//               The bowl carries most triangles: with the FEM's former cost (~3 us per tet
//               and step, an SVD per tet twice a step) a finer ball (resolution 18: 35k tets)
//               ran at ~150 ms per step before contact.
//   tori_cloth  deformable tori (mass-spring surfaces with bending springs, R 0.06 m, r 0.025 m,
//               64 x 8 segments: 1,024 triangles, 50 g each) on a 6 x 6 grid less its corners
//               falling from 2-7 cm onto a cloth (1.2 m square, 128 x 128 cells:
//               32,768 triangles, 1 kg/m^2) pinned along its edges y = +-0.6 m; 32 tori: 65,536
//               triangles; Rayleigh alpha 2 /s on both. dt 0.5 ms (critical step estimates
//               >= 0.85 ms), k 60 N/m.
//   bucket      the dragons' stand-in: 240 soft FEM balls (the blob's material on tet spheres
//               r 5 cm of resolution 6: 432 surface triangles, 343 vertices, 1,296 tets,
//               0.51 kg each) in layers at a 0.11 m pitch (8 x 8, the 7 x 7 hollows above, ...:
//               64 + 49 + 64 + 49 + 14), the first 1 cm above the floor, falling into a static
//               bucket (floor and four walls, boxes 4 cm thick, inner 0.9 x 0.9 x 0.5 m); 240 x
//               432 + 60 = 103,740 triangles (the paper's dragons: 103k), 311,040 tets, the
//               balls carry all but 60 of the triangles. k 555.6 N/m: the pile loads the
//               bottom balls with the weight and momentum of four layers, so the contact
//               stiffness per unit area is 4 times the blob's (its 200 N/m scaled to this mesh's
//               vertex spacing r / resolution, 8.3 mm against the blob's 1 cm); dt 0.25 ms (FEM
//               critical step estimate 0.675 ms) keeps omega dt of the lightest surface vertices
//               (3.1e-4 kg) at the blob's: sqrt(3 k / 3.1e-4) 2.5e-4 = 0.58 in 3 pairs (0.82 in
//               6, a vertex between two balls). Why 240 small coarse balls, not 20 fine ones: a
//               tet sphere of resolution n has 12 n^2 surface triangles and 6 n^3 tets, so the
//               tets per triangle (n / 2) and the cost grow with the resolution; resolution 6
//               keeps 24 segments around a great circle. The FEM costs ~0.7 us per tet per step
//               (one Newton polar decomposition, corotational_fem.h; bench/fem_force_bench on a
//               shared core), ~0.2 s per step here; a whole step took 0.15-0.29 s over the
//               first 0.15 s on one thread (4-7 frames per second) and 0.37 s on average over
//               0.4 s as the pile formed and squashed (docs/benchmarks.md). Alternatives measured
//               before: mass-spring surface balls (icospheres with bending springs, which would
//               be cheap) collapse under their own weight into pancakes (20 cm balls 9 cm high
//               within 0.4 s), since a fine triangulated surface of springs has almost no
//               bending stiffness; balls with spokes to a centre vertex (a volumetric mass-spring
//               truss) held their shape but sank 3 cm into the floor and were slow. Unlike the
//               paper's dragons (a fine surface embedded in a coarse FEM mesh, SOFA's mapping),
//               each ball's collision surface is its FEM mesh's own boundary. At the blob's dt
//               0.5 ms and stiffness per area (138.9 N/m) the landing pile pressed bottom
//               vertices 1.8 cm into the 4 cm floor (0.6 cm now). The soft balls (E 20 kPa)
//               squash as the pile lands: centres of balls stacked two layers apart come to
//               5.6 cm at 0.22 s (2r = 10 cm) with either setting, so this is the material, not
//               the contact; the pile then springs back (docs/validation.md).
// `resolution` scales the segment counts (FEM resolutions, bowl, cloth cells, torus segments);
// k is then scaled by the square of the vertex spacing's growth (StiffnessForSpacing in the
// .cc) so a coarse build sinks as deep as the full one; `count` sets tori or balls.
// Friction off; no self-collision (the paper's scenes have intra-object contact; ours do not).
#pragma once

#include "absl/status/statusor.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {

// Geometry the scenes share with their tests (metres).
struct BlobSceneGeometry {
  static constexpr double kBowlInnerRadiusM = 0.3;  // bowl: sphere about the origin, below z = 0
  static constexpr double kBowlThicknessM = 0.03;
  static constexpr double kBlobRadiusM = 0.1;
};
struct ToriClothGeometry {
  static constexpr double kClothHalfSizeM = 0.6;  // cloth [-0.6, 0.6]^2 at z = 0
  static constexpr double kTorusMajorRadiusM = 0.06;
  static constexpr double kTorusTubeRadiusM = 0.025;
};
struct BucketGeometry {
  static constexpr double kInnerHalfWidthM = 0.45;  // interior |x|, |y| <= 0.45, z in [0, 0.5]
  static constexpr double kWallHeightM = 0.5;
  static constexpr double kWallThicknessM = 0.04;
  static constexpr double kBallRadiusM = 0.05;
};
// Balls in the full-size bucket (count <= 0).
inline constexpr int kBucketFullCount = 240;

absl::StatusOr<PenaltyScene> MakeBlobScene(const PenaltySceneOptions& options);
absl::StatusOr<PenaltyScene> MakeToriClothScene(const PenaltySceneOptions& options);
absl::StatusOr<PenaltyScene> MakeBucketScene(const PenaltySceneOptions& options);

}  // namespace contactsim::core
