#include "server/log/log_record.h"

#include <utility>

namespace contactsim::server::log {

std::string SanitizedName(std::string_view name) {
  if (name.empty()) return "_";
  std::string out(name);
  for (char& c : out) {
    const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!allowed) c = '_';
  }
  return out;
}

std::string FieldKey(std::string_view key) {
  std::string name = SanitizedName(key);
  // The line's own fields keep their meaning: a record's "level" cannot pose as the line's.
  for (std::string_view reserved : {"ts", "level", "logger", "event"}) {
    if (name == reserved) return "_" + name;
  }
  return name;
}

Record::Record(std::string_view event) : event_(SanitizedName(event)) {}

Record& Record::Add(std::string_view key, std::string_view value) {
  fields_.push_back(Field{FieldKey(key), std::string(value)});
  return *this;
}

Record& Record::Add(std::string_view key, bool value) {
  fields_.push_back(Field{FieldKey(key), value});
  return *this;
}

Record& Record::Add(std::string_view key, double value) {
  fields_.push_back(Field{FieldKey(key), value});
  return *this;
}

Record& Record::AddInteger(std::string_view key, int64_t value) {
  fields_.push_back(Field{FieldKey(key), value});
  return *this;
}

Record& Record::AddStatus(const absl::Status& status) {
  Add("code", absl::StatusCodeToString(status.code()));
  return Add("error", status.message());
}

}  // namespace contactsim::server::log
