#include "scenes/loader/utf8_fields.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace contactsim::scenes {

bool IsValidUtf8(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    const auto byte = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
    const uint8_t lead = byte(i);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    int length = 0;
    uint32_t code_point = 0;
    if ((lead & 0xe0) == 0xc0) {
      length = 2;
      code_point = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3;
      code_point = lead & 0x0f;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4;
      code_point = lead & 0x07;
    } else {
      return false;  // a continuation byte or 0xf8..0xff where a character starts
    }
    if (i + length > bytes.size()) return false;
    for (int k = 1; k < length; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return false;
      code_point = (code_point << 6) | (byte(i + k) & 0x3f);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code_point < kSmallest[length] || code_point > 0x10ffff ||
        (code_point >= 0xd800 && code_point <= 0xdfff)) {
      return false;
    }
    i += length;
  }
  return true;
}

namespace {

absl::Status Walk(const google::protobuf::Message& message, const std::string& path) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    const std::string name = path.empty() ? field->name() : absl::StrCat(path, ".", field->name());
    const bool is_string = field->type() == google::protobuf::FieldDescriptor::TYPE_STRING;
    const bool is_message = field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE;
    if (!is_string && !is_message) continue;
    const int count = field->is_repeated() ? reflection->FieldSize(message, field) : 1;
    for (int i = 0; i < count; ++i) {
      const std::string element = field->is_repeated() ? absl::StrCat(name, "[", i, "]") : name;
      if (is_string) {
        const std::string value = field->is_repeated()
                                      ? reflection->GetRepeatedString(message, field, i)
                                      : reflection->GetString(message, field);
        if (!IsValidUtf8(value)) {
          return absl::InvalidArgumentError(absl::StrCat(element, ": not UTF-8 text"));
        }
      } else {
        const google::protobuf::Message& child =
            field->is_repeated() ? reflection->GetRepeatedMessage(message, field, i)
                                 : reflection->GetMessage(message, field);
        if (absl::Status status = Walk(child, element); !status.ok()) return status;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckUtf8Strings(const google::protobuf::Message& message, std::string_view prefix) {
  const absl::Status status = Walk(message, "");
  if (status.ok()) return status;
  return absl::InvalidArgumentError(absl::StrCat(std::string(prefix), status.message()));
}

}  // namespace contactsim::scenes
