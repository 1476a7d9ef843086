#include "clients/cpp/health_check.h"

#include <future>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/status_convert.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"

namespace contactsim::client {
namespace {

constexpr char kCheckMethod[] = "/grpc.health.v1.Health/Check";

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Field 1, wire type 2 (length-delimited): the service name.
std::string EncodeRequest(std::string_view service) {
  std::string bytes;
  if (service.empty()) return bytes;  // proto3 leaves an empty string out
  bytes.push_back(0x0A);
  AppendVarint(bytes, service.size());
  bytes.append(service);
  return bytes;
}

// Field 1, wire type 0 (varint): the status; an empty message is UNKNOWN (0).
absl::StatusOr<ServingStatus> DecodeResponse(const std::string& bytes) {
  if (bytes.empty()) return ServingStatus::kUnknown;
  if (static_cast<unsigned char>(bytes[0]) != 0x08 || bytes.size() != 2 ||
      static_cast<unsigned char>(bytes[1]) > 3) {
    return absl::InternalError("health: the reply is not a HealthCheckResponse");
  }
  return static_cast<ServingStatus>(bytes[1]);
}

}  // namespace

std::string_view ServingStatusName(ServingStatus status) {
  switch (status) {
    case ServingStatus::kServing:
      return "SERVING";
    case ServingStatus::kNotServing:
      return "NOT_SERVING";
    case ServingStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
    case ServingStatus::kUnknown:
      break;
  }
  return "UNKNOWN";
}

absl::StatusOr<ServingStatus> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                          std::string_view service,
                                          std::chrono::milliseconds deadline) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  const std::string request_bytes = EncodeRequest(service);
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, kCheckMethod, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status status) { done.set_value(std::move(status)); });
  const grpc::Status status = done.get_future().get();
  if (!status.ok()) return FromGrpcStatus(status);
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    return absl::InternalError("health: the reply could not be read");
  }
  std::string bytes;
  for (const grpc::Slice& part : slices) {
    bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  return DecodeResponse(bytes);
}

}  // namespace contactsim::client
