// Where each fed and fetched tensor of a step goes once its graph is cut into partitions:
// which partition feeds or fetches it, at which position of that partition's list, and
// which partition runs each target. A tensor the client names twice ("x" and "x:0") is fed
// or fetched once and both names read it.
#pragma once

#include "clab/compile/StepSignature.h"
#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace clab {

struct StepRoutes {
  struct Route {
    int partition = -1;  // -1: a feed that nothing in the pruned graph reads
    int index = 0;       // in that partition's feeds or fetches
  };
  // Per partition: the tensors it is fed and fetches, in canonical form ("x:0") and once
  // each, and the nodes it runs as targets.
  std::vector<std::vector<std::string>> feeds;
  std::vector<std::vector<std::string>> fetches;
  std::vector<std::vector<std::string>> targets;
  // By the names exactly as the signature has them.
  std::unordered_map<std::string, Route> feed_routes;
  std::unordered_map<std::string, Route> fetch_routes;
};

// A node goes to the first partition (in `partitions` order) that holds it: a node that
// several hold (a ps partition the master cut in two) is fed and fetched by the first.
// `signature` must have been checked against the graph (CompileStep does): INTERNAL for a
// fetch that no partition holds.
StatusOr<StepRoutes> RouteStep(const StepSignature& signature,
                               const std::vector<const tensorflow::GraphDef*>& partitions);

}  // namespace clab
