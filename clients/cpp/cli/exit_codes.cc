#include "clients/cpp/cli/exit_codes.h"

namespace contactsim::client::cli {

int ReportFailure(const absl::Status& status, const Connection& connection,
                  const std::string& server, std::ostream& err) {
  const bool unreachable =
      absl::IsUnavailable(status) || (absl::IsDeadlineExceeded(status) && !connection.connected());
  const std::string code = absl::StatusCodeToString(status.code());
  if (unreachable) {
    err << "error: server " << server << " unreachable: " << code << ": " << status.message()
        << "\n";
    return kExitUnreachable;
  }
  err << "error: server refused: " << code << ": " << status.message() << "\n";
  return kExitRefused;
}

}  // namespace contactsim::client::cli
