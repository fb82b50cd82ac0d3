#include "examplegraphs/TrainingInputs.h"

namespace clab::tools {

ops::MinibatchDatasetOptions TrainingDataset(const std::string& path, int num_features, int batch, int shard,
                                             int num_shards, uint64_t seed, int held_out_every) {
  ops::MinibatchDatasetOptions options;
  options.path = path;
  options.num_features = num_features;
  options.batch_size = batch;
  options.shard_index = shard;
  options.num_shards = num_shards;
  options.seed = static_cast<int64_t>(seed);
  options.held_out_every = held_out_every;
  options.scale = "standardize";
  return options;
}

ops::Minibatch ClassifierInputs(GraphBuilder& g, const ops::MinibatchDatasetOptions& options) {
  const ops::Minibatch data = ops::MinibatchDataset(g, options, "train_data");
  return {ops::Identity(g, data.features, "features"), ops::Identity(g, data.labels, "labels")};
}

}  // namespace clab::tools
