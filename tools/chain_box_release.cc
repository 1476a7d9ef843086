// Chain box release: does a link stay stuck in the chain benchmark's box? (docs/validation.md,
// chain benchmark, "Not reproduced: no sticking with CPF").
//
// Runs MakeChainScene (penalty_scenes.h) for --steps with gravity, then --weightless-steps more
// with gravity cancelled on every link (a force -m g each, RigidBody::ApplyForce): a link that was
// only resting on the box under the chain's load is pushed out by its penalty springs within a
// few tenths of a second, one still inside after that is held by the contact forces. Prints each
// link's depth in the box (the largest distance of a link vertex inside the box's axis-aligned
// bounds; negative: the gap to it) at the end of both phases, and with --pairs the box contacts
// of every link still inside: kind, features, normal on the link, tracked depth and impulse, and
// the sum of the box's force on the link against the other links' force on it. --damping C also
// applies -C m v and -C I w to every link in the weightless phase, so the links come to rest
// there: a link still inside is then held, not bouncing. --box-half-width and
// --box-min-half-height change the box, --scale every length of the scene.
//
//   chain_box_release                                      6 links, resolution 0.5, CPF, 1e3 N/m
//   chain_box_release --stiffness 3e3 --box-depth 0.75 --pairs
//   chain_box_release --model dpf-dcd --weightless-steps 50
//   chain_box_release --damping 3 --box-half-width 0.9 --box-min-half-height 0.6 --pairs
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "core/dynamics/rigid_body.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::bench {
namespace {

using core::ContactRecord;
using core::Vec3;

struct Box {
  Vec3 lo = Vec3::Zero();  // [m]
  Vec3 hi = Vec3::Zero();
};

// Largest distance of a vertex of the body inside the box (> 0 inside, else minus the gap) [m].
double DepthInBox(const core::Body& body, const Box& box) {
  double deepest = -1e300;
  const core::Points3& x = body.positions_t0();
  for (int v = 0; v < x.rows(); ++v) {
    const Vec3 p = x.row(v).transpose();
    const Vec3 below = p - box.lo, above = box.hi - p;
    deepest = std::max(deepest, std::min(below.minCoeff(), above.minCoeff()));
  }
  return deepest;
}

void PrintDepths(const char* label, const core::World& world, const std::vector<int32_t>& links,
                 const Box& box) {
  std::printf("%-24s", label);
  for (size_t i = 1; i < links.size(); ++i) {
    std::printf("  link%zu %+.3f", i, DepthInBox(*world.body(links[i]), box));
  }
  std::printf("   [m in the box]\n");
}

// The last step's box contacts of every link that is inside the box.
void PrintBoxPairs(const core::World& world, const std::vector<int32_t>& links, int32_t box_id,
                   const Box& box) {
  const double dt = world.settings().dt_s;
  for (size_t i = 1; i < links.size(); ++i) {
    const int32_t link = links[i];
    if (DepthInBox(*world.body(link), box) <= 0.0) continue;
    Vec3 from_box = Vec3::Zero(), from_links = Vec3::Zero();
    std::printf("link%zu:\n", i);
    for (const ContactRecord& c : world.last_contact_report().contacts) {
      if (c.body_a != link && c.body_b != link) continue;
      // The impulse on the link and the normal pointing into it.
      const double sign = c.body_a == link ? 1.0 : -1.0;
      const int32_t other = c.body_a == link ? c.body_b : c.body_a;
      if (other != box_id) {
        from_links += sign * c.normal_impulse_Ns / dt;
        continue;
      }
      from_box += sign * c.normal_impulse_Ns / dt;
      const Vec3 n = sign * c.normal_W;
      std::printf(
          "  %s link feature %d, box feature %d: normal on link (%+.2f %+.2f %+.2f), "
          "depth %.4f m, impulse %.3f N s\n",
          c.kind == core::ContactFeatureKind::kVertexFace ? "VF" : "EE",
          c.body_a == link ? c.feature_a : c.feature_b,
          c.body_a == link ? c.feature_b : c.feature_a, n.x(), n.y(), n.z(), c.depth_m,
          c.normal_impulse_Ns.norm());
    }
    std::printf(
        "  force from the box (%.1f %.1f %.1f) N, from the other links (%.1f %.1f %.1f) N\n",
        from_box.x(), from_box.y(), from_box.z(), from_links.x(), from_links.y(), from_links.z());
  }
}

int Main(int argc, char** argv) {
  CLI::App app{"Chain benchmark: which links stay in the box once gravity is cancelled"};
  std::string model = "cpf";
  core::PenaltySceneOptions options;
  options.resolution = 0.5;
  options.count = 6;
  options.stiffness_n_per_m = 1e3;
  core::ChainSceneParams params;
  params.box_depth_fraction = 0.35;
  int steps = 150;
  int weightless_steps = 100;
  bool pairs = false;
  double damping_per_s = 0.0;
  app.add_option("--model", model, "cpf, dpf, dpf-ccd or dpf-dcd")
      ->check(CLI::IsMember({"cpf", "dpf", "dpf-ccd", "dpf-dcd"}));
  app.add_option("--stiffness", options.stiffness_n_per_m, "penalty k [N/m]")
      ->check(CLI::PositiveNumber);
  app.add_option("--dt", options.dt_s, "time step [s] (0: the scene's 0.02 s)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--box-depth", params.box_depth_fraction,
                 "the box's centre below the anchor, in chain lengths");
  app.add_option("--box-half-width", params.box_half_width_m,
                 "the box's half size across the swing plane [m]")
      ->check(CLI::PositiveNumber);
  app.add_option("--box-min-half-height", params.box_min_half_height_m,
                 "the box's half height is at least this [m]")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--links", options.count, "links, the first static")->check(CLI::Range(2, 64));
  app.add_option("--tube-radius", params.tube_radius_m,
                 "the links' tube radius r [m] at --scale 1 (R = 0.5 m)")
      ->check(CLI::PositiveNumber);
  double scale = 1.0;
  app.add_option("--scale", scale,
                 "multiplies every length of the scene (R, r, the box's width and height) [1]")
      ->check(CLI::PositiveNumber);
  app.add_option("--resolution", options.resolution, "mesh resolution in (0, 1]");
  app.add_option("--steps", steps, "steps with gravity")->check(CLI::PositiveNumber);
  app.add_option("--weightless-steps", weightless_steps, "steps with gravity cancelled")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--damping", damping_per_s,
                 "weightless phase: also damp every link's motion, force -c m v and torque -c I w, "
                 "at this rate c [1/s]")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--pairs", pairs, "list the box contacts of the links left in the box");
  CLI11_PARSE(app, argc, argv);
  params.major_radius_m *= scale;
  params.tube_radius_m *= scale;
  params.box_half_width_m *= scale;
  params.box_min_half_height_m *= scale;
  options.contact_model = model == "cpf"       ? core::ContactModel::kCpf
                          : model == "dpf"     ? core::ContactModel::kDpf
                          : model == "dpf-ccd" ? core::ContactModel::kDpfCcdNormal
                                               : core::ContactModel::kDpfProximity;

