// The server's log: spdlog's sinks and levels, every line one Record (log_record.h) rendered by
// log_render.h with the timestamp, level and logger as its first fields:
//   log::Info(log::Record("session_closed").Add("session", id));
// The logger must be synchronous (spdlog's default): the formatter learns on the calling thread
// whether a message is a rendered record.
#pragma once

#include <memory>
#include <string>

#include "server/log/log_record.h"
#include "server/log/log_render.h"
#include "spdlog/formatter.h"
#include "spdlog/logger.h"

namespace contactsim::server::log {

// Lines of `ts` (RFC 3339, UTC, microseconds), `level` (spdlog's names: trace, debug, info,
// warning, error, critical), `logger`, then the record's fields. A message that did not come
// from Log (another library's spdlog call) becomes an `unstructured` record, its text in `msg`,
// escaped like any value, so that it too is one line.
class RecordFormatter final : public spdlog::formatter {
 public:
  explicit RecordFormatter(LogFormat format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  LogFormat format_;
};

// A synchronous logger `name` writing to `sink` through RecordFormatter(format), made spdlog's
// default logger (which Log writes to), at `level`. Returns it.
std::shared_ptr<spdlog::logger> InstallStructuredLogger(const std::string& name,
                                                        spdlog::sink_ptr sink, LogFormat format,
                                                        spdlog::level::level_enum level);

// The format InstallStructuredLogger set (text before any).
LogFormat CurrentFormat();

// Writes `record` to the default logger when `level` is enabled there.
void Log(spdlog::level::level_enum level, const Record& record);
inline void Debug(const Record& record) { Log(spdlog::level::debug, record); }
inline void Info(const Record& record) { Log(spdlog::level::info, record); }
inline void Warn(const Record& record) { Log(spdlog::level::warn, record); }
inline void Error(const Record& record) { Log(spdlog::level::err, record); }

}  // namespace contactsim::server::log
