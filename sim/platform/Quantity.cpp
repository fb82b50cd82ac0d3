#include "platform/Quantity.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace clab::sim {
namespace {

// The number at the start of `text` and the unit after it.
bool SplitNumber(const std::string& text, double* number, std::string* unit) {
  const char* begin = text.c_str();
  char* end = nullptr;
  *number = std::strtod(begin, &end);
  if (end == begin) return false;
  *unit = std::string(end);
  while (!unit->empty() && unit->front() == ' ') unit->erase(unit->begin());
  return std::isfinite(*number);
}

double PrefixFactor(const std::string& prefix, bool* ok) {
  static const std::vector<std::pair<std::string, double>> kPrefixes = {
      {"", 1},     {"k", 1e3},     {"K", 1e3},        {"M", 1e6},           {"G", 1e9},
      {"T", 1e12}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
  for (const auto& [name, factor] : kPrefixes)
    if (name == prefix) {
      *ok = true;
      return factor;
    }
  *ok = false;
  return 0;
}

// Trims a number to at most 4 significant digits without trailing zeros.
std::string Short(double value) {
  std::string text = absl::StrFormat("%.4g", value);
  return text;
}

}  // namespace

StatusOr<double> ParseBandwidth(const std::string& text) {
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit))
    return errors::InvalidArgument("\"", text, "\" is not a bandwidth (e.g. \"10Gbps\", \"125MBps\")");
  if (unit.empty()) return number;
  // "bps" (bits) or "Bps" (bytes), after an optional prefix.
  std::string prefix;
  double bits = 0;
  if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "bps") == 0) {
    bits = 8;
    prefix = unit.substr(0, unit.size() - 3);
  } else if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "Bps") == 0) {
    bits = 1;
    prefix = unit.substr(0, unit.size() - 3);
  } else if (unit.size() >= 5 && unit.compare(unit.size() - 5, 5, "bit/s") == 0) {
    bits = 8;
    prefix = unit.substr(0, unit.size() - 5);
  } else {
    return errors::InvalidArgument("\"", text, "\": unknown bandwidth unit \"", unit,
                                   "\" (use bps or Bps with k, M, G, T, Ki, Mi, Gi)");
  }
  bool ok = false;
  const double factor = PrefixFactor(prefix, &ok);
  if (!ok) return errors::InvalidArgument("\"", text, "\": unknown prefix \"", prefix, "\"");
  return number * factor / bits;
}

StatusOr<double> ParseDuration(const std::string& text) {
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit))
    return errors::InvalidArgument("\"", text, "\" is not a duration (e.g. \"50us\", \"1ms\")");
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"m", 60}, {"h", 3600}};
  for (const auto& [name, factor] : kUnits)
    if (name == unit) return number * factor;
  return errors::InvalidArgument("\"", text, "\": unknown duration unit \"", unit, "\" (use s, ms, us or ns)");
}

StatusOr<double> ParseSize(const std::string& text) {
  double number = 0;
  std::string unit;
  if (!SplitNumber(text, &number, &unit))
    return errors::InvalidArgument("\"", text, "\" is not a size (e.g. \"1600B\", \"16KiB\")");
  if (unit.empty()) return number;
  if (unit.back() != 'B')
    return errors::InvalidArgument("\"", text, "\": unknown size unit \"", unit, "\" (use B with k, M, G, Ki, Mi, Gi)");
  bool ok = false;
  const double factor = PrefixFactor(unit.substr(0, unit.size() - 1), &ok);
  if (!ok) return errors::InvalidArgument("\"", text, "\": unknown prefix \"", unit.substr(0, unit.size() - 1), "\"");
  return number * factor;
}

std::string FormatBandwidth(double bytes_per_second) {
  const double bits = bytes_per_second * 8;
  if (bits >= 1e12) return Short(bits / 1e12) + "Tbps";
  if (bits >= 1e9) return Short(bits / 1e9) + "Gbps";
  if (bits >= 1e6) return Short(bits / 1e6) + "Mbps";
  if (bits >= 1e3) return Short(bits / 1e3) + "kbps";
  return Short(bits) + "bps";
}

std::string FormatDuration(double seconds) {
  if (seconds == 0) return "0s";
  if (std::fabs(seconds) >= 1) return Short(seconds) + "s";
  if (std::fabs(seconds) >= 1e-3) return Short(seconds * 1e3) + "ms";
  if (std::fabs(seconds) >= 1e-6) return Short(seconds * 1e6) + "us";
  return Short(seconds * 1e9) + "ns";
}

}  // namespace clab::sim
