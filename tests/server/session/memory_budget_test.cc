// MemoryBudget::HeadroomOf (server/session/memory_budget.h): what an account could still reserve,
// and which budget leaves it, worked out by hand; a reservation of exactly the headroom fits and
// one byte more is refused.
#include "server/session/memory_budget.h"

#include <memory>

#include "gtest/gtest.h"

namespace contactsim::server {
namespace {

TEST(MemoryBudgetTest, HeadroomIsTheSmallerRoomAndNamesItsBudget) {
  MemoryBudget budget(/*server_bytes=*/1000, /*session_bytes=*/400);
  auto a = std::make_shared<MemoryBudget::Account>();
  auto b = std::make_shared<MemoryBudget::Account>();
  budget.Charge(*a, 100);
  auto held = budget.Reserve(a, 50, "body");
  ASSERT_TRUE(held.ok());
  // Session cap: 400 - 100 - 50 = 250; server: 1000 - 150 = 850.
  MemoryBudget::Headroom room = budget.HeadroomOf(*a);
  EXPECT_EQ(room.bytes, 250);
  EXPECT_EQ(room.flag, "--session-memory-budget");
  EXPECT_FALSE(budget.Reserve(a, 251, "body").ok());
  EXPECT_TRUE(budget.Reserve(a, 250, "body").ok());  // released at once

  // Another session holding 700: the server has 1000 - 850 = 150 left, less than a's 250.
  budget.Charge(*b, 700);
  room = budget.HeadroomOf(*a);
  EXPECT_EQ(room.bytes, 150);
  EXPECT_EQ(room.flag, "--memory-budget");
  EXPECT_EQ(room.budget, "the server's memory budget");

  // Over-committed (charged after the fact): no room, never negative.
  budget.Charge(*b, 2000);
  EXPECT_EQ(budget.HeadroomOf(*a).bytes, 0);
}

TEST(MemoryBudgetTest, NoBudgetLeavesNoLimit) {
  MemoryBudget budget(0, 0);
  auto a = std::make_shared<MemoryBudget::Account>();
  budget.Charge(*a, 12345);
  EXPECT_LT(budget.HeadroomOf(*a).bytes, 0);
}

}  // namespace
}  // namespace contactsim::server
