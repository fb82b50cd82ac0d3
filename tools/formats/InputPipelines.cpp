#include "formats/InputPipelines.h"

#include "clab/graph/Graph.h"
#include "clab/graph/OpRegistry.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>

namespace clab::tools {
namespace {

// Ops that read files, or stand for data outside the graph: such a pipeline is cut even
// where the op could run, since the files are rarely where the graph was written.
bool ReadsOutside(const std::string& op) {
  static const std::set<std::string> kOps = {"TFRecordDataset",
                                             "TextLineDataset",
                                             "FixedLengthRecordDataset",
                                             "FixedLengthRecordDatasetV2",
                                             "MatchingFiles",
                                             "ReadFile",
                                             "GeneratorDataset",
                                             "PyFunc",
                                             "PyFuncStateless",
                                             "EagerPyFunc",
                                             "SqlDataset",
                                             "LMDBDataset"};
  return kOps.count(op) > 0 || absl::StrContains(op, "Reader");
}

bool IsIterator(const std::string& op) { return op == "IteratorV2" || op == "Iterator"; }

void Explain(std::string* why_not, const std::string& text) {
  if (why_not != nullptr && why_not->empty()) *why_not = text;
}

}  // namespace

InputPipelines::InputPipelines(const tensorflow::GraphDef& graph) : graph_(graph) {
  for (const auto& node : graph_.node()) nodes_[node.name()] = &node;
  for (const auto& function : graph_.library().function()) functions_[function.signature().name()] = &function;
}

const tensorflow::NodeDef* InputPipelines::IteratorOf(const std::string& get_next) const {
  auto node = nodes_.find(get_next);
  if (node == nodes_.end() || node->second->input_size() == 0) return nullptr;
  auto iterator = nodes_.find(InputNodeName(node->second->input(0)));
  return iterator == nodes_.end() ? nullptr : iterator->second;
}

std::vector<std::string> InputPipelines::Initializers(const std::string& get_next) const {
  std::vector<std::string> makers;
  const tensorflow::NodeDef* iterator = IteratorOf(get_next);
  if (iterator == nullptr || !IsIterator(iterator->op())) return makers;
  for (const auto& node : graph_.node())
    if (node.op() == "MakeIterator" && node.input_size() == 2 && InputNodeName(node.input(1)) == iterator->name())
      makers.push_back(node.name());
  return makers;
}

bool InputPipelines::Runs(const std::string& get_next, std::string* why_not) const {
  const tensorflow::NodeDef* iterator = IteratorOf(get_next);
  if (iterator == nullptr) {
    Explain(why_not, absl::StrCat("'", get_next, "' reads no iterator node"));
    return false;
  }
  std::set<std::string> seen;
  if (iterator->op() == "OneShotIterator") return NodeRuns(iterator->name(), &seen, why_not);
  if (!IsIterator(iterator->op())) {
    Explain(why_not, absl::StrCat("its iterator '", iterator->name(), "' is a ", iterator->op()));
    return false;
  }
  const std::vector<std::string> makers = Initializers(get_next);
  if (makers.empty()) {
    Explain(why_not, absl::StrCat("no MakeIterator starts iterator '", iterator->name(), "'"));
    return false;
  }
  for (const std::string& maker : makers)
    if (!NodeRuns(maker, &seen, why_not)) return false;
  return true;
}

bool InputPipelines::NodeRuns(const std::string& name, std::set<std::string>* seen, std::string* why_not) const {
  std::set<std::string> seen_functions;
  std::vector<std::string> stack = {name};
  while (!stack.empty()) {
    const std::string current = stack.back();
    stack.pop_back();
    if (!seen->insert(current).second) continue;
    auto node = nodes_.find(current);
    if (node == nodes_.end()) {
      Explain(why_not, absl::StrCat("node '", current, "' is missing"));
      return false;
    }
    if (node->second->op() == "Placeholder") {
      Explain(why_not, absl::StrCat("it needs the fed value of placeholder '", current, "'"));
      return false;
    }
    if (!OpRuns(*node->second, &seen_functions, why_not)) return false;
    for (const std::string& input : node->second->input()) stack.push_back(InputNodeName(input));
  }
  return true;
}

bool InputPipelines::OpRuns(const tensorflow::NodeDef& node, std::set<std::string>* seen_functions,
                            std::string* why_not) const {
  if (ReadsOutside(node.op())) {
    Explain(why_not, absl::StrCat("node '", node.name(), "' (", node.op(), ") reads data from outside the graph"));
    return false;
  }
  if (functions_.count(node.op())) return FunctionRuns(node.op(), seen_functions, why_not);
  const OpDef* op = OpRegistry::Global().Find(node.op());
  if (op == nullptr || !op->HasKernel("CPU")) {
    Explain(why_not, absl::StrCat("op ", node.op(), " (node '", node.name(), "') has no CPU kernel here"));
    return false;
  }
  for (const auto& [attr_name, value] : node.attr()) {
    if (value.value_case() == tensorflow::AttrValue::kFunc &&
        !FunctionRuns(value.func().name(), seen_functions, why_not))
      return false;
    if (value.value_case() == tensorflow::AttrValue::kList)
      for (const auto& func : value.list().func())
        if (!FunctionRuns(func.name(), seen_functions, why_not)) return false;
  }
  return true;
}

bool InputPipelines::FunctionRuns(const std::string& name, std::set<std::string>* seen_functions,
                                  std::string* why_not) const {
  if (!seen_functions->insert(name).second) return true;
  auto function = functions_.find(name);
  if (function == functions_.end()) {
    Explain(why_not, absl::StrCat("function '", name, "' is not in the graph's library"));
    return false;
  }
  for (const auto& node : function->second->node_def())
    if (!OpRuns(node, seen_functions, why_not)) return false;
  return true;
}

}  // namespace clab::tools
