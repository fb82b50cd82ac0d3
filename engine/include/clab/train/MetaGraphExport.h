// The MetaGraphDef tf.train.Saver writes beside each checkpoint (P.meta) and
// tf.train.export_meta_graph writes: the graph, the saver's node names and the graph's
// collections, so that TensorFlow's import_meta_graph (and ClusterLab's graph import)
// rebuild the model from a checkpoint directory.
#pragma once

#include "clab/graph/GraphBuilder.h"
#include "tensorflow/meta_graph.pb.h"

namespace clab {

// Variable collections ("variables", "trainable_variables", "local_variables",
// "global_step", "model_variables") become VariableDef protos in a bytes_list, as TensorFlow
// stores them (variable "w:0", initializer "w/Assign", snapshot "w/read:0", initial value);
// every other collection (e.g. "train_op", "summaries") a node_list of its entries.
// meta_info_def names the TensorFlow release whose formats the file follows (1.15.0) and,
// as the git version, the ClusterLab build that wrote it.
tensorflow::MetaGraphDef ExportMetaGraph(const GraphBuilder& graph, const tensorflow::SaverDef* saver_def);

}  // namespace clab
