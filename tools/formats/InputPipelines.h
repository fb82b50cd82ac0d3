// Which tf.data input pipelines of a graph can run as they are: those built from the
// graph's own tensors (a TensorSliceDataset of constants) with ops that all have CPU
// kernels here, reading no file and needing no fed value, in the graph and in the library
// functions they call (MapDataset's f, OneShotIterator's dataset_factory). `clab run`
// keeps such a pipeline and starts its iterator, instead of cutting it at IteratorGetNext
// and feeding generated values.
#pragma once

#include "tensorflow/graph.pb.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clab::tools {

class InputPipelines {
 public:
  explicit InputPipelines(const tensorflow::GraphDef& graph);

  // Whether the pipeline that the IteratorGetNext node `get_next` reads can run; if not,
  // *why_not says what stops it (an op without a kernel, a file read, a placeholder).
  bool Runs(const std::string& get_next, std::string* why_not = nullptr) const;
  // The nodes that start the pipeline's iterator (its MakeIterator nodes; none for a
  // OneShotIterator).
  std::vector<std::string> Initializers(const std::string& get_next) const;

 private:
  // Checks `node` and everything upstream of it, in the graph.
  bool NodeRuns(const std::string& node, std::set<std::string>* seen, std::string* why_not) const;
  // Checks one op (of a graph node or a function body) and the functions its attrs name.
  bool OpRuns(const tensorflow::NodeDef& node, std::set<std::string>* seen_functions, std::string* why_not) const;
  bool FunctionRuns(const std::string& function, std::set<std::string>* seen_functions, std::string* why_not) const;
  // The iterator node that `get_next` reads, or nullptr.
  const tensorflow::NodeDef* IteratorOf(const std::string& get_next) const;

  const tensorflow::GraphDef& graph_;
  std::map<std::string, const tensorflow::NodeDef*> nodes_;
  std::map<std::string, const tensorflow::FunctionDef*> functions_;
};

}  // namespace clab::tools
