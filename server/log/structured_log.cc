#include "server/log/structured_log.h"

#include <atomic>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/time/time.h"
#include "spdlog/spdlog.h"

namespace contactsim::server::log {
namespace {

std::atomic<LogFormat> current_format{LogFormat::kText};

// Set by Log around its call into spdlog: the message on this thread is a record rendered in
// this format (RecordFormatter runs on the logging thread, the logger being synchronous).
thread_local std::optional<LogFormat> rendered_record_format;

}  // namespace

void RecordFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const std::string ts =
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", absl::FromChrono(msg.time), absl::UTCTimeZone());
  const spdlog::string_view_t level_name = spdlog::level::to_string_view(msg.level);
  const std::string_view level(level_name.data(), level_name.size());
  const std::string_view logger(msg.logger_name.data(), msg.logger_name.size());
  const std::string_view payload(msg.payload.data(), msg.payload.size());
  std::string line;
  if (rendered_record_format == format_) {
    line = RenderLine(ts, level, logger, payload, format_);
  } else {
    const std::string fields = RenderFields(Record("unstructured").Add("msg", payload), format_);
    line = RenderLine(ts, level, logger, fields, format_);
  }
  line.push_back('\n');
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> RecordFormatter::clone() const {
  return std::make_unique<RecordFormatter>(format_);
}

std::shared_ptr<spdlog::logger> InstallStructuredLogger(const std::string& name,
                                                        spdlog::sink_ptr sink, LogFormat format,
                                                        spdlog::level::level_enum level) {
  auto logger = std::make_shared<spdlog::logger>(name, std::move(sink));
  logger->set_formatter(std::make_unique<RecordFormatter>(format));
  logger->set_level(level);
  current_format.store(format);
  spdlog::set_default_logger(logger);
  return logger;
}

LogFormat CurrentFormat() { return current_format.load(); }

void Log(spdlog::level::level_enum level, const Record& record) {
  spdlog::logger* logger = spdlog::default_logger_raw();
  if (logger == nullptr || !logger->should_log(level)) return;
  const LogFormat format = current_format.load();
  const std::string fields = RenderFields(record, format);
  rendered_record_format = format;
  logger->log(level, spdlog::string_view_t(fields.data(), fields.size()));
  rendered_record_format.reset();
}

}  // namespace contactsim::server::log
