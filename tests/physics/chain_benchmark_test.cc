// Chain benchmark (Tang et al. 2012, Fig. 1a, Fig. 8 and Sec. 5): a chain of rigid torus links
// swings onto a rigid box at the paper's dt = 0.02 s. Paper: discrete penalty forces give
// "excessive, often irreversible inter-penetrations", "sticking" and "pop-through"; continuous
// penalty forces alleviate them.
//
// Models: kCpf against kDpfProximity, the paper's discrete baseline (contacts from a proximity
// query at the end of the step, closest-point normal; discrete_penetration.h). Scene:
// MakeChainScene (penalty_scenes.h) at resolution 0.5 (links 20 x 8 segments), 6 links (the
// first static), dt = 0.02 s, 3 s simulated (the chain reaches the box at about 1 s). Swept:
// k in {1e3, 3e3} N/m and the box's depth below the anchor in {0.35, 0.75} L (4 configurations
// per model; the paper's k "10" is in SOFA's units and its 0.4 mm tolerance is a proximity
// distance, which matters only for open surfaces here: all meshes are closed).
//
// What is asserted is the link-link pop-through, the failure that is systematic in our runs:
// links are tori with major radius R = 0.5 m and tube radius r = 0.1 m, so two interlocked links
// have centres at most 2 (R - r) = 0.8 m apart when they do not interpenetrate, and two links
// whose centres are more than 2 (R + r) = 1.2 m apart have disjoint bounding spheres: they are
// no longer interlocked, so one has passed through the other's tube (the chain broke).
//   CPF: no consecutive pair of links is ever more than 1.2 m apart (checked after every step).
//   DPF: by the end, at least 3 of the 5 consecutive pairs are more than 1.2 m apart.
// Measured (Release): CPF's largest centre distance over the run 0.95-1.10 m (the links sink
// into each other by more than a tube diameter under the chain's weight, the soft k that dt 0.02 s
// allows for 99 kg links, but stay interlocked: a margin of 0.10 m to the threshold, and the
// pipeline is deterministic for any thread count); DPF breaks all 5 pairs while the chain swings
// down (k 1e3 N/m, box 0.75 L: 1 pair at 0.5 s, 3 at 1 s, 5 at 3 s): under the swing's load the
// links sink past the tube's centre line, where the closest-point normal flips and pulls them
// through each other (Sec. 3.1).
//
// Not asserted, because it is not reproduced (docs/validation.md, chain benchmark): the paper's
// chain-against-box "sticking" with DPF and its absence with CPF. At these k both models push
// links 0.15-0.3 m into the box (0.6 m wide) on impact, about the per-step travel at 5 m/s, and
// CPF links stay up to 0.15 m inside even with gravity cancelled for 2 s afterwards: held by EE
// pairs started where a link's edge left the box (the VF analogue is fixed:
// tests/core/sim/exit_crossing_contact_test.cc), by pairs whose face plane outlives the face, and
// by links threaded on the box's corners. DPF's chain breaks before it can stick.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {
namespace {

constexpr double kUnlinkedDistanceM = 1.2;  // 2 (R + r)
constexpr int kLinks = 6;

struct ChainRun {
  double max_centre_distance_m = 0.0;  // over all steps and consecutive pairs
  int broken_pairs_at_end = 0;         // consecutive pairs > kUnlinkedDistanceM apart
};

ChainRun RunChain(ContactModel model, double stiffness_n_per_m, double box_depth_fraction) {
  PenaltySceneOptions options;
  options.contact_model = model;
  options.resolution = 0.5;
  options.count = kLinks;
  options.stiffness_n_per_m = stiffness_n_per_m;
  ChainSceneParams params;
  params.box_depth_fraction = box_depth_fraction;
  absl::StatusOr<PenaltyScene> scene = MakeChainScene(options, params);
  EXPECT_TRUE(scene.ok()) << scene.status();
  ChainRun run;
  if (!scene.ok()) return run;
  World& world = scene->world;
  std::vector<int32_t> links;
  for (int i = 0; i < kLinks; ++i) {
    absl::StatusOr<int32_t> id = world.FindBody("link" + std::to_string(i));
    EXPECT_TRUE(id.ok()) << id.status();
    if (!id.ok()) return run;
    links.push_back(*id);
  }
  // Link centres from the vertex means (the tori are symmetric about their centres).
  const auto centre = [&](int i) -> Vec3 {
    return world.body(links[i])->positions_t0().colwise().mean().transpose();
  };
  for (int step = 0; step < 150; ++step) {
    const absl::Status status = world.Step(1);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) return run;
    run.broken_pairs_at_end = 0;
    for (int i = 0; i + 1 < kLinks; ++i) {
      const double d = (centre(i) - centre(i + 1)).norm();
      run.max_centre_distance_m = std::max(run.max_centre_distance_m, d);
      run.broken_pairs_at_end += d > kUnlinkedDistanceM;
    }
  }
  return run;
}

TEST(ChainBenchmarkTest, CpfKeepsTheLinksInterlockedWhileDiscreteProximityPopsThrough) {
  for (const double k : {1e3, 3e3}) {
    for (const double depth : {0.35, 0.75}) {
      const ChainRun cpf = RunChain(ContactModel::kCpf, k, depth);
      const ChainRun dpf = RunChain(ContactModel::kDpfProximity, k, depth);
      std::printf(
          "k %.0f N/m, box at %.2f L: CPF max centre distance %.3f m, broken %d | DPF "
          "broken %d of %d\n",
          k, depth, cpf.max_centre_distance_m, cpf.broken_pairs_at_end, dpf.broken_pairs_at_end,
          kLinks - 1);
      EXPECT_LE(cpf.max_centre_distance_m, kUnlinkedDistanceM) << "k " << k << ", box " << depth;
      EXPECT_GE(dpf.broken_pairs_at_end, 3) << "k " << k << ", box " << depth;
    }
  }
}

}  // namespace
}  // namespace contactsim::core
