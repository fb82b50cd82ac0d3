// Keeps only what a run needs: the fetched tensors' and target nodes' ancestors, cutting at
// fed tensors (a fed node's own inputs are not needed).
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <string>
#include <vector>

namespace clab {

// NOT_FOUND names a fetch, feed or target that is not in the graph.
Status PruneGraph(const tensorflow::GraphDef& graph, const std::vector<std::string>& feeds,
                  const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                  tensorflow::GraphDef* pruned);

}  // namespace clab
