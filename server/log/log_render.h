// A Record rendered as one line (no byte below 0x20 in it, and no Unicode line or paragraph
// separator), in one of two formats (docs/logging.md):
//   text: logfmt, `ts=... level=info logger=contactsim event=session_created session=s-1 name="a
//   b"`.
//         A value is bare unless it is empty or holds a space, '"', '=', '\' or a byte that is
//         escaped; quoted values escape '"' '\' as \" \\, \n \r \t, other control bytes and
//         bytes that are not UTF-8 as \xNN, and the invisible breaks and direction overrides
//         (U+0080-U+009F, U+2028, U+2029, U+202A-U+202E, U+2066-U+2069) as \uXXXX. Lossless.
//   json: one RFC 8259 object per line, `{"ts":"...","level":"info",...}`; control bytes and the
//         same invisible code points as \uXXXX, every byte that is not part of valid UTF-8 as
//         \ufffd (U+FFFD, the replacement character; the text format keeps those bytes).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "server/log/log_record.h"

namespace contactsim::server::log {

enum class LogFormat { kText, kJson };

// "text" or "json"; anything else is InvalidArgument naming --log-format.
absl::StatusOr<LogFormat> ParseLogFormat(std::string_view name);

// The record's fields, event first: `event=x k=v ...` (text) or `"event":"x","k":v,...` (json).
std::string RenderFields(const Record& record, LogFormat format);

// A whole line (without its newline): the timestamp, level and logger fields, then `fields`
// as RenderFields made them.
std::string RenderLine(std::string_view ts, std::string_view level, std::string_view logger,
                       std::string_view fields, LogFormat format);

// One value, escaped (and quoted when needed) for logfmt, or as a JSON string with its quotes.
void AppendLogfmtValue(std::string_view value, std::string* out);
void AppendJsonString(std::string_view value, std::string* out);

}  // namespace contactsim::server::log
