// DeviceMemoryBudget (CPU-only accounting, runs everywhere) and the CUDA backend's use of it
// (skips without a device, saying why).
#include "contactsim/gpu/device_memory_budget.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "contactsim/gpu/cuda_backend.h"
#include "gtest/gtest.h"

namespace contactsim::gpu {
namespace {

TEST(DeviceMemoryBudgetTest, RefusesPastTheLimitNamingTheBudgetAndTakesNothing) {
  DeviceMemoryBudget budget(1000);
  ASSERT_TRUE(budget.Reserve(600, "body 1").ok());
  const absl::Status refused = budget.Reserve(500, "body 2");
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("--gpu-memory-budget"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("body 2"), std::string::npos) << refused;
  EXPECT_EQ(budget.used_bytes(), 600);
  ASSERT_TRUE(budget.Reserve(400, "body 3").ok());  // exactly to the limit
  EXPECT_EQ(budget.used_bytes(), 1000);
  budget.Release(600);
  budget.Release(400);
  EXPECT_EQ(budget.used_bytes(), 0);
  EXPECT_EQ(budget.Reserve(-1, "x").code(), absl::StatusCode::kInvalidArgument);
}

TEST(DeviceMemoryBudgetTest, ConcurrentReservationsNeverPassTheLimit) {
  DeviceMemoryBudget budget(64 * 1000);
  std::vector<std::thread> threads;
  std::vector<int> granted(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) granted[t] += budget.Reserve(10, "block").ok();
    });
  }
  for (std::thread& t : threads) t.join();
  int total = 0;
  for (int g : granted) total += g;
  EXPECT_EQ(total, 6400);  // 64,000 bytes in 10-byte blocks, whatever the interleaving
  EXPECT_EQ(budget.used_bytes(), 64 * 1000);
}

TEST(CudaBackendBudgetTest, AnAllocationPastTheBudgetIsRefusedAndReleasesGiveBytesBack) {
  if (absl::Status usable = CudaUsable(); !usable.ok()) {
    GTEST_SKIP() << "CUDA backend not tested here: " << usable.message();
  }
  auto budget = std::make_shared<DeviceMemoryBudget>(1 << 20);  // 1 MiB shared by two backends
  CudaBackendOptions options;
  options.budget = budget;
  auto first = CreateCudaBackend(options);
  auto second = CreateCudaBackend(options);
  ASSERT_TRUE(first.ok() && second.ok());
  auto kept = (*first)->CreateDense(256, 256);  // 512 KiB
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(budget->used_bytes(), (*first)->ResidentBytes());
  auto refused = (*second)->CreateDense(384, 256);  // 768 KiB: past the budget
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("--gpu-memory-budget"), std::string::npos);
  EXPECT_EQ((*second)->ResidentBytes(), 0);
  // The first backend is undisturbed: its block still works.
  std::vector<double> ones(256 * 256, 1.0);
  ASSERT_TRUE((*first)->UploadDense(*kept, ones).ok());
  auto dot = (*first)->Dot(*kept, *kept);
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_EQ(*dot, 256.0 * 256.0);
  // Released bytes go back: the second backend now fits.
  ASSERT_TRUE((*first)->ReleaseDense(*kept).ok());
  EXPECT_EQ(budget->used_bytes(), 0);
  EXPECT_TRUE((*second)->CreateDense(384, 256).ok());
  second->reset();  // a destroyed backend gives back everything it held
  EXPECT_EQ(budget->used_bytes(), 0);
}

}  // namespace
}  // namespace contactsim::gpu
