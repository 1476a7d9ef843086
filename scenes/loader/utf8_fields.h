// Protocol Buffers string fields must hold UTF-8: a message whose strings do not (text format
// escapes such as "\377" make any bytes) cannot be sent, and a server's gRPC refuses it without
// saying why. These find the first such field, by its path, before a message is sent.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/message.h"

namespace contactsim::scenes {

// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool IsValidUtf8(std::string_view bytes);

// InvalidArgument "<prefix><path>: not UTF-8 text" for the first string field (in field order,
// depth first) that holds something else, e.g. "bodies[2].name: ..."; OK otherwise.
absl::Status CheckUtf8Strings(const google::protobuf::Message& message, std::string_view prefix);

}  // namespace contactsim::scenes
