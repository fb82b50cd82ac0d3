// What ClusterLab does with a GraphDef it has read, short of running it: build the
// runtime's Graph (types, edges, cycles), import it into a GraphBuilder (as a training
// program's scaffold does) and guess what a step fetches and what initialises it.
#pragma once

#include "clab/graph/Graph.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/GraphImport.h"

namespace clab::fuzz {

inline void CheckGraph(const tensorflow::GraphDef& graph_def) {
  auto graph = Graph::FromGraphDef(graph_def);
  if (graph.ok()) (void)(*graph)->ToGraphDef();
  GraphBuilder builder;
  (void)ImportGraphDef(graph_def, &builder);
  (void)GuessStepFetches(graph_def);
  (void)GuessInitializers(graph_def);
}

}  // namespace clab::fuzz
