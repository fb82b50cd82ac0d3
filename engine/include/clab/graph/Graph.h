// The runtime's view of a GraphDef: nodes with their resolved op, input and output types,
// and edges in both directions. Built and validated from a GraphDef; placement writes each
// node's assigned device here.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorShape.h"
#include "clab/graph/OpRegistry.h"
#include "tensorflow/graph.pb.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tensorflow {
class OpDefProto;
}

namespace clab {

class ForeignOpDefs;
class Node;

struct Edge {
  Node* src = nullptr;
  int src_output = 0;  // kControlSlot for a control edge
  Node* dst = nullptr;
  int dst_input = 0;  // kControlSlot for a control edge
  static constexpr int kControlSlot = -1;
  bool IsControl() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  const tensorflow::NodeDef& def() const { return def_; }
  const OpDef& op_def() const { return *op_; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  bool IsRefInput(int i) const { return IsRefType(input_types_[static_cast<size_t>(i)]); }

  // Data and control edges; in_edges are ordered data inputs first (by slot), then controls.
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The edge feeding data input i.
  const Edge* input_edge(int i) const;

  const std::string& requested_device() const { return def_.device(); }
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string device) { assigned_device_ = std::move(device); }

 private:
  friend class Graph;
  int id_ = 0;
  tensorflow::NodeDef def_;
  const OpDef* op_ = nullptr;
  std::vector<DataType> input_types_;
  std::vector<DataType> output_types_;
  std::vector<const Edge*> in_edges_;
  std::vector<const Edge*> out_edges_;
  std::string assigned_device_;
};

class Graph {
 public:
  Graph();
  ~Graph();  // out of line: ForeignOpDefs is complete only in Graph.cpp
  // Validates while building; errors name the node and the input at fault: unregistered
  // ops (all of them, listed once), duplicate node names, inputs naming unknown nodes or
  // output slots, data type mismatches along edges, and cycles.
  static StatusOr<std::unique_ptr<Graph>> FromGraphDef(const tensorflow::GraphDef& graph,
                                                       const OpRegistry& registry = OpRegistry::Global());
  // A graph TensorFlow wrote: op types the registry lacks load too, defined by `declared`
  // (a MetaGraphDef's stripped op list; may be empty) or read off their nodes (see
  // ForeignOpDefs). Such nodes have neither kernel nor shape function: they show, and a
  // run that needs them fails naming them.
  static StatusOr<std::unique_ptr<Graph>> FromForeignGraphDef(const tensorflow::GraphDef& graph,
                                                              const std::vector<tensorflow::OpDefProto>& declared,
                                                              const OpRegistry& registry = OpRegistry::Global());
  // Op types of this graph that the registry lacks, each with the nodes using it.
  std::map<std::string, std::vector<std::string>> ForeignOps() const;
  // The graph with defaults filled in; with `with_assigned_devices`, each node's device is
  // its assigned device when it has one.
  tensorflow::GraphDef ToGraphDef(bool with_assigned_devices = false) const;

  const std::vector<Node*>& nodes() const { return node_ptrs_; }
  int num_nodes() const { return static_cast<int>(node_ptrs_.size()); }
  Node* FindNode(std::string_view name) const;
  // Nodes such that every node comes after all its inputs (data and control), except the
  // back edges of loops (out of NextIteration, into the loop's Merge), as TensorFlow orders.
  std::vector<Node*> TopologicalOrder() const;

 private:
  static StatusOr<std::unique_ptr<Graph>> Build(const tensorflow::GraphDef& graph_def, const OpRegistry& registry,
                                                std::unique_ptr<ForeignOpDefs> foreign);

  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Node*> node_ptrs_;
  std::vector<std::unique_ptr<Edge>> edges_;
  std::map<std::string, Node*, std::less<>> by_name_;
  tensorflow::VersionDef versions_;
  std::unique_ptr<ForeignOpDefs> foreign_;  // set for a graph from FromForeignGraphDef
  std::set<const Node*> foreign_nodes_;
};

// "node:3" -> {"node", 3}; "node" -> {"node", 0}; "^node" -> {"node", kControlSlot}.
struct TensorId {
  std::string node;
  int index = 0;
  static StatusOr<TensorId> Parse(std::string_view name);
  std::string ToString() const;  // "node:3", "^node" for control
};

// The node an input string names: "node:3", "node" and "^node" all give "node".
std::string InputNodeName(std::string_view input);

// Shape inference for one node given its inputs' shapes (and constant values when known).
Status InferNodeShapes(const tensorflow::NodeDef& node, const OpDef& op, const std::vector<DataType>& input_types,
                       const std::vector<PartialShape>& input_shapes, const std::vector<const Tensor*>& input_constants,
                       std::vector<PartialShape>* output_shapes);

// Shapes of every output of every node, in topological order; the first error stops it.
// With `problems`, an error is recorded there ("node: message") and that node's outputs
// stay unknown, so one wrong or unknown shape does not hide the rest of the graph.
Status InferGraphShapes(const Graph& graph, std::map<std::string, std::vector<PartialShape>>* shapes,
                        std::vector<std::string>* problems = nullptr);

}  // namespace clab
