// A GraphDef written elsewhere (the studio's graph editor, TensorFlow's tf.train.write_graph)
// brought into a GraphBuilder, so that the training machinery that builds on a GraphBuilder
// (MonitoredTrainingSession's scaffold, saver, hooks) works on it as on a graph built in
// code. And what a step of such a graph most likely runs.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "tensorflow/graph.pb.h"

#include <string>
#include <vector>

namespace clab {

// Adds every node of `graph` to `g` (which must not already hold nodes of the same names),
// in an order where inputs come first, keeping names, attrs and requested devices.
// `device_map`, when set, rewrites each requested device (e.g. worker 0's device for this
// worker's). Collections are rebuilt as TensorFlow would have them: "variables" (every
// variable), "trainable_variables" (all but the global step and optimizer state: variables
// colocated with another variable, as slots are, and "*_power") and "global_step" (the
// variable named "global_step"). Errors: the graph's own (unknown op, missing input,
// cycle), naming the node.
Status ImportGraphDef(const tensorflow::GraphDef& graph, GraphBuilder* g,
                      const std::function<std::string(const std::string& device)>& device_map = {});

// What a step of the graph most likely fetches or runs, in GraphDef order: the nodes nothing
// consumes, other than the initialiser ("init"), the saver's nodes ("save/..."), variables'
// own initialisers ("<variable>/Assign") and what only they need, bare variable reads and
// unused gradients; plus "loss" when the graph has a node of that name.
std::vector<std::string> GuessStepFetches(const tensorflow::GraphDef& graph);
// "init" when the graph has it, else every variable's own initialiser ("<variable>/Assign").
std::vector<std::string> GuessInitializers(const tensorflow::GraphDef& graph);

}  // namespace clab
