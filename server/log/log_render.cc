#include "server/log/log_render.h"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "fmt/format.h"

namespace contactsim::server::log {
namespace {

// The length of the valid UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) with its code point, or 0 when the byte there does not
// start one.
size_t Utf8SequenceAt(std::string_view text, size_t i, char32_t* code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the allowed range of the second byte
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  } else if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong below U+0800
    if (lead == 0xed) high = 0x9f;  // surrogates U+D800-U+DFFF
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong below U+10000
    if (lead == 0xf4) high = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  char32_t value = lead & (0x7f >> length);
  for (size_t k = 1; k < length; ++k) {
    if (k > 1 && (byte(k) & 0xc0) != 0x80) return 0;
    value = (value << 6) | (byte(k) & 0x3f);
  }
  *code_point = value;
  return length;
}

// Code points a terminal or an editor may show as a line break, or that reorder what follows:
// escaped in both formats so that a line reads as what it is.
bool IsInvisibleBreakOrOverride(char32_t c) {
  return (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

bool IsControlByte(unsigned char byte) { return byte < 0x20 || byte == 0x7f; }

// The two-character escapes both formats share, or nullptr.
const char* ShortEscape(unsigned char byte) {
  switch (byte) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return nullptr;
  }
}

// Appends the logfmt escape of `value` (without quotes); returns whether anything was escaped.
bool AppendLogfmtEscaped(std::string_view value, std::string* out) {
  bool escaped = false;
  for (size_t i = 0; i < value.size();) {
    const auto byte = static_cast<unsigned char>(value[i]);
    char32_t code_point = 0;
    const size_t length = Utf8SequenceAt(value, i, &code_point);
    if (length == 0) {
      absl::StrAppendFormat(out, "\\x%02x", byte);
      escaped = true;
      ++i;
      continue;
    }
    if (length == 1) {
      if (const char* short_escape = ShortEscape(byte)) {
        out->append(short_escape);
        escaped = true;
      } else if (IsControlByte(byte)) {
        absl::StrAppendFormat(out, "\\x%02x", byte);
        escaped = true;
      } else {
        out->push_back(static_cast<char>(byte));
      }
    } else if (IsInvisibleBreakOrOverride(code_point)) {
      absl::StrAppendFormat(out, "\\u%04x", static_cast<uint32_t>(code_point));
      escaped = true;
    } else {
      out->append(value.substr(i, length));
    }
    i += length;
  }
  return escaped;
}

void AppendValue(const FieldValue& value, LogFormat format, std::string* out) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          if (format == LogFormat::kJson) {
            AppendJsonString(v, out);
          } else {
            AppendLogfmtValue(v, out);
          }
        } else if constexpr (std::is_same_v<T, bool>) {
          out->append(v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, int64_t>) {
          absl::StrAppend(out, v);
        } else if (std::isfinite(v)) {
          // The shortest text that reads back as the same double.
          fmt::format_to(std::back_inserter(*out), "{}", v);
        } else {
          // JSON has no NaN or infinity: those are strings there.
          const char* name = std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
          if (format == LogFormat::kJson) {
            AppendJsonString(name, out);
          } else {
            out->append(name);
          }
        }
      },
      value);
}

void AppendField(std::string_view key, const FieldValue& value, LogFormat format,
                 std::string* out) {
  if (format == LogFormat::kJson) {
    if (!out->empty()) out->push_back(',');
    AppendJsonString(key, out);
    out->push_back(':');
  } else {
    if (!out->empty()) out->push_back(' ');
    out->append(key);
    out->push_back('=');
  }
  AppendValue(value, format, out);
}

}  // namespace

absl::StatusOr<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("--log-format: '", std::string(name), "' is not text or json"));
}

void AppendLogfmtValue(std::string_view value, std::string* out) {
  std::string escaped;
  const bool changed = AppendLogfmtEscaped(value, &escaped);
  const bool quoted = changed || value.empty() || value.find_first_of(" =") != value.npos;
  if (quoted) out->push_back('"');
  out->append(escaped);
  if (quoted) out->push_back('"');
}

void AppendJsonString(std::string_view value, std::string* out) {
  out->push_back('"');
  for (size_t i = 0; i < value.size();) {
    const auto byte = static_cast<unsigned char>(value[i]);
    char32_t code_point = 0;
    const size_t length = Utf8SequenceAt(value, i, &code_point);
    if (length == 0) {
      out->append("\\ufffd");
      ++i;
      continue;
    }
    if (length == 1) {
      if (const char* short_escape = ShortEscape(byte)) {
        out->append(short_escape);
      } else if (IsControlByte(byte)) {
        absl::StrAppendFormat(out, "\\u%04x", byte);
      } else {
        out->push_back(static_cast<char>(byte));
      }
    } else if (IsInvisibleBreakOrOverride(code_point)) {
      absl::StrAppendFormat(out, "\\u%04x", static_cast<uint32_t>(code_point));
    } else {
      out->append(value.substr(i, length));
    }
    i += length;
  }
  out->push_back('"');
}

std::string RenderFields(const Record& record, LogFormat format) {
  std::string out;
  AppendField("event", FieldValue(record.event()), format, &out);
  for (const Field& field : record.fields()) AppendField(field.key, field.value, format, &out);
  return out;
}

std::string RenderLine(std::string_view ts, std::string_view level, std::string_view logger,
                       std::string_view fields, LogFormat format) {
  // AppendField puts a separator before every field but the first of its string.
  std::string header;
  AppendField("ts", FieldValue(std::string(ts)), format, &header);
  AppendField("level", FieldValue(std::string(level)), format, &header);
  AppendField("logger", FieldValue(std::string(logger)), format, &header);
  std::string out;
  if (format == LogFormat::kJson) out.push_back('{');
  out.append(header);
  if (!fields.empty()) {
    out.push_back(format == LogFormat::kJson ? ',' : ' ');
    out.append(fields);
  }
  if (format == LogFormat::kJson) out.push_back('}');
  return out;
}

}  // namespace contactsim::server::log
