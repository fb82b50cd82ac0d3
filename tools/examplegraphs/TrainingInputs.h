// Reading an example data set in the graph rather than feeding it: a MinibatchDataset node
// over a CSV file whose last column is the class, split and scaled as
// examples/models/Classifier's LoadClassificationCsv does, and the classifier's inputs on its
// outputs. The example training programs' workers read their minibatches this way.
#pragma once

#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"

#include <cstdint>
#include <string>

namespace clab::tools {

// A MinibatchDataset over the CSV file `path`, split and scaled as LoadClassificationCsv
// does (every `held_out_every`-th row held out, features standardised with the training
// split's statistics), so shard `shard` of `num_shards` serves exactly the rows of
// examples' Shard(data.train, shard, num_shards), in an order shuffled from `seed` each
// epoch.
ops::MinibatchDatasetOptions TrainingDataset(const std::string& path, int num_features, int batch, int shard,
                                             int num_shards, uint64_t seed, int held_out_every = 5);
// The dataset node ("train_data") and Identity nodes "features" and "labels" on its outputs:
// the classifier's inputs, which evaluation can feed as it feeds the placeholders.
ops::Minibatch ClassifierInputs(GraphBuilder& graph, const ops::MinibatchDatasetOptions& options);

}  // namespace clab::tools
