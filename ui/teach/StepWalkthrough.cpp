#include "teach/StepWalkthrough.h"

#include "clab/compile/CompileStep.h"
#include "clab/distributed/Server.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphImport.h"
#include "clab/runtime/Session.h"
#include "network/LoopbackPorts.h"

#include <QSet>

#include <algorithm>

namespace clab::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

std::vector<std::string> Std(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& s : list) out.push_back(s.toStdString());
  return out;
}

QString NodeOf(const QString& input) { return Q(InputNodeName(input.toStdString())); }

// A zero tensor for a placeholder, its unknown dimensions taken as 1.
StatusOr<Tensor> ZeroFeed(const tensorflow::NodeDef& node, QString* described) {
  const auto dtype_it = node.attr().find("dtype");
  if (dtype_it == node.attr().end())
    return errors::InvalidArgument("placeholder '", node.name(), "' has no dtype attr");
  std::vector<int64_t> dims;
  const auto shape_it = node.attr().find("shape");
  if (shape_it != node.attr().end() && !shape_it->second.shape().unknown_rank())
    for (const auto& dim : shape_it->second.shape().dim()) dims.push_back(dim.size() < 0 ? 1 : dim.size());
  QStringList text;
  for (int64_t d : dims) text << QString::number(d);
  *described = Q(node.name()) + " (" + (text.isEmpty() ? QStringLiteral("scalar") : text.join("x")) + " zeros)";
  return Tensor(static_cast<DataType>(dtype_it->second.type()), TensorShape(dims));
}

}  // namespace

bool WalkExecution::isTransfer() const {
  return op == "_Send" || op == "_Recv" || op == "_PackTensors" || op == "_UnpackTensors";
}

QString StepWalkthrough::taskOf(const QString& device) {
  const int at = device.indexOf("/device:");
  return at < 0 ? device : device.left(at);
}

qint64 StepWalkthrough::transferBytes() const {
  qint64 total = 0;
  for (const WalkTransfer& t : transfers) total += std::max<qint64>(t.bytes, 0);
  return total;
}

QList<WalkExecution> StepWalkthrough::executionsOf(int step) const {
  const int wanted = step < 0 ? static_cast<int>(step_stats.size()) - 1 : step;
  QList<WalkExecution> out;
  for (const WalkExecution& e : executed)
    if (e.step == wanted) out << e;
  return out;
}

QStringList StepWalkthrough::guessInit(const tensorflow::GraphDef& graph) {
  QStringList names;
  for (const std::string& name : GuessInitializers(graph)) names << Q(name);
  return names;
}

QStringList StepWalkthrough::guessFetches(const tensorflow::GraphDef& graph) {
  QStringList names;
  for (const std::string& name : GuessStepFetches(graph)) names << Q(name);
  return names;
}

