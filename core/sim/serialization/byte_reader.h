// ByteReader: reads the fixed-width little-endian values that ByteWriter writes, from untrusted
// bytes. Errors are sticky: the first failure (running past the end, a count larger than the
// bytes left could hold) is kept as an InvalidArgument naming the field being read, and every
// later read returns zero, so decoders read a whole record and check status() once. Counts are
// checked against the bytes left before anything is allocated, so a hostile count cannot make a
// reader allocate more than the input's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/common/eigen_types.h"

namespace contactsim::core::serialization {

class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  // `field` names the value in the error message when the read fails.
  uint8_t U8(std::string_view field);
  bool Bool(std::string_view field);  // 0 or 1; anything else is an error
  uint32_t U32(std::string_view field);
  int32_t I32(std::string_view field) { return static_cast<int32_t>(U32(field)); }
  uint64_t U64(std::string_view field);
  int64_t I64(std::string_view field) { return static_cast<int64_t>(U64(field)); }
  double F64(std::string_view field);
  // A double that must be finite (an error naming the field otherwise).
  double FiniteF64(std::string_view field);
  Vec3 Vec(std::string_view field);
  Vec3 FiniteVec(std::string_view field);
  std::string String(std::string_view field);
  // The next `size` bytes as a view into the input.
  std::string_view Bytes(size_t size, std::string_view field);
  // A u32 count of items of at least `min_item_bytes` bytes each; an error (and 0) when the bytes
  // left cannot hold that many.
  uint32_t Count(std::string_view field, size_t min_item_bytes);
  // A u32 row count, then rows of three finite doubles.
  Points3 FiniteRows(std::string_view field);
  template <int kCols>
  Eigen::Matrix<int32_t, Eigen::Dynamic, kCols, Eigen::RowMajor> IndexRows(std::string_view field) {
    const uint32_t rows = Count(field, kCols * sizeof(int32_t));
    Eigen::Matrix<int32_t, Eigen::Dynamic, kCols, Eigen::RowMajor> out(rows, kCols);
    for (Eigen::Index i = 0; i < out.size(); ++i) out.data()[i] = I32(field);
    return out;
  }

  // Records an error (the first one wins); `field` starts the message.
  void Fail(std::string_view field, std::string_view message);
  const absl::Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

  size_t remaining() const { return bytes_.size() - position_; }
  size_t position() const { return position_; }
  // An error naming `field` unless every byte was read.
  void ExpectEnd(std::string_view field);

 private:
  // The next n bytes, or nullptr (and an error) when fewer are left.
  const char* Take(size_t n, std::string_view field);

  std::string_view bytes_;
  size_t position_ = 0;
  absl::Status status_;
};

}  // namespace contactsim::core::serialization
