#include "clab/graph/GraphImport.h"

#include "clab/graph/Graph.h"
#include "clab/graph/GraphKeys.h"

#include <algorithm>
#include <map>
#include <set>

namespace clab {
namespace {

bool IsVariable(const tensorflow::NodeDef& node) {
  return node.op() == "VariableV2" || node.op() == "Variable" || node.op() == "VarHandleOp";
}

// A GraphDef keeps no collections: a variable counts as the model's (trainable) unless it is
// an optimizer's state, which its optimizer colocates with the variable it serves (slots
// such as "w/Momentum") or names "<beta>_power" (Adam's).
bool IsModelVariable(const tensorflow::NodeDef& node) {
  const std::string& name = node.name();
  if (name.size() > 6 && name.compare(name.size() - 6, 6, "_power") == 0) return false;
  const auto colocation = node.attr().find("_class");
  if (colocation != node.attr().end())
    for (const std::string& group : colocation->second.list().s())
      if (group.rfind("loc:@", 0) == 0 && group.substr(5) != name) return false;
  return true;
}

}  // namespace

Status ImportGraphDef(const tensorflow::GraphDef& graph, GraphBuilder* g,
                      const std::function<std::string(const std::string& device)>& device_map) {
  // Validates the graph as the runtime will (ops, inputs, types, cycles) and orders it.
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> checked, Graph::FromGraphDef(graph));
  for (const Node* node : checked->TopologicalOrder()) {
    const tensorflow::NodeDef& def = node->def();
    std::vector<Output> inputs;
    for (const std::string& input : def.input()) {
      if (!input.empty() && input[0] == '^') {
        inputs.push_back(Output(input.substr(1)).control());
        continue;
      }
      CLAB_ASSIGN_OR_RETURN(const TensorId id, TensorId::Parse(input));
      inputs.emplace_back(id.node, id.index);
    }
    std::map<std::string, tensorflow::AttrValue> attrs(def.attr().begin(), def.attr().end());
    const std::string device = device_map ? device_map(def.device()) : def.device();
    {
      // The device exactly as requested: no scope is open, so this is the only one.
      auto scope = g->WithDevice(device);
      g->AddNode(def.op(), inputs, std::move(attrs), def.name() + "/");
    }
    CLAB_RETURN_IF_ERROR(g->status());
    if (IsVariable(def)) {
      g->AddToCollection(GraphKeys::kGlobalVariables, def.name());
      if (def.name() == "global_step") g->AddToCollection(GraphKeys::kGlobalStep, def.name());
      else if (IsModelVariable(def)) g->AddToCollection(GraphKeys::kTrainableVariables, def.name());
    }
  }
  return g->status();
}

std::vector<std::string> GuessStepFetches(const tensorflow::GraphDef& graph) {
  std::set<std::string> consumed;
  std::map<std::string, std::vector<std::string>> inputs;
  std::set<std::string> variables;
  for (const auto& node : graph.node()) {
    if (IsVariable(node)) variables.insert(node.name());
    for (const std::string& input : node.input()) {
      consumed.insert(InputNodeName(input));
      inputs[node.name()].push_back(InputNodeName(input));
    }
  }
  // What only sets the graph up (initialisers, the saver) is not a step.
  std::set<std::string> set_up;
  std::vector<std::string> stack;
  for (const auto& node : graph.node()) {
    const std::string& name = node.name();
    const bool own_initializer = name.size() > 7 && name.compare(name.size() - 7, 7, "/Assign") == 0 &&
                                 variables.count(name.substr(0, name.size() - 7)) > 0;
    if (name == "init" || name.rfind("save/", 0) == 0 || own_initializer) stack.push_back(name);
  }
  while (!stack.empty()) {
    const std::string name = stack.back();
    stack.pop_back();
    if (!set_up.insert(name).second) continue;
    for (const std::string& input : inputs[name]) stack.push_back(input);
  }
  // Also not a step of its own: a bare read of a variable, or a gradient nothing applies
  // (e.g. the gradient with respect to an input).
  const auto incidental = [&](const tensorflow::NodeDef& node) {
    if (node.name().rfind("gradients/", 0) == 0) return true;
    return node.op() == "Identity" && node.input_size() == 1 && variables.count(InputNodeName(node.input(0))) > 0;
  };
  std::vector<std::string> fetches;
  bool has_loss = false;
  for (const auto& node : graph.node()) {
    if (node.name() == "loss") has_loss = true;
    if (!consumed.count(node.name()) && !set_up.count(node.name()) && !incidental(node)) fetches.push_back(node.name());
  }
  // A training step is also watched through its loss.
  if (has_loss && std::find(fetches.begin(), fetches.end(), "loss") == fetches.end()) fetches.push_back("loss");
  return fetches;
}

std::vector<std::string> GuessInitializers(const tensorflow::GraphDef& graph) {
  std::set<std::string> variables;
  for (const auto& node : graph.node()) {
    if (node.name() == "init") return {"init"};
    if (IsVariable(node)) variables.insert(node.name());
  }
  std::vector<std::string> assigns;
  for (const auto& node : graph.node()) {
    const std::string& name = node.name();
    if (node.op() == "Assign" && name.size() > 7 && name.compare(name.size() - 7, 7, "/Assign") == 0 &&
        variables.count(name.substr(0, name.size() - 7)))
      assigns.push_back(name);
  }
  return assigns;
}

}  // namespace clab