StatusOr<StepWalkthrough> StepWalkthrough::plan(const tensorflow::GraphDef& graph,
                                                const QMap<QString, QStringList>& tasks, const QStringList& asked,
                                                const QStringList& asked_targets) {
  // A name of a node without outputs (a train op) is run as a target, as session.run does.
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> whole, Graph::FromGraphDef(graph));
  QStringList fetches, targets = asked_targets;
  for (const QString& name : asked) {
    const Node* node = whole->FindNode(name.toStdString());
    (node && node->num_outputs() == 0 ? targets : fetches) << name;
  }
  if (fetches.isEmpty() && targets.isEmpty())
    return errors::InvalidArgument("a step needs at least one tensor to fetch or node to run");
  if (tasks.isEmpty()) return errors::InvalidArgument("the project has no tasks to run the step on");
  StepWalkthrough walk;
  walk.fetches = fetches;
  walk.targets = targets;
  walk.total_nodes = graph.node_size();

  // The master's pipeline on one CPU per task; unconstrained nodes go to the session's own
  // task (worker 0).
  CompileOptions options;
  for (auto it = tasks.begin(); it != tasks.end(); ++it)
    for (int i = 0; i < it.value().size(); ++i) {
      const QString task = QStringLiteral("/job:%1/replica:0/task:%2").arg(it.key()).arg(i);
      walk.task_names << task;
      options.devices.push_back({(task + "/device:CPU:0").toStdString(), "CPU"});
    }
  walk.session_task =
      tasks.contains("worker") ? QStringLiteral("/job:worker/replica:0/task:0") : walk.task_names.first();
  options.placer.allow_soft_placement = true;
  options.placer.default_device = walk.session_task.toStdString();
  options.placer.log = [](const std::string&) {};
  options.partition_by = PartitionBy::kTask;
  options.incarnation_of = [](const std::string&) { return uint64_t{1}; };
  options.describe_transfers = true;
  const StepSignature signature{{}, Std(fetches), Std(targets)};
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<CompiledStep> step, CompileStep(graph, *whole, signature, options));

  // Prune and place: what the step keeps, and where each kept node runs.
  QSet<QString> kept;
  for (const Node* node : step->placed->nodes()) {
    kept.insert(Q(node->name()));
    walk.assigned.insert(Q(node->name()), Q(node->assigned_device()));
  }
  for (const auto& node : graph.node()) (kept.contains(Q(node.name())) ? walk.kept : walk.pruned) << Q(node.name());

  // Partition, in the project's task order: each task's nodes, then what crosses tasks.
  for (const QString& task : walk.task_names) {
    const int index = step->PartitionIndex(task.toStdString());
    if (index < 0) continue;
    WalkPartition partition;
    partition.task = task;
    for (const auto& node : step->partitions[static_cast<size_t>(index)].graph.node())
      partition.nodes << Q(node.name());
    walk.partitions << partition;
  }
  for (const QString& task : walk.task_names) {
    const int index = step->PartitionIndex(task.toStdString());
    for (const CompiledStep::Transfer& sent : step->transfers) {
      if (index < 0 || sent.from != index) continue;
      WalkTransfer transfer;
      transfer.tensor = Q(sent.tensor);
      transfer.producer = NodeOf(transfer.tensor);
      transfer.send_node = Q(sent.send_node);
      transfer.from_task = task;
      transfer.bytes = sent.bytes;
      for (const std::string& tensor : sent.packed) transfer.packed << Q(tensor);
      for (const QString& tensor : transfer.packed.isEmpty() ? QStringList{transfer.tensor} : transfer.packed) {
        StatusOr<TensorId> id = TensorId::Parse(tensor.toStdString());
        const Node* src = id.ok() ? step->placed->FindNode(id->node) : nullptr;
        if (!src) continue;
        for (const Edge* edge : src->out_edges())
          if (edge->src_output == id->index && taskOf(Q(edge->dst->assigned_device())) != task)
            transfer.edges.append({Q(src->name()), Q(edge->dst->name())});
      }
      if (sent.to >= 0) {
        const CompiledStep::Partition& receiver = step->partitions[static_cast<size_t>(sent.to)];
        transfer.to_task = Q(receiver.name);
        transfer.recv_node = Q(sent.recv_node);
        for (const auto& consumer : receiver.graph.node())
          for (const std::string& input : consumer.input())
            if (NodeOf(Q(input)) == transfer.recv_node) {
              transfer.consumers << Q(consumer.name());
              break;
            }
      }
      walk.transfers << transfer;
    }
  }
  return walk;
}

StatusOr<StepWalkthrough> StepWalkthrough::build(const tensorflow::GraphDef& graph,
                                                 const QMap<QString, QStringList>& tasks, const QStringList& fetches,
                                                 const QStringList& targets, const QStringList& init, int steps) {
  CLAB_ASSIGN_OR_RETURN(StepWalkthrough walk, plan(graph, tasks, fetches, targets));
  walk.init = init;
  CLAB_RETURN_IF_ERROR(walk.run(graph, tasks, steps));
  return walk;
}

