// An spdlog sink that keeps every formatted line for the tests to read back, installed as the
// default logger with the server's structured formatter.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/log/structured_log.h"
#include "spdlog/sinks/base_sink.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace contactsim::server::logtest {

class CapturingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  // Everything written so far, as one string (each record should end with its one '\n').
  std::string Text() {
    std::lock_guard lock(mutex_);
    return text_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    text_.append(formatted.data(), formatted.size());
  }
  void flush_() override {}

 private:
  std::string text_;
};

// The text split at '\n'; `complete` says whether it ended with one (every record does).
inline std::vector<std::string> SplitLines(const std::string& text, bool* complete) {
  std::vector<std::string> lines;
  size_t begin = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', begin)) {
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  *complete = begin == text.size();
  return lines;
}

// Installs a CapturingSink as the default logger in `format` for the life of this object, then
// puts back a plain stderr logger.
class ScopedCapture {
 public:
  explicit ScopedCapture(log::LogFormat format,
                         spdlog::level::level_enum level = spdlog::level::trace)
      : sink_(std::make_shared<CapturingSink>()) {
    log::InstallStructuredLogger("test", sink_, format, level);
  }
  ~ScopedCapture() {
    log::InstallStructuredLogger("contactsim", std::make_shared<spdlog::sinks::stderr_sink_mt>(),
                                 log::LogFormat::kText, spdlog::level::info);
  }
  ScopedCapture(const ScopedCapture&) = delete;
  ScopedCapture& operator=(const ScopedCapture&) = delete;

  CapturingSink& sink() { return *sink_; }

 private:
  std::shared_ptr<CapturingSink> sink_;
};

}  // namespace contactsim::server::logtest
