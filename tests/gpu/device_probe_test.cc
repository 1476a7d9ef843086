#include "contactsim/gpu/device_probe.h"

#include <gtest/gtest.h>

namespace contactsim::gpu {
namespace {

TEST(DeviceProbe, ReportsDevicesOrSaysWhyNot) {
  auto devices = ProbeDevices();
#ifdef CONTACTSIM_HAVE_CUDA
  ASSERT_TRUE(devices.ok()) << devices.status();
  if (devices->empty()) GTEST_SKIP() << "CUDA build, but no CUDA device on this machine";
  for (const DeviceInfo& device : *devices) {
    EXPECT_FALSE(device.name.empty());
    EXPECT_GE(device.compute_capability_major, 5) << Describe(device);
    EXPECT_GT(device.total_memory_bytes, 0) << Describe(device);
    EXPECT_GT(device.multiprocessor_count, 0) << Describe(device);
  }
#else
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(devices.status().message().find("without CUDA"), std::string::npos);
#endif
}

TEST(DeviceProbe, DescribeNamesArchitectureAndMemory) {
  DeviceInfo device;
  device.name = "Test GPU";
  device.compute_capability_major = 9;
  device.compute_capability_minor = 0;
  device.total_memory_bytes = int64_t{80} * 1024 * 1024 * 1024;
  device.multiprocessor_count = 132;
  EXPECT_EQ(Describe(device), "Test GPU (sm_90, 80.0 GiB, 132 SMs)");
}

}  // namespace
}  // namespace contactsim::gpu
