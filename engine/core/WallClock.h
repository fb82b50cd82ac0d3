// Wall-clock time in microseconds since the Unix epoch: the unit of step stats
// (NodeExecStats.all_start_micros) and of RecvTensorResponse.send_start_micros, so that
// times taken on different tasks line up on one timeline.
#pragma once

#include <chrono>
#include <cstdint>

namespace clab {

inline int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace clab
