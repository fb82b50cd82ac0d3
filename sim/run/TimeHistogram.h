// An amount (bytes, FLOPs) spread over simulated time in bins of equal width: each activity
// adds what it moved or computed evenly over its start and end. The bins start narrow and
// double in width (merging pairs) when time runs past the last, so a run of any length ends
// with at most kMaxBins bins without knowing its length in advance.
#pragma once

#include <vector>

namespace clab::sim {

class TimeHistogram {
 public:
  static constexpr int kMaxBins = 64;
  explicit TimeHistogram(double first_bin_width = 1e-4) : width_(first_bin_width) {}

  void Add(double start, double end, double amount);
  double bin_width() const { return width_; }
  // Per bin, up to the last one touched.
  const std::vector<double>& bins() const { return bins_; }
  // Re-binned to `width` (a multiple of bin_width()): histograms of one run share a scale.
  std::vector<double> Rebinned(double width) const;
  double total() const { return total_; }

 private:
  void Grow(double end);

  double width_;
  std::vector<double> bins_;
  double total_ = 0;
};

}  // namespace clab::sim
