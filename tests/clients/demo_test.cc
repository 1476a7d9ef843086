// `contactsim-demo` end to end: it starts the real server binary, steps its default scene with a
// viewer watching, stops the server with SIGTERM, and writes its CSVs and SVG plot. Checks the
// exit code, the files, and that the impulse totals are physical.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace contactsim::client {
namespace {

using ::testing::HasSubstr;

struct DemoRun {
  int exit_code = -1;
  std::string output;
};

DemoRun RunDemo(const std::string& args) {
  const std::string command = std::string(CONTACTSIM_DEMO_PATH) + " " + args + " 2>&1";
  DemoRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream stream(line);
  std::string cell;
  while (std::getline(stream, cell, ',')) cells.push_back(cell);
  return cells;
}

// impulses.csv: one map of column -> value per body name.
std::map<std::string, std::map<std::string, double>> ReadImpulses(
    const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  const std::vector<std::string> header = SplitCsvLine(line);
  std::map<std::string, std::map<std::string, double>> bodies;
  while (std::getline(file, line)) {
    const std::vector<std::string> cells = SplitCsvLine(line);
    if (cells.size() != header.size()) continue;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (header[i] != "name") bodies[cells[1]][header[i]] = std::stod(cells[i]);
    }
  }
  return bodies;
}

class DemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::filesystem::path(::testing::TempDir()) /
           ("contactsim_demo_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(out_);
  }
  void TearDown() override { std::filesystem::remove_all(out_); }
  std::filesystem::path out_;
};

TEST_F(DemoTest, RunsEndToEndAndWritesPhysicalTotals) {
  const DemoRun run = RunDemo("--steps 200 --out " + out_.string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("SIGTERM, exit code 0"));
  EXPECT_THAT(run.output, HasSubstr("Step round trip"));

  // The viewer's contact forces: a header and at least one frame's row with every column.
  std::ifstream csv(out_ / "contact_forces.csv");
  std::string header, row;
  ASSERT_TRUE(std::getline(csv, header)) << run.output;
  EXPECT_THAT(header, HasSubstr("time_s,step,seq,coalesced,contact_pairs"));
  int rows = 0;
  while (std::getline(csv, row)) {
    EXPECT_EQ(SplitCsvLine(row).size(), SplitCsvLine(header).size()) << row;
    ++rows;
  }
  EXPECT_GT(rows, 0);

  const std::string svg = ReadFile(out_ / "contact_forces.svg");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 80);
  ASSERT_GE(svg.size(), 7u);
  EXPECT_EQ(svg.substr(svg.find_last_not_of("\n") - 5, 6), "</svg>");
  EXPECT_THAT(svg, HasSubstr("<polyline"));

  // The demo's scene (clients/cpp/demo/demo_scene.h): 1 kg boxes, dt = 1 ms, so 200 steps are
  // T = 0.2 s. A resting box's momentum balance over the run is m v_z(T) - 0 = J_z - m g T; it
  // lands 0.5 mm down at about 10 ms and CPF damps the bounce by a factor 0.89 per step
  // (s = (omega dt)^2 = 0.4; 0.89^190 ~ 1e-10), so v_z(T) is negligible and J_z = m g T = 1.962
  // N*s. The 1 % tolerance (0.02 N*s) is a fifth of the landing momentum m sqrt(2 g h) = 0.099 N*s,
  // so a missed or doubled landing impulse fails.
  const double m_g_t = 1.0 * 9.81 * 0.2;
  const auto bodies = ReadImpulses(out_ / "impulses.csv");
  ASSERT_EQ(bodies.size(), 3u) << ReadFile(out_ / "impulses.csv");
  for (const char* name : {"resting_box_a", "resting_box_b"}) {
    ASSERT_TRUE(bodies.count(name)) << name;
    const auto& b = bodies.at(name);
    EXPECT_NEAR(b.at("mass_kg"), 1.0, 1e-9) << name;
    EXPECT_NEAR(b.at("normal_z_ns"), m_g_t, 0.01 * m_g_t) << name;
    // The plane's normal is +z: no horizontal normal impulse; nothing pushes the box sideways,
    // so friction stays far below the Coulomb bound.
    EXPECT_NEAR(b.at("normal_x_ns"), 0.0, 1e-9) << name;
    EXPECT_NEAR(b.at("normal_y_ns"), 0.0, 1e-9) << name;
    EXPECT_LT(std::hypot(b.at("friction_x_ns"), b.at("friction_y_ns")), 0.01 * m_g_t) << name;
  }
  // The pushed box: the PD force drives it towards +x, so friction acts along -x, and the
  // friction impulse stays within the static Coulomb bound mu_s J_n (mu_s = 0.5).
  ASSERT_TRUE(bodies.count("pushed_box"));
  const auto& pushed = bodies.at("pushed_box");
  EXPECT_LT(pushed.at("friction_x_ns"), 0.0);
  EXPECT_LE(std::hypot(pushed.at("friction_x_ns"), pushed.at("friction_y_ns")),
            0.5 * pushed.at("normal_z_ns"));
  EXPECT_GT(pushed.at("normal_z_ns"), 0.5 * m_g_t);
}

TEST_F(DemoTest, MissingServerBinaryFailsWithAMessage) {
  const DemoRun run =
      RunDemo("--steps 10 --out " + out_.string() + " --server-binary /nonexistent/server");
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("the server failed to start"));
  EXPECT_THAT(run.output, HasSubstr("/nonexistent/server"));
}

}  // namespace
}  // namespace contactsim::client
