// Example classifiers on the shipped data sets (resources/data), whose graphs
// tools/examplegraphs/ClassifierGraph builds: loading and splitting the data, feeding it in
// minibatches, training and measuring accuracy. Reading it in the graph instead (the same
// split and scaling) is tools/examplegraphs/TrainingInputs.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/runtime/Session.h"
#include "examplegraphs/ClassifierGraph.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clab::examples {

struct Examples {
  Tensor features;  // float [n, d]
  Tensor labels;    // int32 [n]
  int64_t size() const { return features.shape().rank() == 2 ? features.shape().dim(0) : 0; }
};

struct ClassificationData {
  Examples train;
  Examples held_out;
  int num_classes = 0;
  int num_features = 0;
};

// Reads a CSV table whose last column is the class (0..k-1); every `held_out_every`-th row
// goes to the held-out split. Features are scaled to zero mean and unit variance with the
// training split's statistics.
StatusOr<ClassificationData> LoadClassificationCsv(const std::string& path, int held_out_every = 5);

// The given rows, in that order.
Examples Rows(const Examples& data, const std::vector<int64_t>& rows);

// Rows i with i % num_shards == shard: a worker's share of the data.
Examples Shard(const Examples& examples, int shard, int num_shards);

// Runs `steps` steps on minibatches of `batch` examples drawn in a shuffled order (from
// `seed`); the last minibatch's loss.
StatusOr<double> Train(Session& session, const tools::ClassifierGraph& model, const Examples& data, int64_t steps,
                       int batch, uint64_t seed);

// Runs `steps` steps of a model whose graph reads its own minibatches; the last loss.
StatusOr<double> TrainOnGraphInput(Session& session, const tools::ClassifierGraph& model, int64_t steps);

// The fraction of `data` whose largest logit is the label.
StatusOr<double> Accuracy(Session& session, const tools::ClassifierGraph& model, const Examples& data);

}  // namespace clab::examples