Status StepWalkthrough::run(const tensorflow::GraphDef& graph, const QMap<QString, QStringList>& tasks, int steps) {
  StepWalkthrough& walk = *this;
  const QStringList& init = walk.init;
  // Run: a private cluster, one in-process server per task, the session on the step's task.
  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports,
                        tools::PickFreeLoopbackPorts(static_cast<int>(task_names.size())));
  std::map<std::string, std::vector<std::string>> jobs;
  size_t next_port = 0;
  for (auto it = tasks.begin(); it != tasks.end(); ++it)
    for (int i = 0; i < it.value().size(); ++i)
      jobs[it.key().toStdString()].push_back("127.0.0.1:" + std::to_string(ports[next_port++]));
  CLAB_ASSIGN_OR_RETURN(const ClusterSpec cluster, ClusterSpec::FromDict(jobs));
  std::vector<std::unique_ptr<Server>> servers;
  std::string target;
  for (auto it = tasks.begin(); it != tasks.end(); ++it)
    for (int i = 0; i < it.value().size(); ++i) {
      ServerOptions server_options;
      server_options.cluster = cluster;
      server_options.job_name = it.key().toStdString();
      server_options.task_index = i;
      server_options.log = [](const std::string&) {};
      CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));
      if (Q(server->task_name()) == walk.session_task) target = server->target();
      servers.push_back(std::move(server));
    }
  const auto stop_servers = [&servers] {
    for (auto& server : servers) server->Stop().IgnoreError();
  };
  Status run_status = [&]() -> Status {
    SessionOptions session_options;
    session_options.target = target;
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
    CLAB_RETURN_IF_ERROR(session->Create(graph));
    std::vector<Tensor> outputs;
    if (!init.isEmpty()) CLAB_RETURN_IF_ERROR(session->Run({}, {}, Std(init), &outputs));
    FeedList feeds;
    // The placeholders the step needs: the kept ones (plan() pruned for this step).
    const QSet<QString> kept(walk.kept.begin(), walk.kept.end());
    for (const auto& node : graph.node()) {
      if (node.op() != "Placeholder" || !kept.contains(Q(node.name()))) continue;
      QString described;
      CLAB_ASSIGN_OR_RETURN(Tensor zeros, ZeroFeed(node, &described));
      feeds.emplace_back(node.name(), std::move(zeros));
      walk.fed << described;
    }
    tensorflow::RunOptions run_options;
    run_options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
    int64_t origin = -1;
    for (int step = 0; step < std::max(1, steps); ++step) {
      tensorflow::RunMetadata metadata;
      CLAB_RETURN_IF_ERROR(session->Run(run_options, feeds, Std(walk.fetches), Std(walk.targets), &outputs, &metadata));
      walk.step_stats << metadata.step_stats();
      for (const auto& device : metadata.step_stats().dev_stats())
        for (const auto& node : device.node_stats())
          if (origin < 0 || node.all_start_micros() < origin) origin = node.all_start_micros();
      for (const auto& device : metadata.step_stats().dev_stats())
        for (const auto& node : device.node_stats()) {
          WalkExecution e;
          e.node = Q(node.node_name());
          const QString label = Q(node.timeline_label());
          const int eq = label.indexOf(" = ");
          const int paren = label.indexOf('(', eq);
          e.op = eq >= 0 && paren > eq ? label.mid(eq + 3, paren - eq - 3) : QString();
          if (paren > eq && eq >= 0 && e.op != "_Send" && e.op != "_Recv") {
            const QString args = label.mid(paren + 1, label.lastIndexOf(')') - paren - 1);
            for (const QString& arg : args.split(", ", Qt::SkipEmptyParts)) e.inputs << NodeOf(arg.trimmed());
          }
          e.device = Q(device.device());
          e.start_us = node.all_start_micros() - origin;
          e.end_us = e.start_us + std::max<int64_t>(node.all_end_rel_micros(), 1);
          e.step = step;
          walk.executed << e;
        }
    }
    walk.stats = walk.step_stats.last();
    walk.result.clear();
    for (int i = 0; i < walk.fetches.size(); ++i)
      walk.result << walk.fetches[i] + " = " + Q(outputs[static_cast<size_t>(i)].DebugString(16));
    return session->Close();
  }();
  stop_servers();
  CLAB_RETURN_IF_ERROR(run_status);
  // In the order nodes finished, which is the order their outputs became available: a
  // _Recv starts waiting with the step but finishes only when its tensor has arrived. A
  // node that ran at once on the thread that delivered its input can be timed as finishing
  // first, so each node then moves after the nodes it read from.
  std::stable_sort(walk.executed.begin(), walk.executed.end(), [](const WalkExecution& a, const WalkExecution& b) {
    if (a.step != b.step) return a.step < b.step;
    return a.end_us != b.end_us ? a.end_us < b.end_us : a.start_us < b.start_us;
  });
  for (int i = 0; i < walk.executed.size(); ++i) {
    int last_input = -1;
    for (int j = i + 1; j < walk.executed.size() && walk.executed[j].step == walk.executed[i].step; ++j)
      if (walk.executed[i].inputs.contains(walk.executed[j].node)) last_input = j;
    if (last_input < 0) continue;
    walk.executed.move(i, last_input);  // now just after it
    --i;                                // look at what moved into place i
  }
  return OkStatus();
}

}  // namespace clab::ui
