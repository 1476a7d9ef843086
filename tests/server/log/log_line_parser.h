// Readers of the server's log lines for the tests, written from docs/logging.md and not from the
// renderer: a strict logfmt parser (this file) and JSON through protobuf's parser into a
// google.protobuf.Struct (protobuf is linked already; no JSON library added for a test).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace contactsim::server::logtest {

using LogfmtFields = std::vector<std::pair<std::string, std::string>>;

inline void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3f)));
  }
}

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // the format writes lowercase hex only
}

// `key=value` pairs separated by one space, keys [a-z0-9_]+, values bare (no space, '"', '=',
// '\' or control byte) or quoted with the escapes \" \\ \n \r \t \xNN \uNNNN. Anything else is
// an error saying where; the fields come back in line order with their values unescaped.
inline absl::StatusOr<LogfmtFields> ParseLogfmtLine(std::string_view line) {
  LogfmtFields fields;
  size_t i = 0;
  const auto fail = [&](std::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("logfmt: ", std::string(what), " at byte ", i));
  };
  while (i < line.size()) {
    if (!fields.empty()) {
      if (line[i] != ' ') return fail("no space between fields");
      ++i;
    }
    std::string key;
    while (i < line.size() && ((line[i] >= 'a' && line[i] <= 'z') ||
                               (line[i] >= '0' && line[i] <= '9') || line[i] == '_')) {
      key.push_back(line[i++]);
    }
    if (key.empty()) return fail("no key");
    if (i >= line.size() || line[i] != '=') return fail("no '=' after the key");
    ++i;
    std::string value;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) return fail("unterminated quoted value");
        const auto c = static_cast<unsigned char>(line[i]);
        if (c == '"') break;
        if (c < 0x20 || c == 0x7f) return fail("raw control byte in a quoted value");
        if (c != '\\') {
          value.push_back(line[i++]);
          continue;
        }
        if (++i >= line.size()) return fail("dangling backslash");
        const char e = line[i++];
        if (e == '"' || e == '\\') {
          value.push_back(e);
        } else if (e == 'n') {
          value.push_back('\n');
        } else if (e == 'r') {
          value.push_back('\r');
        } else if (e == 't') {
          value.push_back('\t');
        } else if (e == 'x' || e == 'u') {
          const size_t digits = e == 'x' ? 2 : 4;
          if (i + digits > line.size()) return fail("short escape");
          char32_t code = 0;
          for (size_t k = 0; k < digits; ++k) {
            const int d = HexDigit(line[i + k]);
            if (d < 0) return fail("bad hex digit");
            code = code * 16 + d;
          }
          i += digits;
          if (e == 'x') {
            value.push_back(static_cast<char>(code));
          } else {
            AppendUtf8(code, &value);
          }
        } else {
          return fail("unknown escape");
        }
      }
      ++i;  // the closing quote
    } else {
      while (i < line.size() && line[i] != ' ') {
        const auto c = static_cast<unsigned char>(line[i]);
        if (c < 0x20 || c == 0x7f || c == '"' || c == '=' || c == '\\') {
          return fail("a bare value holds a byte that needs quoting");
        }
        value.push_back(line[i++]);
      }
      if (value.empty()) return fail("empty bare value");
    }
    for (const auto& [seen, unused] : fields) {
      if (seen == key) return fail(absl::StrCat("key '", key, "' twice"));
    }
    fields.emplace_back(std::move(key), std::move(value));
  }
  if (fields.empty()) return fail("no field");
  return fields;
}

// The value of `key`, or nullptr.
inline const std::string* Find(const LogfmtFields& fields, std::string_view key) {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

// One JSON object (RFC 8259) as a Struct; an error for anything else.
inline absl::StatusOr<google::protobuf::Struct> ParseJsonLine(std::string_view line) {
  google::protobuf::Struct object;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(line.data(), line.size()), &object);
  if (!status.ok()) return absl::InvalidArgumentError(absl::StrCat("json: ", status.ToString()));
  return object;
}

}  // namespace contactsim::server::logtest
