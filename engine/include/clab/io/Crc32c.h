// CRC32C (Castagnoli), the checksum of TFRecord framing and checkpoint files, and the
// "masked" form TFRecord stores so that a CRC of data containing CRCs stays well mixed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace clab::crc32c {

// Continues `crc` (0 to start) over `data`. Uses the SSE4.2 instruction when the CPU has it.
uint32_t Extend(uint32_t crc, const void* data, size_t size);
inline uint32_t Value(const void* data, size_t size) { return Extend(0, data, size); }
inline uint32_t Value(std::string_view data) { return Extend(0, data.data(), data.size()); }

inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

}  // namespace clab::crc32c
