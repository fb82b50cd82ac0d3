// The names of a graph's collections (GraphBuilder::Collection), spelled as TensorFlow's
// tf.GraphKeys spells them: what the builder, the graph importer, the optimizers, the saver
// and the monitored session agree on.
#pragma once

namespace clab {

struct GraphKeys {
  static constexpr char kGlobalVariables[] = "variables";
  static constexpr char kTrainableVariables[] = "trainable_variables";
  static constexpr char kLocalVariables[] = "local_variables";
  static constexpr char kGlobalStep[] = "global_step";
  static constexpr char kTrainOp[] = "train_op";
  static constexpr char kSummaries[] = "summaries";
  // Serialized tensorflow.QueueRunnerDef protos (clab/train/QueueRunners.h).
  static constexpr char kQueueRunners[] = "queue_runners";
};

}  // namespace clab
