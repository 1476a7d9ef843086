#include "core/math/all_finite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace contactsim::core {
namespace {

using Limits = std::numeric_limits<double>;

// Every class of double: the answer must be std::isfinite's, alone and at any position of an
// otherwise finite array (the bit trick must not depend on neighbours or on the count).
TEST(AllFiniteTest, AgreesWithIsFiniteForEveryClassOfValue) {
  const std::vector<double> values = {0.0,
                                      -0.0,
                                      1.0,
                                      -3.5e-7,
                                      Limits::min(),
                                      Limits::denorm_min(),
                                      -Limits::denorm_min(),
                                      Limits::max(),
                                      -Limits::max(),
                                      std::nextafter(Limits::max(), 0.0),
                                      Limits::infinity(),
                                      -Limits::infinity(),
                                      Limits::quiet_NaN(),
                                      -Limits::quiet_NaN(),
                                      Limits::signaling_NaN()};
  for (const double value : values) {
    EXPECT_EQ(AllFinite(&value, 1), std::isfinite(value)) << value;
    for (const size_t count : {2u, 7u, 33u}) {
      for (size_t at = 0; at < count; at += 3) {
        std::vector<double> array(count, 1.25);
        array[at] = value;
        EXPECT_EQ(AllFinite(array.data(), array.size()), std::isfinite(value))
            << value << " at " << at << " of " << count;
      }
    }
  }
}

TEST(AllFiniteTest, EmptyArrayIsFinite) { EXPECT_TRUE(AllFinite(nullptr, 0)); }

TEST(AllFiniteTest, ManyFiniteValuesWithOneInfinityAtTheEnd) {
  std::vector<double> array(10001);
  for (size_t i = 0; i < array.size(); ++i)
    array[i] = std::ldexp(1.0 + i, static_cast<int>(i % 2000) - 1000);
  EXPECT_TRUE(AllFinite(array.data(), array.size()));
  array.back() = -Limits::infinity();
  EXPECT_FALSE(AllFinite(array.data(), array.size()));
}

}  // namespace
}  // namespace contactsim::core
