// A millisecond count from outside (a request's RunOptions.timeout_in_ms, a config's
// operation_timeout_in_ms, a flag) as a duration that any clock's now() can take: capped at
// a hundred years, so that converting it to a clock's nanoseconds cannot overflow. A
// timeout that long is, for every caller, no timeout.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace clab {

inline std::chrono::milliseconds BoundedMillis(int64_t ms) {
  constexpr int64_t kHundredYearsMs = int64_t{100} * 366 * 24 * 3600 * 1000;
  return std::chrono::milliseconds(std::clamp<int64_t>(ms, 0, kHundredYearsMs));
}

}  // namespace clab
