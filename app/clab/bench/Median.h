// The median of a benchmark's repeated measurements (0 for none), as every `clab bench`
// table reports them.
#pragma once

#include <algorithm>
#include <vector>

namespace clab::cli {

inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace clab::cli
