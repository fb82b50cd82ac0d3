#include "models/MinibatchSampler.h"

#include <algorithm>
#include <numeric>

namespace clab::examples {

MinibatchSampler::MinibatchSampler(const Examples& data, int batch, uint64_t seed)
    : data_(data), batch_(batch), rng_(seed), order_(static_cast<size_t>(data.size())), next_(order_.size()) {
  std::iota(order_.begin(), order_.end(), 0);
}

Examples MinibatchSampler::Next() {
  std::vector<int64_t> rows;
  rows.reserve(static_cast<size_t>(batch_));
  for (int i = 0; i < batch_; ++i) {
    if (next_ == order_.size()) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      next_ = 0;
    }
    rows.push_back(order_[next_++]);
  }
  return Rows(data_, rows);
}

}  // namespace clab::examples
