#include "clients/cpp/cli/reply_parts_flag.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace contactsim::client::cli {

std::string ReplyPartNames() {
  const google::protobuf::Descriptor* parts = v1::StepReplyParts::descriptor();
  std::vector<std::string> names;
  for (int i = 0; i < parts->field_count(); ++i) names.push_back(parts->field(i)->name());
  return absl::StrJoin(names, ",");
}

absl::StatusOr<v1::StepReplyParts> ReplyPartsFromFlag(const std::string& value) {
  v1::StepReplyParts parts;
  const google::protobuf::Descriptor* descriptor = v1::StepReplyParts::descriptor();
  const google::protobuf::Reflection* reflection = v1::StepReplyParts::GetReflection();
  for (absl::string_view name : absl::StrSplit(value, ',')) {
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--reply-parts: no part named in '", value,
                                                     "' (parts: ", ReplyPartNames(), ")"));
    }
    const google::protobuf::FieldDescriptor* field = descriptor->FindFieldByName(std::string(name));
    // Every field of StepReplyParts is a bool part; anything else would be a proto change to see.
    if (field == nullptr || field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_BOOL) {
      return absl::InvalidArgumentError(
          absl::StrCat("--reply-parts: unknown part '", name, "' (parts: ", ReplyPartNames(), ")"));
    }
    reflection->SetBool(&parts, field, true);
  }
  return parts;
}

}  // namespace contactsim::client::cli
