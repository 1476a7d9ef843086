// One structured log record: an event name and typed key/value fields, rendered by
// log_render.h as exactly one line (logfmt or JSON) whatever bytes its values hold. The server
// logs only through records (structured_log.h), so a client's string can never start a line of
// its own. docs/logging.md lists the events and their fields.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"

namespace contactsim::server::log {

// Text (any bytes), an integer, a real or a flag.
using FieldValue = std::variant<std::string, int64_t, double, bool>;

struct Field {
  std::string key;
  FieldValue value;
};

class Record {
 public:
  // Event and keys are names the code chooses: any byte outside [a-z0-9_] becomes '_' so that
  // neither needs quoting in either format (FieldKey).
  explicit Record(std::string_view event);

  Record& Add(std::string_view key, std::string_view value);
  Record& Add(std::string_view key, const char* value) { return Add(key, std::string_view(value)); }
  Record& Add(std::string_view key, const std::string& value) {
    return Add(key, std::string_view(value));
  }
#ifndef ABSL_USES_STD_STRING_VIEW
  // Debian's Abseil has its own string_view (absl::Status::message()).
  Record& Add(std::string_view key, absl::string_view value) {
    return Add(key, std::string_view(value.data(), value.size()));
  }
#endif
  Record& Add(std::string_view key, bool value);
  Record& Add(std::string_view key, double value);
  template <std::integral T>
  requires(!std::same_as<T, bool>) Record& Add(std::string_view key, T value) {
    return AddInteger(key, static_cast<int64_t>(value));
  }
  // A failure as two fields: `code` (e.g. INVALID_ARGUMENT) and `error` (its message, which may
  // quote a client's input: it is escaped like every value).
  Record& AddStatus(const absl::Status& status);

  const std::string& event() const { return event_; }
  const std::vector<Field>& fields() const { return fields_; }

 private:
  Record& AddInteger(std::string_view key, int64_t value);

  std::string event_;
  std::vector<Field> fields_;
};

// The event or key as it is rendered: bytes outside [a-z0-9_] replaced by '_' ("_" when empty).
std::string SanitizedName(std::string_view name);
// A field's key as it is rendered: SanitizedName, and the names of the line's own fields (ts,
// level, logger, event) prefixed with '_'.
std::string FieldKey(std::string_view key);

}  // namespace contactsim::server::log
