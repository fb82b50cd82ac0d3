// The quantities of a platform description, as SimGrid writes them: bandwidths ("10Gbps",
// "1.25GBps", "100Mbps", or a number of bytes per second), durations ("50us", "1.5ms", or a
// number of seconds). Bits are "bps", bytes "Bps"; k/M/G/T are powers of 1000, Ki/Mi/Gi/Ti
// of 1024.
#pragma once

#include "clab/core/Status.h"

#include <string>

namespace clab::sim {

// Bytes per second. INVALID_ARGUMENT for text that is not a bandwidth.
StatusOr<double> ParseBandwidth(const std::string& text);
// Seconds.
StatusOr<double> ParseDuration(const std::string& text);
// Bytes: "1600B", "16KiB", "1.5kB", or a number of bytes.
StatusOr<double> ParseSize(const std::string& text);

// "10Gbps", "100Mbps", "12.5kbps": the shortest of bits per second for `bytes_per_second`.
std::string FormatBandwidth(double bytes_per_second);
// "50us", "1.5ms", "2s".
std::string FormatDuration(double seconds);

}  // namespace clab::sim
