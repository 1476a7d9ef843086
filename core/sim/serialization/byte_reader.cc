#include "core/sim/serialization/byte_reader.h"

#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace contactsim::core::serialization {
namespace {

template <typename T>
T FromLittleEndian(const char* data) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<uint8_t>(data[i])) << (8 * i);
  }
  return value;
}

}  // namespace

void ByteReader::Fail(std::string_view field, std::string_view message) {
  if (!status_.ok()) return;
  status_ =
      absl::InvalidArgumentError(absl::StrCat(std::string(field), ": ", std::string(message)));
}

const char* ByteReader::Take(size_t n, std::string_view field) {
  if (!status_.ok()) return nullptr;
  if (remaining() < n) {
    Fail(field, absl::StrCat("truncated: needs ", n, " more bytes at offset ", position_, ", ",
                             remaining(), " left"));
    return nullptr;
  }
  const char* data = bytes_.data() + position_;
  position_ += n;
  return data;
}

uint8_t ByteReader::U8(std::string_view field) {
  const char* data = Take(1, field);
  return data == nullptr ? 0 : static_cast<uint8_t>(data[0]);
}

bool ByteReader::Bool(std::string_view field) {
  const uint8_t value = U8(field);
  if (value > 1) Fail(field, absl::StrCat("must be 0 or 1, got ", value));
  return value == 1;
}

uint32_t ByteReader::U32(std::string_view field) {
  const char* data = Take(sizeof(uint32_t), field);
  return data == nullptr ? 0 : FromLittleEndian<uint32_t>(data);
}

uint64_t ByteReader::U64(std::string_view field) {
  const char* data = Take(sizeof(uint64_t), field);
  return data == nullptr ? 0 : FromLittleEndian<uint64_t>(data);
}

double ByteReader::F64(std::string_view field) { return std::bit_cast<double>(U64(field)); }

double ByteReader::FiniteF64(std::string_view field) {
  const double value = F64(field);
  if (!std::isfinite(value)) {
    Fail(field, absl::StrCat("must be finite, got ", value));
    return 0.0;
  }
  return value;
}

Vec3 ByteReader::Vec(std::string_view field) {
  const double x = F64(field);
  const double y = F64(field);
  const double z = F64(field);
  return Vec3(x, y, z);
}

Vec3 ByteReader::FiniteVec(std::string_view field) {
  const Vec3 value = Vec(field);
  if (!value.allFinite()) {
    Fail(field,
         absl::StrCat("must be finite, got (", value.x(), ", ", value.y(), ", ", value.z(), ")"));
    return Vec3::Zero();
  }
  return value;
}

std::string ByteReader::String(std::string_view field) {
  const uint32_t size = Count(field, 1);
  return std::string(Bytes(size, field));
}

std::string_view ByteReader::Bytes(size_t size, std::string_view field) {
  const char* data = Take(size, field);
  return data == nullptr ? std::string_view() : std::string_view(data, size);
}

uint32_t ByteReader::Count(std::string_view field, size_t min_item_bytes) {
  const uint32_t count = U32(field);
  if (!status_.ok()) return 0;
  if (static_cast<uint64_t>(count) * min_item_bytes > remaining()) {
    Fail(field, absl::StrCat("count ", count, " needs at least ",
                             static_cast<uint64_t>(count) * min_item_bytes, " bytes, only ",
                             remaining(), " left"));
    return 0;
  }
  return count;
}

Points3 ByteReader::FiniteRows(std::string_view field) {
  const uint32_t rows = Count(field, 3 * sizeof(double));
  Points3 out(rows, 3);
  for (uint32_t i = 0; i < rows && ok(); ++i) {
    for (int k = 0; k < 3; ++k) out(i, k) = F64(field);
    if (ok() && !out.row(i).allFinite()) Fail(field, absl::StrCat("row ", i, " is not finite"));
  }
  return ok() ? out : Points3();
}

void ByteReader::ExpectEnd(std::string_view field) {
  if (ok() && remaining() != 0) {
    Fail(field, absl::StrCat(remaining(), " unexpected bytes after the last field"));
  }
}

}  // namespace contactsim::core::serialization
