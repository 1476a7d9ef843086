// `contactsim step` with controls, `info`, `add-constraint` and `remove-constraint`, run as
// subprocesses against an in-process server: what they print, and bad flags answered with exit 2
// and a message naming the flag.
#include <cmath>
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/clients/cli_runner.h"
#include "tests/clients/client_fixture.h"

namespace contactsim::client::clienttest {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class DriveCliTest : public ClientTest {
 protected:
  std::string Server() const { return "--server " + server_->address() + " "; }

  // A penalty session without ground (dt 0.01 s) with the 1 kg box (body 0) at z = 0.15 m.
  void CreateSession() {
    CliResult created = RunCli(Server() + "create --dt 0.01 --no-ground --box --box-height 0.15");
    ASSERT_EQ(created.exit_code, 0) << created.output;
    std::map<std::string, std::string> fields = ParseFields(created.output);
    session_ = fields["session_id"];
    controller_ = fields["controller_token"];
    viewer_ = fields["viewer_token"];
    ASSERT_EQ(fields["box_body_id"], "0") << created.output;
  }

  CliResult Run(const std::string& command, const std::string& rest) {
    return RunCli(Server() + command + " " + session_ + " --token " + controller_ + " " + rest);
  }

  std::string session_, controller_, viewer_;
};

// A force of m g up on the 1 kg box holds it where it is; a kinematic box reaches the pose asked
// at the end of the call; a pinned cloth reports its centre of mass, bounds and the pin's
// reaction; contact counts are named per call and per step.
TEST_F(DriveCliTest, StepDrivesBodiesAndPrintsPosesAndReactions) {
  CreateSession();
  CliResult held = Run("step", "--steps 10 --force 0:0,0,9.81");
  ASSERT_EQ(held.exit_code, 0) << held.output;
  // x and y are rounding-small (the mesh's centre of mass), z stays at 0.15 to 6 digits.
  EXPECT_THAT(held.output, ContainsRegex("body 0 rigid: p_WB_m=\\([-.e0-9]+, [-.e0-9]+, 0\\.15\\) "
                                         "q_WB=\\(1, 0, 0, 0\\)"));
  EXPECT_THAT(held.output, HasSubstr("steps_this_call: 10"));
  EXPECT_THAT(held.output, HasSubstr("contact_records_last_step: 0"));
  EXPECT_THAT(held.output, HasSubstr("contact totals over the call's 10 steps:"));
  EXPECT_THAT(held.output, HasSubstr("body 0: impulse_ns=(0, 0, 0)"));
  CliResult fell = Run("step", "--steps 10");
  ASSERT_EQ(fell.exit_code, 0) << fell.output;
  EXPECT_THAT(fell.output, Not(ContainsRegex(", 0\\.15\\) q_WB")));  // without it, it falls

  CliResult hand = Run("add-body",
                       "--primitive box --half-extents 0.05,0.05,0.05 --kind kinematic "
                       "--no-collision");
  ASSERT_EQ(hand.exit_code, 0) << hand.output;
  ASSERT_EQ(ParseFields(hand.output)["body_id"], "1") << hand.output;
  CliResult moved = Run("step", "--steps 4 --kinematic-pose 1:1,2,3,1,0,0,0");
  ASSERT_EQ(moved.exit_code, 0) << moved.output;
  EXPECT_THAT(moved.output, HasSubstr("body 1 kinematic: p_WB_m=(1, 2, 3) q_WB=(1, 0, 0, 0)"));

  CliResult cloth = Run("add-body",
                        "--primitive cloth-grid --size 0.4,0.4 --cells 4,4 --kind cloth "
                        "--area-density 0.5 --stretch-stiffness 5 --pose 0,0,1 --no-collision");
  ASSERT_EQ(cloth.exit_code, 0) << cloth.output;
  ASSERT_EQ(ParseFields(cloth.output)["body_id"], "2") << cloth.output;
  CliResult pin = Run("add-constraint", "--kind pin --body 2 --vertices 0,4");
  ASSERT_EQ(pin.exit_code, 0) << pin.output;
  EXPECT_EQ(ParseFields(pin.output)["constraint_id"], "0") << pin.output;
  CliResult pull = Run("add-constraint",
                       "--kind position-target --body 2 --vertices 12 --targets 0,0,1.1 "
                       "--stiffness 1");
  ASSERT_EQ(pull.exit_code, 0) << pull.output;
  EXPECT_EQ(ParseFields(pull.output)["constraint_id"], "1") << pull.output;
  CliResult swing = Run("step", "--steps 5 --vertex-force 2:24:0,0,0.01 --target 1:0,0,1.2");
  ASSERT_EQ(swing.exit_code, 0) << swing.output;
  // The unpinned grid falls (below z = 1) and stays within x, y in [-0.2, 0.2].
  EXPECT_THAT(swing.output, HasSubstr("body 2 cloth: centre_of_mass_m=("));
  EXPECT_THAT(swing.output, HasSubstr(" vertices=25"));
  EXPECT_THAT(swing.output, HasSubstr("constraint reactions over the call's 5 steps:"));
  EXPECT_THAT(swing.output, HasSubstr("constraint 0 pin on body 2: impulse_ns=("));
  EXPECT_THAT(swing.output, HasSubstr("constraint 1 position-target on body 2: impulse_ns=("));
  EXPECT_THAT(swing.output, HasSubstr("body 2: constraint_impulse_ns=("));

  CliResult removed = Run("remove-constraint", "0");
  ASSERT_EQ(removed.exit_code, 0) << removed.output;
  EXPECT_THAT(removed.output, HasSubstr("removed constraint: 0"));
  CliResult again = Run("remove-constraint", "0");
  EXPECT_EQ(again.exit_code, 4) << again.output;
  EXPECT_THAT(again.output, HasSubstr("NOT_FOUND"));

  CliResult info = RunCli(Server() + "info " + session_ + " --token " + viewer_);
  ASSERT_EQ(info.exit_code, 0) << info.output;
  std::map<std::string, std::string> fields = ParseFields(info.output);
  EXPECT_EQ(fields["pipeline"], "penalty") << info.output;
  EXPECT_EQ(fields["step_count"], "29") << info.output;
  EXPECT_EQ(fields["body_ids"], "0,1,2") << info.output;
  EXPECT_THAT(fields["settings"], HasSubstr("dt_s: 0.01")) << info.output;
  EXPECT_THAT(fields["settings"], Not(HasSubstr("local_global"))) << info.output;
}

TEST_F(DriveCliTest, BadFlagsAreUsageErrorsNamingTheFlag) {
  CreateSession();
  struct Case {
    std::string command, rest, message;
  };
  const Case cases[] = {
      {"step", "--force 0:1,2",
       "--force '0:1,2': expected BODY:fx,fy,fz, got 2 numbers after the ':' (3)"},
      {"step", "--force x:1,2,3", "--force 'x:1,2,3': expected BODY:fx,fy,fz, 'x' is not an id"},
      {"step", "--torque 0:1,2,nan", "'nan' is not a finite number"},
      {"step", "--kinematic-pose 1:1,2,3,4", "got 4 numbers after the ':' (3 or 7)"},
      {"step", "--vertex-force 2:1,0,0", "expected BODY:VERTEX:fx,fy,fz, got 1 ':' instead of 2"},
      {"step", "--target 1:0,0", "got 2 numbers after the ':' (a multiple of 3)"},
      {"add-constraint", "--kind glue --body 0 --vertices 1", "--kind: glue not in"},
      {"add-constraint", "--kind position-target --body 0 --vertices 1,2 --stiffness 1",
       "--kind position-target needs --targets x,y,z per vertex (6 numbers for 2 vertices, got 0)"},
      {"add-constraint", "--kind attachment --body 0 --vertices 1",
       "--kind attachment needs --target-body"},
      {"add-constraint", "--kind pin --body 0 --vertices 1 --stiffness 3",
       "--targets and --stiffness apply to --kind position-target only"},
      {"step", "--reply-parts bodies",
       "--reply-parts: unknown part 'bodies' (parts: body_poses,body_velocities,vertex_positions,"
       "contact_pairs,contact_totals,diagnostics,constraint_reactions,joint_states)"},
      {"step", "--reply-parts body_poses,,joint_states", "--reply-parts: no part named"},
  };
  for (const Case& c : cases) {
    CliResult result = Run(c.command, c.rest);
    EXPECT_EQ(result.exit_code, 2) << c.rest << "\n" << result.output;
    EXPECT_THAT(result.output, HasSubstr(c.message)) << c.rest;
  }
  CliResult pipeline = RunCli(Server() + "create --pipeline fast");
  EXPECT_EQ(pipeline.exit_code, 2) << pipeline.output;
  EXPECT_THAT(pipeline.output, HasSubstr("fast not in {penalty,local_global,rigid_lcp}"));
  // A body that is not there: the server's answer (exit 4), naming the field.
  CliResult unknown = Run("step", "--force 7:0,0,1");
  EXPECT_EQ(unknown.exit_code, 4) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("controls.bodies[0]"));
  // The viewer token drives nothing.
  CliResult viewer = RunCli(Server() + "add-constraint " + session_ + " --token " + viewer_ +
                            " --kind pin --body 0 --vertices 0");
  EXPECT_EQ(viewer.exit_code, 4) << viewer.output;
  EXPECT_THAT(viewer.output, HasSubstr("PERMISSION_DENIED"));
}

