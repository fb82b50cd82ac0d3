#include "graph/GraphProgram.h"

#include "clab/core/DeviceName.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphImport.h"
#include "clab/graph/Prune.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MonitoredSession.h"

#include <absl/strings/str_join.h>

#include <ostream>

namespace clab::examples {

std::string WorkerReplicaDevice(const std::string& device, int task_index) {
  StatusOr<DeviceName> name = DeviceName::Parse(device);
  if (!name.ok() || !name->has_job || name->job != "worker" || (name->has_task && name->task != 0)) return device;
  name->has_task = true;
  name->task = task_index;
  return name->ToString();
}

Status RunGraphProgram(const GraphProgramOptions& options, std::ostream& out) {
  // A worker checks the graph and its step before it starts serving: a graph it cannot run
  // fails at once, naming what is wrong, rather than after the cluster came up.
  GraphBuilder g;
  if (options.job_name != "worker") {
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, StartTaskServer(options, out));
    return OkStatus();  // a ps, after serving until a signal
  }
  CLAB_RETURN_IF_ERROR(ImportGraphDef(
      options.graph, &g, [&](const std::string& device) { return WorkerReplicaDevice(device, options.task_index); }));
  std::vector<std::string> fetches = options.fetches.empty() ? GuessStepFetches(options.graph) : options.fetches;
  if (fetches.empty())
    return errors::InvalidArgument(
        "the graph has nothing to run in a step: every node feeds another, or only sets "
        "the graph up (name the step's tensors with --fetch)");
  // Which fetches are printed: tensors, not train ops.
  std::vector<bool> printed;
  for (const std::string& fetch : fetches) {
    StatusOr<TensorId> id = TensorId::Parse(fetch);
    const tensorflow::NodeDef* node = id.ok() ? g.FindNode(id->node) : nullptr;
    if (!node)
      return errors::NotFound("--fetch '", fetch, "': no node named '", id.ok() ? id->node : fetch, "' in the graph");
    printed.push_back(!g.Outputs(node->name()).empty());
  }
  // Nothing feeds a placeholder here: say so before any session starts.
  {
    std::vector<std::string> targets;
    for (const std::string& fetch : fetches) {
      StatusOr<TensorId> id = TensorId::Parse(fetch);
      targets.push_back(id.ok() ? id->node : fetch);
    }
    tensorflow::GraphDef needed;
    CLAB_RETURN_IF_ERROR(PruneGraph(options.graph, {}, {}, targets, &needed));
    std::vector<std::string> placeholders;
    for (const auto& node : needed.node())
      if (node.op() == "Placeholder") placeholders.push_back(node.name());
    if (!placeholders.empty())
      return errors::InvalidArgument("the step needs the placeholder(s) ", absl::StrJoin(placeholders, ", "),
                                     ", which nothing feeds when a graph runs on its own: read the data in the graph "
                                     "(MinibatchDataset) or use a constant");
  }
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, StartTaskServer(options, out));
  std::optional<Output> global_step = GetGlobalStep(g);
  std::string added_on;  // where a global step was added, when the graph had none
  if (!global_step) {
    // Not in the graph: a global step on the first ps task, incremented with each step.
    const std::string device = options.cluster.ToDict().count("ps") ? "/job:ps/task:0" : "";
    {
      auto scope = g.WithDevice(device);
      global_step = GetOrCreateGlobalStep(g);
    }
    added_on = device.empty() ? "this task" : device;
    fetches.push_back(IncrementGlobalStep(g, *global_step).name());
    printed.push_back(false);
  }
  CLAB_RETURN_IF_ERROR(g.status());

  MonitoredTrainingSessionOptions session_options = WorkerSessionOptions(options, *server, options.max_seconds);
  // What the program prints also goes to the task's event stream (the studio's console).
  const auto say = [&](const std::string& line) {
    out << line << std::endl;
    TaskEvent event;
    event.mutable_log()->set_level(static_cast<int>(LogLevel::kInfo));
    event.mutable_log()->set_text(line);
    session_options.log->Emit(std::move(event));
  };
  if (!added_on.empty())
    say(StrCat("The graph has no global step: one was added on ", added_on,
               " and is incremented with each step, so StopAtStepHook(last_step=", options.last_step,
               ") ends the run."));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> mon_sess, MonitoredTrainingSession(g, session_options));
  std::vector<Tensor> outputs;
  int64_t runs = 0;
  const int64_t every = std::max<int64_t>(options.print_every, 1);
  while (!mon_sess->should_stop()) {
    Status status = mon_sess->Run(fetches, {}, &outputs);
    if (absl::IsOutOfRange(status)) break;  // the input ran out: the session has stopped
    CLAB_RETURN_IF_ERROR(status);
    ++runs;
    if (runs % every != 0 && runs != 1) continue;
    std::vector<std::string> values;
    for (size_t i = 0; i < fetches.size(); ++i)
      if (printed[i]) values.push_back(StrCat(fetches[i], " = ", outputs[i].DebugString(16)));
    if (!values.empty()) say(StrCat("step ", runs, ": ", absl::StrJoin(values, ", ")));
  }
  std::vector<Tensor> step;
  CLAB_RETURN_IF_ERROR(mon_sess->raw_session()->Run({}, {GlobalStepReadTensor(*global_step)}, {}, &step));
  const int64_t final_step = step.at(0).scalar<int64_t>();
  say(StrCat("Stopped at global step ", final_step, " after ", runs, " runs of this worker."));
  CLAB_RETURN_IF_ERROR(mon_sess->Close());
  return server->Stop();
}

}  // namespace clab::examples
