#include "distributed/RegisteredGraph.h"

#include "clab/compile/Partition.h"
#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/runtime/Rendezvous.h"

#include <atomic>
#include <map>
#include <set>

namespace clab {
namespace {

std::string CanonicalTensorName(const TensorId& id) { return StrCat(id.node, ":", id.index); }

// The node and output a fed or fetched tensor names, checked against the graph.
StatusOr<TensorId> FindTensor(const Graph& graph, const std::string& name, std::string_view role,
                              const std::string& task_name) {
  CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
  const Node* node = graph.FindNode(id.node);
  if (!node)
    return errors::NotFound(role, " '", name, "' is not in the graph registered with ", task_name,
                            ": there is no node named '", id.node, "'");
  if (id.index < 0 || id.index >= node->num_outputs())
    return errors::NotFound(role, " '", name, "' is not in the graph registered with ", task_name, ": node '", id.node,
                            "' (", node->type_string(), ") has ", node->num_outputs(), " output(s)");
  return id;
}

}  // namespace

// One step of the graph: counts the devices still running and assembles the fetches once
// the last one is done. Deletes itself.
class RegisteredGraph::Run {
 public:
  Run(const RegisteredGraph& graph, StepRendezvous* rendezvous, bool collect_stats, RunDone done)
      : graph_(graph), rendezvous_(rendezvous), collect_stats_(collect_stats), done_(std::move(done)),
        results_(graph.parts_.size()), remaining_(static_cast<int>(graph.parts_.size())) {}

  void Start(int64_t step_id, std::vector<Tensor>& feeds) {
    if (graph_.parts_.empty()) return Finish();
    // Built first, then started: the last device to finish deletes this object, possibly
    // while later devices would still be being started from here.
    std::vector<Executor::RunArgs> args(graph_.parts_.size());
    for (size_t p = 0; p < graph_.parts_.size(); ++p) {
      const DevicePart& part = graph_.parts_[p];
      args[p].step_id = step_id;
      args[p].rendezvous = rendezvous_;
      args[p].collect_stats = collect_stats_;
      args[p].feeds.reserve(part.feed_indices.size());
      for (int index : part.feed_indices) args[p].feeds.push_back(feeds[static_cast<size_t>(index)]);
    }
    const size_t num_parts = graph_.parts_.size();
    for (size_t p = 0; p < num_parts; ++p) {
      Executor* executor = graph_.parts_[p].executor.get();
      executor->RunAsync(std::move(args[p]), [this, p](Executor::Result result) { PartDone(p, std::move(result)); });
    }
  }

 private:
  void PartDone(size_t part, Executor::Result result) {
    // The executor aborts the rendezvous itself; doing it here too covers failures that
    // happen before any node ran (a bad feed).
    if (!result.status.ok()) rendezvous_->StartAbort(result.status);
    results_[part] = std::move(result);
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }

  void Finish() {
    RunResult run;
    for (const Executor::Result& result : results_) {
      if (!result.status.ok()) {
        run.status = result.status;
        break;
      }
    }
    if (!run.status.ok()) {
      // The first abort is the root cause; other devices' errors are its echoes.
      const Status cause = rendezvous_->abort_cause();
      if (!cause.ok()) run.status = cause;
    } else {
      run.fetches.reserve(graph_.fetch_routes_.size());
      for (const FetchRoute& route : graph_.fetch_routes_)
        run.fetches.push_back(results_[static_cast<size_t>(route.part)].fetches[static_cast<size_t>(route.index)]);
    }
    if (collect_stats_) {
      for (Executor::Result& result : results_) *run.stats.add_dev_stats() = std::move(result.stats);
    }
    RunDone done = std::move(done_);
    delete this;
    done(std::move(run));
  }

