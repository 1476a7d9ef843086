#include "server/service/library_logs.h"

#include <string>

#include "google/protobuf/stubs/logging.h"
#include "grpc/support/log.h"
#include "server/log/structured_log.h"

namespace contactsim::server {
namespace {

void LogGrpcMessage(gpr_log_func_args* args) {
  spdlog::level::level_enum level = spdlog::level::err;
  if (args->severity == GPR_LOG_SEVERITY_DEBUG) level = spdlog::level::debug;
  if (args->severity == GPR_LOG_SEVERITY_INFO) level = spdlog::level::info;
  log::Log(level, log::Record("grpc_log")
                      .Add("file", args->file == nullptr ? "" : args->file)
                      .Add("line", args->line)
                      .Add("msg", args->message == nullptr ? "" : args->message));
}

void LogProtobufMessage(google::protobuf::LogLevel severity, const char* file, int line,
                        const std::string& message) {
  spdlog::level::level_enum level = spdlog::level::err;
  if (severity == google::protobuf::LOGLEVEL_INFO) level = spdlog::level::info;
  if (severity == google::protobuf::LOGLEVEL_WARNING) level = spdlog::level::warn;
  if (severity == google::protobuf::LOGLEVEL_FATAL) level = spdlog::level::critical;
  log::Log(level, log::Record("protobuf_log")
                      .Add("file", file == nullptr ? "" : file)
                      .Add("line", line)
                      .Add("msg", message));
}

}  // namespace

void RouteLibraryLogs() {
  gpr_set_log_function(LogGrpcMessage);
  google::protobuf::SetLogHandler(LogProtobufMessage);
}

}  // namespace contactsim::server
