// tf.Variable and tf.global_variables_initializer, built from VariableV2, Assign, Identity
// and NoOp nodes named and colocated exactly as TensorFlow 1.x names and colocates them, so
// graphs, checkpoints and placement logs read the same.
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"

namespace clab::ops {

Variable MakeVariable(GraphBuilder& g, const Output& initial_value, std::string_view name, bool trainable) {
  // The variable's scope ("w", or "w_1" when taken) names the VariableV2 itself, and its
  // initializer and snapshot live inside it: "w", "w/Assign", "w/read".
  auto scope = g.WithNameScope(name.empty() ? "Variable" : name);
  const std::string var_name = g.CurrentNameScope();

  const DataType dtype = BaseType(g.TypeOf(initial_value));
  const PartialShape shape = g.ShapeOf(initial_value);
  Variable variable;
  variable.var = g.AddNode("VariableV2", {}, {{"shape", AttrOf(shape)}, {"dtype", AttrOf(dtype)}}, var_name + "/");
  {
    // Both follow the variable wherever a device function puts it (a ps task), and
    // neither advances a replica_device_setter's round robin.
    auto colocated = g.ColocateWith(variable.var);
    variable.initializer = g.AddNode("Assign", {variable.var, initial_value}, {}, "Assign");
    variable.read = g.AddNode("Identity", {variable.var}, {}, "read");
  }
  g.AddToCollection(GraphKeys::kGlobalVariables, var_name);
  if (trainable) g.AddToCollection(GraphKeys::kTrainableVariables, var_name);
  return variable;
}

Output GlobalVariablesInitializer(GraphBuilder& g, std::string_view name) {
  // MakeVariable names a variable's initializer "<var>/Assign"; variables created by hand
  // without one are skipped, as they are not initialisable by this op either way.
  std::vector<Output> initializers;
  for (const std::string& var : g.Collection(GraphKeys::kGlobalVariables)) {
    const std::string initializer = var + "/Assign";
    const tensorflow::NodeDef* node = g.FindNode(initializer);
    if (node != nullptr && node->input_size() > 0 && node->input(0) == var)
      initializers.push_back(Output(initializer).control());
  }
  return g.AddNode("NoOp", initializers, {}, name);
}

}  // namespace clab::ops
