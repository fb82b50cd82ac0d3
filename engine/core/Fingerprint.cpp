// FarmHash's 64-bit fingerprint, written from the algorithm's description: strings of up to
// 16, 32 and 64 bytes are mixed in one pass each; longer ones are consumed 64 bytes at a time
// into a 56-byte state, then the last 64 bytes are mixed in. All loads are little-endian.
#include "clab/core/Fingerprint.h"

#include <cstring>
#include <utility>

namespace clab {
namespace {

constexpr uint64_t k0 = 0xc3a5c85c97cb3127ULL;
constexpr uint64_t k1 = 0xb492b66fbe98f273ULL;
constexpr uint64_t k2 = 0x9ae16a3b2f90404fULL;

uint64_t Load64(const char* p) {
  uint64_t value = 0;
  std::memcpy(&value, p, sizeof(value));
  return value;  // the engine builds for little-endian hosts only
}

uint64_t Load32(const char* p) {
  uint32_t value = 0;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

uint64_t RotateRight(uint64_t value, int shift) {
  return shift == 0 ? value : (value >> shift) | (value << (64 - shift));
}

uint64_t ShiftMix(uint64_t value) { return value ^ (value >> 47); }

uint64_t Mix16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

uint64_t UpTo16(const char* s, size_t len) {
  if (len >= 8) {
    const uint64_t mul = k2 + len * 2;
    const uint64_t a = Load64(s) + k2;
    const uint64_t b = Load64(s + len - 8);
    const uint64_t c = RotateRight(b, 37) * mul + a;
    const uint64_t d = (RotateRight(a, 25) + b) * mul;
    return Mix16(c, d, mul);
  }
  if (len >= 4) {
    const uint64_t mul = k2 + len * 2;
    const uint64_t a = Load32(s);
    return Mix16(len + (a << 3), Load32(s + len - 4), mul);
  }
  if (len > 0) {
    const auto a = static_cast<uint8_t>(s[0]);
    const auto b = static_cast<uint8_t>(s[len >> 1]);
    const auto c = static_cast<uint8_t>(s[len - 1]);
    const uint32_t y = static_cast<uint32_t>(a) + (static_cast<uint32_t>(b) << 8);
    const uint32_t z = static_cast<uint32_t>(len) + (static_cast<uint32_t>(c) << 2);
    return ShiftMix(y * k2 ^ z * k0) * k2;
  }
  return k2;
}

uint64_t From17To32(const char* s, size_t len) {
  const uint64_t mul = k2 + len * 2;
  const uint64_t a = Load64(s) * k1;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * k2;
  return Mix16(RotateRight(a + b, 43) + RotateRight(c, 30) + d, a + RotateRight(b + k2, 18) + c, mul);
}

uint64_t From33To64(const char* s, size_t len) {
  const uint64_t mul = k2 + len * 2;
  const uint64_t a = Load64(s) * k2;
  const uint64_t b = Load64(s + 8);
  const uint64_t c = Load64(s + len - 8) * mul;
  const uint64_t d = Load64(s + len - 16) * k2;
  const uint64_t y = RotateRight(a + b, 43) + RotateRight(c, 30) + d;
  const uint64_t z = Mix16(y, a + RotateRight(b + k2, 18) + c, mul);
  const uint64_t e = Load64(s + 16) * mul;
  const uint64_t f = Load64(s + 24);
  const uint64_t g = (y + Load64(s + len - 32)) * mul;
  const uint64_t h = (z + Load64(s + len - 24)) * mul;
  return Mix16(RotateRight(e + f, 43) + RotateRight(g, 30) + h, e + RotateRight(f + a, 18) + g, mul);
}

// 32 bytes at s folded into the pair (a, b).
std::pair<uint64_t, uint64_t> Fold32(const char* s, uint64_t a, uint64_t b) {
  const uint64_t w = Load64(s), x = Load64(s + 8), y = Load64(s + 16), z = Load64(s + 24);
  a += w;
  b = RotateRight(b + a + z, 21);
  const uint64_t c = a;
  a += x;
  a += y;
  b += RotateRight(a, 44);
  return {a + z, b + c};
}

uint64_t Longer(const char* s, size_t len) {
  constexpr uint64_t seed = 81;
  uint64_t x = seed;
  uint64_t y = seed * k1 + 113;
  uint64_t z = ShiftMix(y * k2 + 113) * k2;
  std::pair<uint64_t, uint64_t> v{0, 0}, w{0, 0};
  x = x * k2 + Load64(s);
  const char* end = s + ((len - 1) / 64) * 64;
  const char* last64 = end + ((len - 1) & 63) - 63;
  do {
    x = RotateRight(x + y + v.first + Load64(s + 8), 37) * k1;
    y = RotateRight(y + v.second + Load64(s + 48), 42) * k1;
    x ^= w.second;
    y += v.first + Load64(s + 40);
    z = RotateRight(z + w.first, 33) * k1;
    v = Fold32(s, v.second * k1, x + w.first);
    w = Fold32(s + 32, z + w.second, y + Load64(s + 16));
    std::swap(z, x);
    s += 64;
  } while (s != end);
  const uint64_t mul = k1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = RotateRight(x + y + v.first + Load64(s + 8), 37) * mul;
  y = RotateRight(y + v.second + Load64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + Load64(s + 40);
  z = RotateRight(z + w.first, 33) * mul;
  v = Fold32(s, v.second * mul, x + w.first);
  w = Fold32(s + 32, z + w.second, y + Load64(s + 16));
  std::swap(z, x);
  return Mix16(Mix16(v.first, w.first, mul) + ShiftMix(y) * k0 + z, Mix16(v.second, w.second, mul) + x, mul);
}

}  // namespace

uint64_t Fingerprint64(std::string_view bytes) {
  const char* s = bytes.data();
  const size_t len = bytes.size();
  if (len <= 16) return UpTo16(s, len);
  if (len <= 32) return From17To32(s, len);
  if (len <= 64) return From33To64(s, len);
  return Longer(s, len);
}

uint64_t FingerprintCat64(uint64_t first, uint64_t second) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  uint64_t result = first ^ kMul;
  result ^= ShiftMix(second * kMul) * kMul;
  result *= kMul;
  result = ShiftMix(result) * kMul;
  return ShiftMix(result);
}

}  // namespace clab
