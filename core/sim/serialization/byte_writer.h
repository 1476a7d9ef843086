// ByteWriter: appends fixed-width little-endian values to a byte string, for the world
// serialization format (world_serialization.h). Doubles are written as their IEEE-754 bit pattern,
// so every value (signed zeros, NaN payloads) comes back with the same bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/common/eigen_types.h"

namespace contactsim::core::serialization {

class ByteWriter {
 public:
  void U8(uint8_t value);
  void Bool(bool value) { U8(value ? 1 : 0); }
  void U32(uint32_t value);
  void I32(int32_t value) { U32(static_cast<uint32_t>(value)); }
  void U64(uint64_t value);
  void I64(int64_t value) { U64(static_cast<uint64_t>(value)); }
  void F64(double value);
  void Vec(const Vec3& value);  // x, y, z
  // A u32 byte count, then the bytes.
  void String(std::string_view value);
  void Bytes(std::string_view bytes) { bytes_.append(bytes); }
  // A u32 row count, then the rows (x, y, z per row).
  void Rows(const Points3& rows);
  // A u32 row count, then the indices row by row (faces, edges, tets).
  template <int kCols>
  void IndexRows(const Eigen::Matrix<int32_t, Eigen::Dynamic, kCols, Eigen::RowMajor>& rows) {
    U32(static_cast<uint32_t>(rows.rows()));
    for (Eigen::Index i = 0; i < rows.size(); ++i) I32(rows.data()[i]);
  }

  // Sections: BeginSection writes the tag, the flags and a placeholder length and returns where
  // the length is; EndSection fills in the number of bytes written since.
  size_t BeginSection(uint32_t tag, uint32_t flags);
  void EndSection(size_t length_at);

  size_t size() const { return bytes_.size(); }
  const std::string& bytes() const { return bytes_; }
  std::string Release() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

}  // namespace contactsim::core::serialization
