#include "server/convert/settings_scope.h"

#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/sim/pipeline_table.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace contactsim::server {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

constexpr std::string_view kCommon[] = {"dt_s", "gravity_m_per_s2", "energy_growth_factor"};
constexpr std::string_view kPenalty[] = {"contact_model", "stiffness_n_per_m",   "min_separation_m",
                                         "friction",      "contact_restitution", "self_collision"};
constexpr std::string_view kLocalGlobal[] = {"local_global", "self_collision"};
constexpr std::string_view kRigidLcp[] = {"rigid_lcp"};

std::span<const std::string_view> OwnFields(core::PipelineKind pipeline) {
  switch (pipeline) {
    case core::PipelineKind::kPenalty:
      return kPenalty;
    case core::PipelineKind::kLocalGlobal:
      return kLocalGlobal;
    case core::PipelineKind::kRigidLcp:
      return kRigidLcp;
  }
  return {};
}

bool Contains(std::span<const std::string_view> names, std::string_view name) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

// The path of the first field set in `message` (depth first, field number order), relative to
// it; empty when nothing is set.
std::string FirstSetField(const Message& message) {
  std::vector<const FieldDescriptor*> fields;
  message.GetReflection()->ListFields(message, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->type() != FieldDescriptor::TYPE_MESSAGE || f->is_repeated()) return f->name();
    const std::string inner = FirstSetField(message.GetReflection()->GetMessage(message, f));
    if (!inner.empty()) return absl::StrCat(f->name(), ".", inner);
  }
  return "";
}

}  // namespace

bool SettingAppliesTo(std::string_view field_name, core::PipelineKind pipeline) {
  return Contains(kCommon, field_name) || Contains(OwnFields(pipeline), field_name);
}

absl::Status CheckSettingsApply(const v1::WorldSettings& message, core::PipelineKind pipeline,
                                std::string_view field) {
  std::vector<const FieldDescriptor*> fields;
  message.GetReflection()->ListFields(message, &fields);
  for (const FieldDescriptor* f : fields) {
    if (SettingAppliesTo(f->name(), pipeline)) continue;
    // A nested message counts as set only when one of its members is.
    std::string path = f->name();
    if (f->type() == FieldDescriptor::TYPE_MESSAGE) {
      const std::string inner = FirstSetField(message.GetReflection()->GetMessage(message, f));
      if (inner.empty()) continue;
      path = absl::StrCat(path, ".", inner);
    }
    std::vector<std::string> reads(std::begin(kCommon), std::end(kCommon));
    for (std::string_view own : OwnFields(pipeline)) reads.emplace_back(own);
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ".", path, ": does not apply to the ",
                     std::string(core::PipelineName(pipeline)), " pipeline (it reads settings ",
                     absl::StrJoin(reads, ", "), ")"));
  }
  return absl::OkStatus();
}

}  // namespace contactsim::server