// The first component of the vector printed after `key=(` on `output`; NaN when absent.
double VectorZ(const std::string& output, const std::string& key) {
  const size_t at = output.find(key + "=(");
  if (at == std::string::npos) return std::nan("");
  const size_t second_comma = output.find(',', output.find(',', at) + 1);
  return std::stod(output.substr(second_comma + 1));
}

// --reply-parts sends StepRequest.reply_parts and prints only the parts asked: the box falls
// freely (no ground), so its velocity after n steps of h is -g n h (symplectic Euler, exact but
// for rounding) and its height drops.
TEST_F(DriveCliTest, StepReplyPartsSendsAndPrintsOnlyThePartsAsked) {
  CreateSession();
  CliResult velocities = Run("step", "--steps 5 --reply-parts body_velocities,diagnostics");
  ASSERT_EQ(velocities.exit_code, 0) << velocities.output;
  EXPECT_THAT(velocities.output, HasSubstr("step_count: 5"));
  EXPECT_THAT(velocities.output, HasSubstr("steps_this_call: 5"));
  EXPECT_THAT(velocities.output, HasSubstr("body 0 rigid: v_WB_m_per_s=("));
  // -9.81 * 5 * 0.01 m/s; printed with 6 significant digits.
  EXPECT_NEAR(VectorZ(velocities.output, "v_WB_m_per_s"), -0.4905, 1e-6) << velocities.output;
  EXPECT_THAT(velocities.output, Not(HasSubstr("p_WB_m")));
  EXPECT_THAT(velocities.output, Not(HasSubstr("contact_records_last_step")));
  EXPECT_THAT(velocities.output, Not(HasSubstr("contact totals")));

  CliResult poses = Run("step", "--steps 5 --reply-parts body_poses,contact_totals");
  ASSERT_EQ(poses.exit_code, 0) << poses.output;
  EXPECT_THAT(poses.output, HasSubstr("step_count: 10"));
  // Without the diagnostics the reply does not say how many steps were taken.
  EXPECT_THAT(poses.output, Not(HasSubstr("steps_this_call")));
  EXPECT_THAT(poses.output,
              HasSubstr("contact totals over the call:\nbody 0: impulse_ns=(0, 0, 0)"));
  EXPECT_THAT(poses.output, Not(HasSubstr("v_WB_m_per_s")));
  // Fallen g h^2 (1 + 2 + ... + 10) = 0.0540 m from 0.15 m (symplectic Euler's sum).
  EXPECT_NEAR(VectorZ(poses.output, "p_WB_m"), 0.15 - 9.81 * 1e-4 * 55, 1e-6) << poses.output;

  // Only the step count and time: no body, contact or diagnostics line at all.
  CliResult joints = Run("step", "--reply-parts joint_states");
  ASSERT_EQ(joints.exit_code, 0) << joints.output;
  EXPECT_THAT(joints.output, HasSubstr("step_count: 11"));
  EXPECT_THAT(joints.output, Not(HasSubstr("body")));
  EXPECT_THAT(joints.output, Not(HasSubstr("contact")));
}

// Help says which token each command needs and lists every enumerated flag's values.
TEST_F(DriveCliTest, HelpNamesTokensAndAllowedValues) {
  CliResult step = RunCli("step --help");
  EXPECT_EQ(step.exit_code, 0) << step.output;
  EXPECT_THAT(step.output, HasSubstr("controller token (a viewer token is refused"));
  for (const char* flag : {"--force", "--torque", "--kinematic-pose", "--kinematic-velocity",
                           "--vertex-force", "--target", "--reply-parts"}) {
    EXPECT_THAT(step.output, HasSubstr(flag));
  }
  CliResult info = RunCli("info --help");
  EXPECT_THAT(info.output, HasSubstr("viewer or controller token"));
  CliResult constraint = RunCli("add-constraint --help");
  EXPECT_THAT(constraint.output, HasSubstr("pin|attachment|position-target"));
  EXPECT_THAT(constraint.output, HasSubstr("controller token"));
  CliResult create = RunCli("create --help");
  EXPECT_THAT(create.output, HasSubstr("penalty|local_global|rigid_lcp"));
  EXPECT_THAT(create.output, HasSubstr("auto|cpu|cuda"));
}

}  // namespace
}  // namespace contactsim::client::clienttest