  const RegisteredGraph& graph_;
  StepRendezvous* rendezvous_;
  const bool collect_stats_;
  RunDone done_;
  std::vector<Executor::Result> results_;
  std::atomic<int> remaining_;
};

StatusOr<std::unique_ptr<RegisteredGraph>> RegisteredGraph::Create(const tensorflow::RegisterGraphRequest& request,
                                                                   const DeviceMgr& devices,
                                                                   const std::string& task_name, WorkerCache* peers) {
  std::unique_ptr<RegisteredGraph> graph(new RegisteredGraph);
  CLAB_RETURN_IF_ERROR(graph->Build(request, devices, task_name, peers));
  return graph;
}

int RegisteredGraph::FeedIndex(const std::string& name) const {
  auto it = feed_index_.find(name);
  return it == feed_index_.end() ? -1 : it->second;
}

Status RegisteredGraph::Build(const tensorflow::RegisterGraphRequest& request, const DeviceMgr& devices,
                              const std::string& task_name, WorkerCache* peers) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(request.graph_def()));

  // The master placed every node; its device string is resolved once here.
  std::map<std::string, Device*> device_of_spec;
  std::set<std::string> used_devices;
  for (Node* node : graph->nodes()) {
    const std::string& spec = node->requested_device();
    auto known = device_of_spec.find(spec);
    if (known == device_of_spec.end()) {
      Device* device = devices.host_cpu();
      if (!spec.empty()) {
        StatusOr<Device*> found = devices.Lookup(spec);
        if (!found.ok())
          return errors::InvalidArgument("Node '", node->name(), "' of the graph registered with ", task_name,
                                         " is placed on '", spec,
                                         "', which is not a device of this task: ", found.status().message());
        device = *found;
      }
      known = device_of_spec.emplace(spec, device).first;
    }
    node->set_assigned_device(known->second->name());
    used_devices.insert(known->second->name());
  }

  std::map<std::string, tensorflow::GraphDef> partitions;
  if (used_devices.size() == 1) {
    partitions[*used_devices.begin()] = graph->ToGraphDef(/*with_assigned_devices=*/true);
  } else if (used_devices.size() > 1) {
    PartitionOptions options;
    options.partition_of = [](const std::string& device) { return device; };
    options.incarnation_of = [&devices](const std::string& device) -> uint64_t {
      StatusOr<Device*> found = devices.Lookup(device);
      return found.ok() ? (*found)->incarnation() : 0;
    };
    CLAB_RETURN_IF_ERROR(PartitionGraph(*graph, options, &partitions));
  }

  std::map<std::string, int> part_of_device;
  std::vector<Executor::Params> params;
  for (auto& [device_name, partition] : partitions) {
    part_of_device[device_name] = static_cast<int>(params.size());
    Executor::Params p;
    p.graph = std::move(partition);
    if (request.graph_def().library().function_size() > 0) *p.graph.mutable_library() = request.graph_def().library();
    p.device = *devices.Lookup(device_name);
    params.push_back(std::move(p));
  }
  parts_.resize(params.size());
  auto part_of_node = [&](const std::string& node) {
    return part_of_device.at(graph->FindNode(node)->assigned_device());
  };

  for (const std::string& feed : request.feed()) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, FindTensor(*graph, feed, "Feed", task_name));
    if (!feed_index_.emplace(feed, static_cast<int>(feeds_.size())).second)
      return errors::InvalidArgument("'", feed, "' is fed more than once");
    const int part = part_of_node(id.node);
    params[static_cast<size_t>(part)].feeds.push_back(CanonicalTensorName(id));
    parts_[static_cast<size_t>(part)].feed_indices.push_back(static_cast<int>(feeds_.size()));
    feeds_.push_back(feed);
  }
  // A tensor fetched twice is produced once; both fetches read the same result.
  std::map<std::string, FetchRoute> route_of_fetch;
  for (const std::string& fetch : request.fetch()) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, FindTensor(*graph, fetch, "Fetch", task_name));
    const std::string canonical = CanonicalTensorName(id);
    auto [route, inserted] = route_of_fetch.try_emplace(canonical);
    if (inserted) {
      route->second.part = part_of_node(id.node);
      auto& fetches = params[static_cast<size_t>(route->second.part)].fetches;
      route->second.index = static_cast<int>(fetches.size());
      fetches.push_back(canonical);
    }
    fetch_routes_.push_back(route->second);
    fetches_.push_back(fetch);
  }
  for (const std::string& target : request.target()) {
    std::string_view name = target;
    if (!name.empty() && name.front() == '^') name.remove_prefix(1);
    if (!graph->FindNode(name))
      return errors::NotFound("Target '", target, "' is not in the graph registered with ", task_name);
    params[static_cast<size_t>(part_of_node(std::string(name)))].targets.emplace_back(name);
  }

  for (size_t p = 0; p < params.size(); ++p) {
    const std::string device = params[p].device->name();
    StatusOr<std::unique_ptr<Executor>> executor = Executor::Create(std::move(params[p]));
    if (!executor.ok()) return errors::Annotate(executor.status(), StrCat("Registering the graph on ", device));
    parts_[p].executor = std::move(executor).value();
  }
  return FindRemoteSources(request.graph_def(), task_name, peers);
}

Status RegisteredGraph::FindRemoteSources(const tensorflow::GraphDef& graph, const std::string& task_name,
                                          WorkerCache* peers) {
  CLAB_ASSIGN_OR_RETURN(DeviceName own_task, DeviceName::Parse(task_name));
  for (const tensorflow::NodeDef& node : graph.node()) {
    if (node.op() != "_Recv") continue;
    bool client_terminated = false;
    if (GetNodeAttr(node, "client_terminated", &client_terminated).ok() && client_terminated) continue;
    RendezvousKey key;
    int64_t incarnation = 0;
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "send_device", &key.send_device));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "send_device_incarnation", &incarnation));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "recv_device", &key.recv_device));
    CLAB_RETURN_IF_ERROR(GetNodeAttr(node, "tensor_name", &key.tensor_name));
    key.send_incarnation = static_cast<uint64_t>(incarnation);
    StatusOr<DeviceName> sender = DeviceName::ParseFull(key.send_device);
    if (!sender.ok())
      return errors::InvalidArgument("_Recv '", node.name(),
                                     "' has a malformed send_device: ", sender.status().message());
    if (sender->InSameTask(own_task)) continue;
    const std::string task = DeviceName::TaskPrefix(sender->job, sender->task, sender->replica);
    if (!peers)
      return errors::FailedPrecondition("_Recv '", node.name(), "' receives from ", task, ", but the session on ",
                                        task_name, " knows no other tasks (was CreateWorkerSession called?)");
    StatusOr<WorkerInterface*> worker = peers->GetWorker(task);
    if (!worker.ok())
      return errors::Annotate(worker.status(), StrCat("_Recv '", node.name(), "' receives from ", task));
    remote_sources_[key.ToString()] = RemoteTensorSource{task, *worker};
  }
  return OkStatus();
}

void RegisteredGraph::RunAsync(int64_t step_id, StepRendezvous* rendezvous, std::vector<Tensor> feeds,
                               bool collect_stats, RunDone done) const {
  (new Run(*this, rendezvous, collect_stats, std::move(done)))->Start(step_id, feeds);
}

}  // namespace clab
