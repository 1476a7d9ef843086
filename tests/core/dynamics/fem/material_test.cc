// Material parameters: Lame parameters from (E, nu) and validation naming the field.
#include "core/dynamics/fem/material.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

namespace contactsim::core {
namespace {

using ::testing::HasSubstr;

TEST(MaterialTest, LameParametersFromYoungsModulusAndPoissonRatio) {
  // E = 1e6 Pa, nu = 0.25: mu = 1e6 / 2.5 = 4e5, lambda = 0.25e6 / (1.25 * 0.5) = 4e5.
  const Material m = MakeMaterial(MaterialModel::kCorotational, {1e6, 0.25, 1000.0}).value();
  EXPECT_DOUBLE_EQ(m.mu, 4e5);
  EXPECT_DOUBLE_EQ(m.lambda, 4e5);
  EXPECT_DOUBLE_EQ(m.density, 1000.0);
  EXPECT_EQ(m.model, MaterialModel::kCorotational);
  // Inverse relations E = mu (3 lambda + 2 mu) / (lambda + mu), nu = lambda / (2 (lambda + mu))
  // for another pair (round trip, relative roundoff ~1e-16).
  const Material n = MakeMaterial(MaterialModel::kNeoHookean, {1e8, 0.45, 1000.0}).value();
  EXPECT_NEAR(n.mu * (3 * n.lambda + 2 * n.mu) / (n.lambda + n.mu), 1e8, 1e8 * 1e-14);
  EXPECT_NEAR(n.lambda / (2 * (n.lambda + n.mu)), 0.45, 1e-14);
}

TEST(MaterialTest, PlaneStressLambda) {
  // 2 mu lambda / (lambda + 2 mu) with mu = lambda = 4e5: 2 * 16e10 / 12e5.
  EXPECT_DOUBLE_EQ(PlaneStressLambda(4e5, 4e5), 2.0 * 4e5 * 4e5 / 12e5);
}

TEST(MaterialTest, RejectsInvalidParametersNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    MaterialParameters params;
    const char* field;
  };
  const Case cases[] = {
      {{0.0, 0.3, 1000.0}, "youngs_modulus"}, {{-1.0, 0.3, 1000.0}, "youngs_modulus"},
      {{nan, 0.3, 1000.0}, "youngs_modulus"}, {{1e5, 0.5, 1000.0}, "poisson_ratio"},
      {{1e5, -1.0, 1000.0}, "poisson_ratio"}, {{1e5, 0.7, 1000.0}, "poisson_ratio"},
      {{1e5, nan, 1000.0}, "poisson_ratio"},  {{1e5, 0.3, 0.0}, "density"},
      {{1e5, 0.3, -5.0}, "density"},          {{1e5, 0.3, nan}, "density"},
  };
  for (const Case& c : cases) {
    const absl::StatusOr<Material> m = MakeMaterial(MaterialModel::kArap, c.params);
    ASSERT_FALSE(m.ok()) << c.field;
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(m.status().message()), HasSubstr(c.field));
  }
  // The open interval's inner edges are accepted.
  EXPECT_TRUE(MakeMaterial(MaterialModel::kArap, {1e5, -0.99, 1.0}).ok());
  EXPECT_TRUE(MakeMaterial(MaterialModel::kArap, {1e5, 0.499, 1.0}).ok());
}

}  // namespace
}  // namespace contactsim::core
