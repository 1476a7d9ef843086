#include "server/service/device_choice.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "contactsim/gpu/cuda_backend.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/pipeline_table.h"

namespace contactsim::server {
namespace {

// A device name as asked for: "" and "auto" are kAuto (the server chooses).
enum class Requested { kAuto, kCpu, kCuda, kUnknown };

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

Requested ParseDevice(std::string_view text) {
  if (text.empty() || text == "auto") return Requested::kAuto;
  if (text == "cpu") return Requested::kCpu;
  if (text == "cuda") return Requested::kCuda;
  return Requested::kUnknown;
}

}  // namespace

std::string_view DeviceName(DeviceKind kind) { return kind == DeviceKind::kCuda ? "cuda" : "cpu"; }

absl::StatusOr<int64_t> ParseByteSize(std::string_view text, std::string_view field) {
  const std::string original(text);
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": '", original, "' ",
                                                   std::string(why),
                                                   " (a byte count such as 1073741824, 512MiB "
                                                   "or 2GiB; suffixes B, KiB, MiB, GiB)"));
  };
  std::string_view s = Trimmed(text);
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0) return refuse("is not a non-negative integer");
  const std::string_view suffix = Trimmed(s.substr(digits));
  int shift = 0;
  if (suffix.empty() || suffix == "B") {
    shift = 0;
  } else if (suffix == "KiB") {
    shift = 10;
  } else if (suffix == "MiB") {
    shift = 20;
  } else if (suffix == "GiB") {
    shift = 30;
  } else {
    return refuse(absl::StrCat("has an unknown unit '", std::string(suffix), "'"));
  }
  int64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + digits, value);
  if (error != std::errc() || end != s.data() + digits) return refuse("is too large");
  if (value > (std::numeric_limits<int64_t>::max() >> shift)) return refuse("is too large");
  return value << shift;
}

absl::StatusOr<std::unique_ptr<DeviceChoice>> DeviceChoice::Create(const DeviceOptions& options) {
  const Requested requested = ParseDevice(options.device);
  if (requested == Requested::kUnknown || options.device.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--device: unknown '", options.device, "' (available: auto, cpu, cuda)"));
  }
  if (options.gpu_memory_budget_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--gpu-memory-budget: ", options.gpu_memory_budget_bytes, " bytes is negative"));
  }
  absl::Status cuda = gpu::CudaUsable();
  if (requested == Requested::kCuda && !cuda.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--device cuda: CUDA is not usable: ", cuda.message()));
  }
  const DeviceKind default_device = requested == Requested::kCpu                 ? DeviceKind::kCpu
                                    : requested == Requested::kCuda || cuda.ok() ? DeviceKind::kCuda
                                                                                 : DeviceKind::kCpu;
  std::shared_ptr<gpu::DeviceMemoryBudget> budget;
  if (options.gpu_memory_budget_bytes > 0) {
    budget = std::make_shared<gpu::DeviceMemoryBudget>(options.gpu_memory_budget_bytes);
  }
  return std::unique_ptr<DeviceChoice>(new DeviceChoice(
      default_device, std::move(cuda), std::move(budget), options.cuda_device_index));
}

std::string DeviceChoice::Describe() const {
  std::string line =
      absl::StrCat("sessions run on ", std::string(DeviceName(default_device_)), " by default");
  if (!cuda_status_.ok()) {
    absl::StrAppend(&line, "; CUDA is not usable (", cuda_status_.message(),
                    "): serving CPU sessions");
  } else {
    absl::StrAppend(&line, "; CUDA is usable");
    if (budget_ != nullptr) {
      absl::StrAppend(&line, ", --gpu-memory-budget ", budget_->limit_bytes(), " bytes");
    } else {
      absl::StrAppend(&line, ", no --gpu-memory-budget (the device's memory)");
    }
  }
  return line;
}

absl::StatusOr<DeviceKind> DeviceChoice::Resolve(std::string_view requested,
                                                 core::PipelineKind pipeline,
                                                 std::string_view field) const {
  const core::PipelineEntry& entry = core::PipelineEntryOf(pipeline);
  switch (ParseDevice(requested)) {
    case Requested::kUnknown:
      return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": unknown '",
                                                     std::string(requested),
                                                     "' (available: auto, cpu, cuda)"));
    case Requested::kCpu:
      return DeviceKind::kCpu;
    case Requested::kAuto:
      return entry.uses_backend ? default_device_ : DeviceKind::kCpu;
    case Requested::kCuda:
      if (!entry.uses_backend) {
        return absl::FailedPreconditionError(
            absl::StrCat(std::string(field), ": the ", std::string(entry.name),
                         " pipeline runs on the CPU only (cuda needs the local_global pipeline)"));
      }
      if (!cuda_status_.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            std::string(field), ": CUDA is not usable on this server: ", cuda_status_.message()));
      }
      return DeviceKind::kCuda;
  }
  return absl::InternalError("device: unreachable");
}

absl::StatusOr<std::shared_ptr<core::Backend>> DeviceChoice::MakeBackend(DeviceKind device) const {
  if (device == DeviceKind::kCpu) return std::make_shared<core::CpuBackend>();
  gpu::CudaBackendOptions options;
  options.device_index = cuda_device_index_;
  options.budget = budget_;
  absl::StatusOr<std::unique_ptr<core::Backend>> backend = gpu::CreateCudaBackend(options);
  if (!backend.ok()) return backend.status();
  return std::shared_ptr<core::Backend>(*std::move(backend));
}

}  // namespace contactsim::server
