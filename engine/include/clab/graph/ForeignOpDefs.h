// Definitions of op types that ClusterLab's registry lacks, for loading a graph that
// TensorFlow wrote: such a graph must load and show (nodes, attrs, edges) even where
// ClusterLab cannot run it. A definition comes from what the file itself declares (a
// MetaGraphDef's stripped op list holds the signature of every op its graph uses) or, for
// a plain GraphDef, is read off the nodes: one input per data input, as many outputs as
// consumers name, of the type its "T"/"dtype" attr gives (else unknown, DT_INVALID).
// None of them has a kernel or a shape function.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/OpRegistry.h"
#include "tensorflow/graph.pb.h"
#include "tensorflow/meta_graph.pb.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab {

class ForeignOpDefs {
 public:
  // Adds the declared signature (TensorFlow's OpDef message); errors name the op and the
  // arg or attr at fault.
  Status Declare(const tensorflow::OpDefProto& proto);
  // The declared definition of `op_name`, or nullptr.
  const OpDef* FindDeclared(std::string_view op_name) const;
  // A definition read off `node` alone (per node: variadic ops differ between nodes):
  // `num_outputs` outputs typed from the node's attrs.
  const OpDef* InferFromNode(const tensorflow::NodeDef& node, int num_outputs, std::vector<DataType>* input_types,
                             std::vector<DataType>* output_types);
  bool empty() const { return declared_.empty() && inferred_.empty(); }

 private:
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> declared_;
  std::vector<std::unique_ptr<OpDef>> inferred_;
};

}  // namespace clab
