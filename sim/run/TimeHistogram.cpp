#include "run/TimeHistogram.h"

#include <algorithm>
#include <cmath>

namespace clab::sim {

void TimeHistogram::Grow(double end) {
  while (end > width_ * kMaxBins) {
    std::vector<double> merged((bins_.size() + 1) / 2, 0.0);
    for (size_t i = 0; i < bins_.size(); ++i) merged[i / 2] += bins_[i];
    bins_ = std::move(merged);
    width_ *= 2;
  }
  const size_t needed = static_cast<size_t>(std::min<double>(kMaxBins, std::ceil(end / width_)));
  if (bins_.size() < needed) bins_.resize(needed, 0.0);
}

void TimeHistogram::Add(double start, double end, double amount) {
  if (amount <= 0) return;
  total_ += amount;
  end = std::max(end, start);
  Grow(std::max(end, start + 1e-12));
  if (end <= start) {
    const size_t bin = std::min(bins_.size() - 1, static_cast<size_t>(start / width_));
    bins_[bin] += amount;
    return;
  }
  const double rate = amount / (end - start);
  size_t bin = static_cast<size_t>(start / width_);
  for (double t = start; t < end && bin < bins_.size(); ++bin) {
    const double bin_end = std::min(end, static_cast<double>(bin + 1) * width_);
    bins_[bin] += rate * (bin_end - t);
    t = bin_end;
  }
}

std::vector<double> TimeHistogram::Rebinned(double width) const {
  const int factor = std::max(1, static_cast<int>(std::lround(width / width_)));
  std::vector<double> out((bins_.size() + static_cast<size_t>(factor) - 1) / static_cast<size_t>(factor), 0.0);
  for (size_t i = 0; i < bins_.size(); ++i) out[i / static_cast<size_t>(factor)] += bins_[i];
  return out;
}

}  // namespace clab::sim
