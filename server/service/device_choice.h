// DeviceChoice: where the server's sessions run (docs/service.md, "Devices"). Resolves the
// server's --device flag once at start-up (auto: CUDA when gpu::CudaUsable() is OK, else the CPU;
// cuda: refused at start-up when CUDA is not usable), owns the one DeviceMemoryBudget of
// --gpu-memory-budget that every CUDA backend it makes shares, and makes each new session's
// Backend from the request's `device` field ("", "auto", "cpu", "cuda").
//
// Each session gets a backend of its own (a CpuBackend, or a CudaBackend with its own stream):
// a Backend is one caller at a time, and a session's work runs on its strand, one task at a time.
// Only the pipelines that use a backend (core/sim/pipeline_table.h, PipelineEntry::uses_backend:
// local_global) run on CUDA; the others run on the CPU ("auto" gives "cpu" for them).
// Thread-safe after Create.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "contactsim/gpu/device_memory_budget.h"
#include "core/linalg/backend.h"
#include "core/sim/world_settings.h"

namespace contactsim::server {

enum class DeviceKind { kCpu, kCuda };

// "cpu" or "cuda".
std::string_view DeviceName(DeviceKind kind);

struct DeviceOptions {
  std::string device = "auto";  // --device: auto, cpu or cuda
  // --gpu-memory-budget: device bytes all CUDA sessions may hold together; 0: no budget beyond
  // the device's own memory.
  int64_t gpu_memory_budget_bytes = 0;
  int cuda_device_index = 0;
};

// A byte count: a plain non-negative integer, or one with a binary suffix KiB, MiB or GiB
// ("512MiB", "2 GiB"; also bytes "B"). InvalidArgument naming `field` otherwise, or on overflow.
absl::StatusOr<int64_t> ParseByteSize(std::string_view text, std::string_view field);

class DeviceChoice {
 public:
  // InvalidArgument naming "--device" for an unknown value or "--gpu-memory-budget" for a negative
  // one; FailedPrecondition for "cuda" when CUDA is not usable, with the reason.
  static absl::StatusOr<std::unique_ptr<DeviceChoice>> Create(const DeviceOptions& options);

  // The server's default device ("auto" resolved at start-up).
  DeviceKind default_device() const { return default_device_; }
  // Why CUDA is not usable (OK when it is).
  const absl::Status& cuda_status() const { return cuda_status_; }
  // One line for the start-up log: the choice and, when CUDA is not usable, why.
  std::string Describe() const;
  // Null without a budget.
  const std::shared_ptr<gpu::DeviceMemoryBudget>& budget() const { return budget_; }

  // The device a session asking for `requested` runs on ("" and "auto": the server's default,
  // the CPU for a pipeline that does not use a backend). InvalidArgument naming `field` for an
  // unknown value; FailedPrecondition for "cuda" when CUDA is not usable (the reason) or the
  // pipeline runs on the CPU only (naming it).
  absl::StatusOr<DeviceKind> Resolve(std::string_view requested, core::PipelineKind pipeline,
                                     std::string_view field) const;
  // A new backend on that device for one session. The CUDA backend's errors pass through
  // (ResourceExhausted naming the budget, Internal naming the CUDA call).
  absl::StatusOr<std::shared_ptr<core::Backend>> MakeBackend(DeviceKind device) const;

 private:
  DeviceChoice(DeviceKind default_device, absl::Status cuda_status,
               std::shared_ptr<gpu::DeviceMemoryBudget> budget, int cuda_device_index)
      : default_device_(default_device),
        cuda_status_(std::move(cuda_status)),
        budget_(std::move(budget)),
        cuda_device_index_(cuda_device_index) {}

  const DeviceKind default_device_;
  const absl::Status cuda_status_;
  const std::shared_ptr<gpu::DeviceMemoryBudget> budget_;
  const int cuda_device_index_;
};

}  // namespace contactsim::server
