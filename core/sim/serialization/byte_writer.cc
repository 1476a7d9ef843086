#include "core/sim/serialization/byte_writer.h"

#include <bit>

namespace contactsim::core::serialization {
namespace {

template <typename T>
void AppendLittleEndian(T value, std::string* out) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    out->push_back(static_cast<char>(static_cast<uint8_t>(value >> (8 * i))));
  }
}

}  // namespace

void ByteWriter::U8(uint8_t value) { bytes_.push_back(static_cast<char>(value)); }

void ByteWriter::U32(uint32_t value) { AppendLittleEndian(value, &bytes_); }

void ByteWriter::U64(uint64_t value) { AppendLittleEndian(value, &bytes_); }

void ByteWriter::F64(double value) { U64(std::bit_cast<uint64_t>(value)); }

void ByteWriter::Vec(const Vec3& value) {
  F64(value.x());
  F64(value.y());
  F64(value.z());
}

void ByteWriter::String(std::string_view value) {
  U32(static_cast<uint32_t>(value.size()));
  bytes_.append(value);
}

void ByteWriter::Rows(const Points3& rows) {
  U32(static_cast<uint32_t>(rows.rows()));
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    for (int k = 0; k < 3; ++k) F64(rows(i, k));
  }
}

size_t ByteWriter::BeginSection(uint32_t tag, uint32_t flags) {
  U32(tag);
  U32(flags);
  const size_t length_at = bytes_.size();
  U64(0);
  return length_at;
}

void ByteWriter::EndSection(size_t length_at) {
  uint64_t length = bytes_.size() - (length_at + sizeof(uint64_t));
  for (size_t i = 0; i < sizeof(uint64_t); ++i) {
    bytes_[length_at + i] = static_cast<char>(static_cast<uint8_t>(length >> (8 * i)));
  }
}

}  // namespace contactsim::core::serialization
