// Checks a GraphDef the way the engine will when it runs it, but node by node, so that the
// editor can mark every node at fault rather than stop at the first problem: unknown ops,
// bad or missing attrs, inputs naming unknown nodes or outputs, inputs left unconnected,
// data type mismatches, cycles, and shape functions that reject their inputs. Messages are
// the engine's own (OpRegistry, AddDefaultsAndValidate, Graph::FromGraphDef,
// InferNodeShapes). Also resolves each node's ports (names and data types) and infers the
// shape of every output.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/TensorShape.h"
#include "tensorflow/graph.pb.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <vector>

namespace clab::ui {

struct NodePorts {
  QStringList input_names;            // "a", "b"; "values_0", "values_1" for a list input
  std::vector<DataType> input_types;  // DT_INVALID when unknown
  QStringList output_names;
  std::vector<DataType> output_types;
  std::vector<PartialShape> output_shapes;  // unknown when not inferred
};

struct GraphCheck {
  QHash<QString, NodePorts> ports;  // every node, by name
  QHash<QString, QString> errors;   // node -> message, only nodes at fault
  QString graph_error;              // a problem no single node owns (empty when none)
  bool ok() const { return errors.isEmpty() && graph_error.isEmpty(); }
  // "node: message" lines, in GraphDef order of the nodes.
  QStringList messages(const tensorflow::GraphDef& graph) const;
};

class GraphValidator {
 public:
  static GraphCheck check(const tensorflow::GraphDef& graph);
};

}  // namespace clab::ui
