// A FunctionDef's body as a graph an Executor runs: each input_arg becomes a Placeholder
// of the same name (fed), each node's "node:output_arg:index" inputs become "node:k"
// tensor names (k counted through the op's output args, list lengths read off the node's
// attrs), and each output_arg's `ret` entry becomes a fetch. Attr placeholders ("$T")
// take the instantiation's attrs.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <string>
#include <vector>

namespace clab {

struct FunctionBodyGraph {
  tensorflow::GraphDef graph;
  std::vector<std::string> feeds;    // one per input_arg
  std::vector<std::string> fetches;  // one per output_arg
  std::vector<std::string> targets;  // the control_ret nodes
  std::vector<DataType> arg_types;
  std::vector<DataType> ret_types;
};

// Errors name the function, and the body node or arg at fault.
StatusOr<FunctionBodyGraph> BuildFunctionBodyGraph(
    const tensorflow::FunctionDef& function, const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs,
    const tensorflow::FunctionDefLibrary& library);

}  // namespace clab
