#include "runtime/ExecutorPlan.h"

#include "clab/runtime/ThreadPool.h"

#include <absl/strings/str_join.h>

#include <unordered_map>

namespace clab {
namespace {

// "<name> = <Op>(<inputs>)", or TensorFlow's forms for the ends of a cut edge.
std::string TimelineLabel(const Node& node) {
  const tensorflow::NodeDef& def = node.def();
  std::string tensor_name, device;
  if (node.type_string() == "_Send" && GetNodeAttr(def, "tensor_name", &tensor_name).ok() &&
      GetNodeAttr(def, "recv_device", &device).ok())
    return absl::StrCat(node.name(), " = _Send(", tensor_name, " @", device);
  if (node.type_string() == "_Recv" && GetNodeAttr(def, "tensor_name", &tensor_name).ok() &&
      GetNodeAttr(def, "send_device", &device).ok())
    return absl::StrCat(node.name(), " = _Recv(", tensor_name, " @", device);
  std::vector<absl::string_view> inputs;
  for (const std::string& input : def.input()) {
    if (!input.empty() && input[0] != '^') inputs.push_back(input);
  }
  return absl::StrCat(node.name(), " = ", node.type_string(), "(", absl::StrJoin(inputs, ", "), ")");
}

struct ResolvedTensor {
  int node;
  int output;
};

class PlanBuilder {
 public:
  explicit PlanBuilder(ExecutorPlan& plan) : plan_(plan) {}

  Status Build(const Executor::Params& params) {
    CLAB_RETURN_IF_ERROR(IndexNodes());
    CLAB_RETURN_IF_ERROR(AddFeeds(params.feeds));
    CLAB_RETURN_IF_ERROR(AddFetches(params.fetches));
    CLAB_RETURN_IF_ERROR(CheckTargets(params.targets));
    MarkFedOnlyNodes();
    LinkEdges();
    NameReferencedVariables();
    CLAB_RETURN_IF_ERROR(MakeKernels());
    for (size_t i = 0; i < plan_.nodes.size(); ++i) {
      if (plan_.nodes[i].initial_pending == 0) plan_.roots.push_back(static_cast<int>(i));
    }
    CLAB_ASSIGN_OR_RETURN(plan_.frames, ExecutorFrames::Build(plan_));
    return OkStatus();
  }

 private:
  Status IndexNodes() {
    const std::vector<Node*> order = plan_.graph->TopologicalOrder();
    plan_.nodes.resize(order.size());
    int next_slot = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      const Node* node = order[i];
      index_of_[node] = static_cast<int>(i);
      ExecutorNode& item = plan_.nodes[i];
      item.node = node;
      item.num_inputs = node->num_inputs();
      item.input_start = next_slot;
      next_slot += item.num_inputs;
      item.input_is_ref.resize(static_cast<size_t>(item.num_inputs));
      for (int in = 0; in < item.num_inputs; ++in) item.input_is_ref[static_cast<size_t>(in)] = node->IsRefInput(in);
      item.input_variable.assign(static_cast<size_t>(item.num_inputs), nullptr);
      const auto outputs = static_cast<size_t>(node->num_outputs());
      item.feed_of_output.assign(outputs, -1);
      item.output_needed.assign(outputs, false);
      item.output_variable.resize(outputs);
      item.timeline_label = TimelineLabel(*node);
    }
    plan_.num_input_slots = next_slot;
    return OkStatus();
  }

  StatusOr<ResolvedTensor> Resolve(const std::string& name, const char* role) const {
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
    const Node* node = plan_.graph->FindNode(id.node);
    if (!node) return errors::NotFound(role, " '", name, "' is not in the graph: no node named '", id.node, "'");
    if (id.index < 0 || id.index >= node->num_outputs())
      return errors::NotFound(role, " '", name, "' is not in the graph: node '", id.node, "' (", node->type_string(),
                              ") has ", node->num_outputs(), " output(s)");
    return ResolvedTensor{index_of_.at(node), id.index};
  }

  Status AddFeeds(const std::vector<std::string>& feeds) {
    for (size_t i = 0; i < feeds.size(); ++i) {
      CLAB_ASSIGN_OR_RETURN(ResolvedTensor fed, Resolve(feeds[i], "Feed"));
      ExecutorNode& item = plan_.nodes[static_cast<size_t>(fed.node)];
      int& slot = item.feed_of_output[static_cast<size_t>(fed.output)];
      if (slot >= 0) return errors::InvalidArgument("'", feeds[i], "' is fed more than once");
      slot = static_cast<int>(i);
      plan_.feed_names.push_back(feeds[i]);
      plan_.feed_types.push_back(BaseType(item.node->output_types()[static_cast<size_t>(fed.output)]));
    }
    return OkStatus();
  }

  Status AddFetches(const std::vector<std::string>& fetches) {
    for (size_t i = 0; i < fetches.size(); ++i) {
      CLAB_ASSIGN_OR_RETURN(ResolvedTensor fetched, Resolve(fetches[i], "Fetch"));
      ExecutorNode& item = plan_.nodes[static_cast<size_t>(fetched.node)];
      item.fetch_out.push_back({fetched.output, static_cast<int>(i)});
      item.output_needed[static_cast<size_t>(fetched.output)] = true;
    }
    plan_.num_fetches = fetches.size();
    return OkStatus();
  }

