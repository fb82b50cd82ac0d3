// clab::ops wrapper for MinibatchDataset: one node, its two outputs.
#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

namespace clab::ops {

Minibatch MinibatchDataset(GraphBuilder& g, const MinibatchDatasetOptions& options, std::string_view name) {
  const Output node = g.AddNode("MinibatchDataset", {},
                                {{"path", AttrOf(options.path)},
                                 {"labels_path", AttrOf(options.labels_path)},
                                 {"batch_size", AttrOf(options.batch_size)},
                                 {"seed", AttrOf(options.seed)},
                                 {"shuffle", AttrOf(options.shuffle)},
                                 {"shard_index", AttrOf(options.shard_index)},
                                 {"num_shards", AttrOf(options.num_shards)},
                                 {"held_out_every", AttrOf(options.held_out_every)},
                                 {"split", AttrOf(options.split)},
                                 {"scale", AttrOf(options.scale)},
                                 {"num_features", AttrOf(options.num_features)},
                                 {"container", AttrOf(options.container)},
                                 {"shared_name", AttrOf(options.shared_name)}},
                                name);
  return Minibatch{Output(node.node(), 0), Output(node.node(), 1)};
}

}  // namespace clab::ops
