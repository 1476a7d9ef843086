#include "server/convert/value_convert.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace contactsim::server {

absl::StatusOr<core::Vec3> FiniteVec3FromProto(const v1::Vec3& message, std::string_view field) {
  const core::Vec3 v(message.x(), message.y(), message.z());
  if (!v.allFinite()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": must be finite, got (",
                                                   v.x(), ", ", v.y(), ", ", v.z(), ")"));
  }
  return v;
}

absl::StatusOr<Eigen::Quaterniond> UnitQuatFromProto(const v1::Quat& message,
                                                     std::string_view field) {
  Eigen::Quaterniond q(message.w(), message.x(), message.y(), message.z());
  const double norm = q.norm();
  // 1e-6 admits a float32 round trip of a unit quaternion (relative error ~6e-8 per component)
  // and rejects a mistyped one.
  if (!std::isfinite(norm) || std::abs(norm - 1.0) > 1e-6) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(field), ": must be a unit quaternion (w, x, y, z), got norm ", norm));
  }
  q.normalize();
  return q;
}

void FillProto(const core::Vec3& v, v1::Vec3* out) {
  out->set_x(v.x());
  out->set_y(v.y());
  out->set_z(v.z());
}

void FillProto(const Eigen::Quaterniond& q, v1::Quat* out) {
  out->set_w(q.w());
  out->set_x(q.x());
  out->set_y(q.y());
  out->set_z(q.z());
}

v1::Vec3 ToProto(const core::Vec3& v) {
  v1::Vec3 message;
  FillProto(v, &message);
  return message;
}

v1::Quat ToProto(const Eigen::Quaterniond& q) {
  v1::Quat message;
  FillProto(q, &message);
  return message;
}

absl::Status CheckPositive(double value, std::string_view field) {
  if (!(std::isfinite(value) && value > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": must be finite and > 0, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckNonNegative(double value, std::string_view field) {
  if (!(std::isfinite(value) && value >= 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(field), ": must be finite and >= 0, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckLabel(std::string_view label, int max_bytes, std::string_view field) {
  if (static_cast<int64_t>(label.size()) > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": ", label.size(),
                                                   " bytes, over the server's limit of ", max_bytes,
                                                   " (--max-name-bytes)"));
  }
  for (size_t i = 0; i < label.size(); ++i) {
    const auto byte = static_cast<unsigned char>(label[i]);
    if (byte < 0x20 || byte == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": control character 0x",
                                                     absl::Hex(byte, absl::kZeroPad2), " at byte ",
                                                     i, " (names are printable text)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace contactsim::server
