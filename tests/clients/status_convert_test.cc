// FromGrpcStatus keeps the code (by value: both libraries follow google.rpc.Code) and the message.
#include "clients/cpp/status_convert.h"

#include "gtest/gtest.h"

namespace contactsim::client {
namespace {

TEST(StatusConvertTest, OkIsOk) { EXPECT_TRUE(FromGrpcStatus(grpc::Status::OK).ok()); }

TEST(StatusConvertTest, EveryErrorCodeAndMessageKept) {
  for (int code = 1; code <= 16; ++code) {
    const grpc::Status status(static_cast<grpc::StatusCode>(code), "field.x: why");
    const absl::Status converted = FromGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(converted.code()), code);
    EXPECT_EQ(converted.message(), "field.x: why");
  }
  // Spot-check names, not just numbers, for the codes callers branch on.
  EXPECT_TRUE(absl::IsUnauthenticated(
      FromGrpcStatus(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "token"))));
  EXPECT_TRUE(absl::IsPermissionDenied(
      FromGrpcStatus(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "viewer"))));
  EXPECT_TRUE(
      absl::IsUnavailable(FromGrpcStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "down"))));
}

}  // namespace
}  // namespace contactsim::client
