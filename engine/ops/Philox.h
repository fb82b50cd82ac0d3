// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), a
// counter-based generator: the block at a counter is a pure function of (key, counter), so
// any thread can produce any part of a random sequence. Used by the random ops and by the
// shuffle of MinibatchDataset.
#pragma once

#include <array>
#include <cstdint>

namespace clab::philox {

using PhiloxBlock = std::array<uint32_t, 4>;

// Philox4x32-10 of `counter` under the 64-bit `key`.
inline PhiloxBlock Philox4x32(PhiloxBlock counter, uint64_t key) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
  constexpr uint32_t kKeyBump0 = 0x9E3779B9u, kKeyBump1 = 0xBB67AE85u;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMultiplier0} * counter[0];
    const uint64_t p1 = uint64_t{kMultiplier1} * counter[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ k0, static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += kKeyBump0;
    k1 += kKeyBump1;
  }
  return counter;
}

// A bijective 64-bit mix (splitmix64's finaliser): nearby seeds give unrelated keys.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace clab::philox