  Status CheckTargets(const std::vector<std::string>& targets) const {
    for (const std::string& target : targets) {
      const std::string name = !target.empty() && target[0] == '^' ? target.substr(1) : target;
      if (!plan_.graph->FindNode(name))
        return errors::NotFound("Target '", target, "' is not in the graph: no node named '", name, "'");
    }
    return OkStatus();
  }

  void MarkFedOnlyNodes() {
    for (const Node* node : plan_.graph->nodes()) {
      for (const Edge* edge : node->in_edges()) {
        if (!edge->IsControl())
          plan_.nodes[static_cast<size_t>(index_of_.at(edge->src))]
              .output_needed[static_cast<size_t>(edge->src_output)] = true;
      }
    }
    for (ExecutorNode& item : plan_.nodes) {
      bool any_fed = false, all_needed_fed = true;
      for (size_t out = 0; out < item.feed_of_output.size(); ++out) {
        const bool fed = item.feed_of_output[out] >= 0;
        any_fed |= fed;
        if (item.output_needed[out] && !fed) all_needed_fed = false;
      }
      item.fed_only = any_fed && all_needed_fed;
    }
  }

  // A fed-only node waits for nothing: the edges into it are dropped, so its producers
  // (left in only when pruning kept them for another reason) do not hold it back.
  void LinkEdges() {
    for (size_t dst = 0; dst < plan_.nodes.size(); ++dst) {
      ExecutorNode& item = plan_.nodes[dst];
      if (item.fed_only) continue;
      for (const Edge* edge : item.node->in_edges()) {
        ExecutorNode& src = plan_.nodes[static_cast<size_t>(index_of_.at(edge->src))];
        if (edge->IsControl()) {
          src.control_out.push_back(static_cast<int>(dst));
        } else {
          src.data_out.push_back({edge->src_output, static_cast<int>(dst), item.input_start + edge->dst_input});
        }
        ++item.initial_pending;
      }
    }
  }

  // A reference output names the variable it refers to, following references through
  // nodes that pass them on (Assign, ref Identity), so errors name the variable itself.
  void NameReferencedVariables() {
    for (ExecutorNode& item : plan_.nodes) {
      const Node& node = *item.node;
      const std::string* forwarded = nullptr;
      for (int in = 0; in < node.num_inputs(); ++in) {
        const Edge* edge = node.input_edge(in);
        if (!edge) continue;
        ExecutorNode& src = plan_.nodes[static_cast<size_t>(index_of_.at(edge->src))];
        if (!IsRefType(edge->src->output_types()[static_cast<size_t>(edge->src_output)])) continue;
        const std::string* variable = &src.output_variable[static_cast<size_t>(edge->src_output)];
        item.input_variable[static_cast<size_t>(in)] = variable;
        if (!forwarded && node.IsRefInput(in)) forwarded = variable;
      }
      for (int out = 0; out < node.num_outputs(); ++out) {
        if (IsRefType(node.output_types()[static_cast<size_t>(out)]))
          item.output_variable[static_cast<size_t>(out)] = forwarded ? *forwarded : node.name();
      }
    }
  }

  Status MakeKernels() {
    Device* device = plan_.device;
    for (ExecutorNode& item : plan_.nodes) {
      if (item.fed_only) continue;
      const Node& node = *item.node;
      auto factory = node.op_def().kernels.find(device->type());
      if (factory == node.op_def().kernels.end())
        return errors::InvalidArgument("No kernel for op '", node.type_string(), "' on ", device->type(),
                                       " devices (node '", node.name(), "' placed on ", device->name(), ")");
      OpKernelConstruction construction(node.def(), node.op_def(), device, node.input_types(), node.output_types());
      construction.set_function_library(plan_.functions.get());
      auto kernel = factory->second(construction);
      if (!kernel.ok())
        return errors::Annotate(kernel.status(), absl::StrCat("Node '", node.name(), "' (", node.type_string(), "): "));
      item.kernel = *std::move(kernel);
      item.is_async = item.kernel->IsAsync();
      item.is_expensive = item.kernel->IsExpensive();
    }
    return OkStatus();
  }

  ExecutorPlan& plan_;
  std::unordered_map<const Node*, int> index_of_;
};

}  // namespace

StatusOr<std::unique_ptr<ExecutorPlan>> ExecutorPlan::Build(Executor::Params params) {
  if (!params.device) return errors::InvalidArgument("An executor needs a device");
  auto plan = std::make_unique<ExecutorPlan>();
  CLAB_ASSIGN_OR_RETURN(plan->graph, Graph::FromGraphDef(params.graph));
  plan->device = params.device;
  plan->functions = std::make_shared<const FunctionLibrary>(params.graph.library());
  plan->thread_pool = params.thread_pool ? params.thread_pool : ThreadPool::Default();
  plan->run_on_caller = params.run_on_caller;
  CLAB_RETURN_IF_ERROR(PlanBuilder(*plan).Build(params));
  plan->measured_nanos = std::make_unique<std::atomic<int32_t>[]>(plan->nodes.size());
  for (size_t i = 0; i < plan->nodes.size(); ++i) plan->measured_nanos[i].store(-1, std::memory_order_relaxed);
  return plan;
}

}  // namespace clab
