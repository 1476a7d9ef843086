#include "scenes/loader/grpc_status.h"

#include <string>

namespace contactsim::scenes {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const int code = static_cast<int>(status.error_code());
  // Codes beyond the known range (none today) would be a protocol surprise: report them as
  // UNKNOWN rather than inventing an absl code, keeping the number in the message.
  if (code < 0 || code > static_cast<int>(absl::StatusCode::kUnauthenticated)) {
    return absl::UnknownError("grpc status code " + std::to_string(code) + ": " +
                              status.error_message());
  }
  return absl::Status(static_cast<absl::StatusCode>(code), status.error_message());
}

}  // namespace contactsim::scenes
