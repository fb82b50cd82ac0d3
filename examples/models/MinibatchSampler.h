// Minibatches of a fixed size drawn from a set of examples in a shuffled order, a new order
// each pass; the same seed gives the same sequence of minibatches. `data` must hold at least
// one example and outlive the sampler.
#pragma once

#include "models/Classifier.h"

#include <cstdint>
#include <random>
#include <vector>

namespace clab::examples {

class MinibatchSampler {
 public:
  MinibatchSampler(const Examples& data, int batch, uint64_t seed);
  Examples Next();

 private:
  const Examples& data_;
  const int batch_;
  std::mt19937_64 rng_;
  std::vector<int64_t> order_;
  size_t next_;
};

}  // namespace clab::examples