  absl::StatusOr<core::PenaltyScene> scene = core::MakeChainScene(options, params);
  if (!scene.ok()) {
    std::fprintf(stderr, "%s\n", std::string(scene.status().message()).c_str());
    return 2;
  }
  core::World& world = scene->world;
  std::printf("%s, %s\n", scene->description.c_str(), model.c_str());
  std::vector<int32_t> links;
  for (int i = 0; i < options.count; ++i) {
    absl::StatusOr<int32_t> id = world.FindBody("link" + std::to_string(i));
    if (!id.ok()) return 1;
    links.push_back(*id);
  }
  const int32_t box_id = scene->force_against.front();
  const core::Points3& box_x = world.body(box_id)->positions_t0();
  const Box box{box_x.colwise().minCoeff().transpose(), box_x.colwise().maxCoeff().transpose()};

  const auto step = [&](bool weightless) {
    if (weightless) {
      for (size_t i = 1; i < links.size(); ++i) {
        auto* link = static_cast<core::RigidBody*>(world.body(links[i]));
        const core::RigidBodyState& state = link->state();
        if (absl::Status s =
                link->ApplyForce(-link->mass_kg() * (world.settings().gravity_m_per_s2 +
                                                     damping_per_s * state.v_WB_m_per_s));
            !s.ok()) {
          return s;
        }
        if (absl::Status s =
                link->ApplyTorque(-damping_per_s * (link->InertiaWorld() * state.w_WB_rad_per_s));
            !s.ok()) {
          return s;
        }
      }
    }
    return world.Step(1);
  };
  for (int i = 0; i < steps + weightless_steps; ++i) {
    if (absl::Status s = step(i >= steps); !s.ok()) {
      std::fprintf(stderr, "step %d: %s\n", i, std::string(s.message()).c_str());
      return 1;
    }
    if (i + 1 == steps) {
      PrintDepths("with gravity, end:", world, links, box);
      if (pairs && weightless_steps == 0) PrintBoxPairs(world, links, box_id, box);
    }
  }
  if (weightless_steps > 0) {
    PrintDepths("weightless, end:", world, links, box);
    if (pairs) PrintBoxPairs(world, links, box_id, box);
  }
  return 0;
}

}  // namespace
}  // namespace contactsim::bench

int main(int argc, char** argv) { return contactsim::bench::Main(argc, argv); }
