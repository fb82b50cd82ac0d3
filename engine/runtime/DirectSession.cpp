#include "clab/runtime/DirectSession.h"

#include "clab/graph/Graph.h"
#include "clab/graph/Prune.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/Executor.h"
#include "clab/runtime/Partition.h"
#include "clab/runtime/Placer.h"
#include "clab/runtime/Rendezvous.h"
#include "core/LogLine.h"

#include <absl/container/inlined_vector.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

namespace clab {
namespace {

// Where one fed or fetched tensor goes: which partition, which of its feeds or fetches.
struct Route {
  int partition = -1;  // -1: a feed that nothing in the pruned graph reads
  int index = 0;
};

// Everything one (feeds, fetches, targets) signature needs, built on its first Run.
struct CompiledSignature {
  struct Partition {
    Device* device = nullptr;
    std::unique_ptr<Executor> executor;
    size_t num_feeds = 0;
    tensorflow::GraphDef graph;  // for RunOptions.output_partition_graphs
  };
  std::vector<Partition> partitions;
  std::vector<Route> feed_routes;   // in sorted feed-name order
  std::vector<Route> fetch_routes;  // in the requested fetch order
};

// Keeps the first abort, which is the failure's cause; the other partitions' errors are
// its echoes (their _Recv was cancelled).
class StepRendezvous : public LocalRendezvous {
 public:
  void StartAbort(const Status& status) override {
    {
      std::lock_guard<std::mutex> lock(cause_mu_);
      if (cause_.ok()) cause_ = status;
    }
    LocalRendezvous::StartAbort(status);
  }
  Status cause() {
    std::lock_guard<std::mutex> lock(cause_mu_);
    return cause_;
  }

 private:
  std::mutex cause_mu_;
  Status cause_;
};

// Counts partitions still running; the caller waits, optionally with a deadline.
class StepLatch {
 public:
  explicit StepLatch(int count) : count_(count) {}
  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--count_ == 0) cv_.notify_all();
  }
  // False when the deadline passed first.
  bool WaitFor(int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    if (timeout_ms <= 0) {
      cv_.wait(lock, [this] { return count_ == 0; });
      return true;
    }
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return count_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_;
};

std::string CanonicalTensorName(const TensorId& id) { return absl::StrCat(id.node, ":", id.index); }

class DirectSession : public Session {
 public:
  DirectSession(SessionOptions options, std::unique_ptr<DeviceMgr> devices)
      : options_(std::move(options)), devices_(std::move(devices)) {
    for (Device* device : devices_->devices()) {
      available_.push_back({device->name(), device->type()});
      incarnations_[device->name()] = device->incarnation();
    }
    if (options_.config.log_device_placement()) PrintDeviceMapping();
  }

  Status Create(const tensorflow::GraphDef& graph) override {
    std::lock_guard<std::mutex> lock(mu_);
    CLAB_RETURN_IF_ERROR(CheckOpen());
    if (graph_created_ && graph.node_size() > 0)
      return errors::AlreadyExists("A Graph has already been created for this session.");
    return ExtendLocked(graph);
  }

  Status Extend(const tensorflow::GraphDef& graph) override {
    std::lock_guard<std::mutex> lock(mu_);
    CLAB_RETURN_IF_ERROR(CheckOpen());
    return ExtendLocked(graph);
  }

  Status Run(const tensorflow::RunOptions& options, const FeedList& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
             tensorflow::RunMetadata* metadata) override {
    // Feeds are matched to the compiled signature in name order.
    absl::InlinedVector<int, 8> feed_order(feeds.size());
    for (size_t i = 0; i < feeds.size(); ++i) feed_order[i] = static_cast<int>(i);
    std::sort(feed_order.begin(), feed_order.end(),
              [&](int a, int b) { return feeds[static_cast<size_t>(a)].first < feeds[static_cast<size_t>(b)].first; });

    std::shared_ptr<const CompiledSignature> compiled;
    {
      std::lock_guard<std::mutex> lock(mu_);
      CLAB_RETURN_IF_ERROR(CheckOpen());
      if (!graph_created_) return errors::FailedPrecondition("Session was not created with a graph before Run()!");
      const std::string key = SignatureKey(feeds, feed_order, fetches, targets);
      auto cached = cache_.find(key);
      if (cached == cache_.end()) {
        std::vector<std::string> feed_names;
        for (int i : feed_order) feed_names.push_back(feeds[static_cast<size_t>(i)].first);
        CLAB_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledSignature> built, Compile(feed_names, fetches, targets));
        cached = cache_.emplace(key, std::move(built)).first;
      }
      compiled = cached->second;
    }
    return Execute(*compiled, options, feeds, feed_order, outputs, metadata);
  }

  Status ListDevices(std::vector<tensorflow::DeviceAttributes>* devices) override {
    devices->clear();
    for (const Device* device : devices_->devices()) devices->push_back(device->attributes());
    return OkStatus();
  }

  Status Close() override {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    // Steps in flight keep their signature alive through their own reference.
    cache_.clear();
    return OkStatus();
  }

 private:
  Status CheckOpen() const {
    if (closed_) return errors::FailedPrecondition("Session is closed.");
    return OkStatus();
  }

  // TensorFlow prints this at session creation; the CPU has no physical description, so a
  // CPU-only process prints "no known devices".
  void PrintDeviceMapping() const {
    std::string text = "Device mapping:";
    bool any = false;
    for (const Device* device : devices_->devices()) {
      if (device->description().empty()) continue;
      absl::StrAppend(&text, "\n", device->name(), " -> ", device->description());
      any = true;
    }
    if (!any) text += " no known devices.";
    WriteLogLine({}, text);
  }

  Status ExtendLocked(const tensorflow::GraphDef& addition) {
    tensorflow::GraphDef merged = graph_def_;
    std::set<std::string_view> names;
    for (const tensorflow::NodeDef& node : merged.node()) names.insert(node.name());
    for (const tensorflow::NodeDef& node : addition.node()) {
      if (!names.insert(node.name()).second)
        return errors::InvalidArgument("Duplicate node name in graph: '", node.name(), "'");
    }
    for (const tensorflow::NodeDef& node : addition.node()) *merged.add_node() = node;
    if (!merged.has_versions() && addition.has_versions()) *merged.mutable_versions() = addition.versions();
    // Validated now, so a bad graph fails at Create or Extend rather than at some later Run.
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(merged));
    graph_def_ = std::move(merged);
    graph_ = std::move(graph);
    graph_created_ = true;
    // Cached signatures stay valid: new nodes can never become ancestors of old ones.
    return OkStatus();
  }

  static std::string SignatureKey(const FeedList& feeds, const absl::InlinedVector<int, 8>& feed_order,
                                  const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
    std::string key;
    for (int i : feed_order) absl::StrAppend(&key, feeds[static_cast<size_t>(i)].first, "\n");
    key += "\x01";
    for (const std::string& fetch : fetches) absl::StrAppend(&key, fetch, "\n");
    key += "\x01";
    std::vector<const std::string*> sorted_targets;
    for (const std::string& target : targets) sorted_targets.push_back(&target);
    std::sort(sorted_targets.begin(), sorted_targets.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    for (const std::string* target : sorted_targets) absl::StrAppend(&key, *target, "\n");
    return key;
  }

  StatusOr<TensorId> CheckTensorInGraph(const std::string& name, const char* role) const {
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
    const Node* node = graph_->FindNode(id.node);
    if (!node) return errors::NotFound(role, " '", name, "' is not in the graph: there is no node named '", id.node, "'");
    if (id.index < 0 || id.index >= node->num_outputs())
      return errors::NotFound(role, " '", name, "' is not in the graph: node '", id.node, "' (", node->type_string(),
                              ") has ", node->num_outputs(), " output(s)");
    return id;
  }

  StatusOr<std::shared_ptr<const CompiledSignature>> Compile(const std::vector<std::string>& feeds,
                                                              const std::vector<std::string>& fetches,
                                                              const std::vector<std::string>& targets) {
    std::vector<TensorId> feed_ids, fetch_ids;
    std::set<std::string> fed;
    for (const std::string& feed : feeds) {
      CLAB_ASSIGN_OR_RETURN(TensorId id, CheckTensorInGraph(feed, "Feed"));
      if (!fed.insert(CanonicalTensorName(id)).second)
        return errors::InvalidArgument("'", feed, "' is fed more than once");
      feed_ids.push_back(std::move(id));
    }
    for (const std::string& fetch : fetches) {
      CLAB_ASSIGN_OR_RETURN(TensorId id, CheckTensorInGraph(fetch, "Fetch"));
      fetch_ids.push_back(std::move(id));
    }
    std::vector<std::string> target_nodes;
    for (const std::string& target : targets) {
      const std::string name = !target.empty() && target[0] == '^' ? target.substr(1) : target;
      if (!graph_->FindNode(name))
        return errors::NotFound("Target '", target, "' is not in the graph: there is no node named '", name, "'");
      target_nodes.push_back(name);
    }

    tensorflow::GraphDef pruned;
    CLAB_RETURN_IF_ERROR(PruneGraph(graph_def_, feeds, fetches, target_nodes, &pruned));
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, PlaceStatefulNodesAsBefore(pruned));
    CLAB_RETURN_IF_ERROR(PlaceGraph(graph.get(), available_, PlacerOptionsForRun()));
    for (const Node* node : graph->nodes()) {
      if (node->op_def().is_stateful) stateful_placement_[node->name()] = node->assigned_device();
    }

    PartitionOptions partition_options;
    partition_options.partition_of = [](const std::string& device) { return device; };
    partition_options.incarnation_of = [this](const std::string& device) {
      auto it = incarnations_.find(device);
      return it == incarnations_.end() ? uint64_t{0} : it->second;
    };
    std::map<std::string, tensorflow::GraphDef> partition_graphs;
    CLAB_RETURN_IF_ERROR(PartitionGraph(*graph, partition_options, &partition_graphs));

    auto compiled = std::make_shared<CompiledSignature>();
    std::map<std::string, int> partition_index;
    std::vector<Executor::Params> params;
    for (auto& [device_name, partition_graph] : partition_graphs) {
      CLAB_ASSIGN_OR_RETURN(Device* device, devices_->Lookup(device_name));
      partition_index[device_name] = static_cast<int>(params.size());
      Executor::Params p;
      p.graph = std::move(partition_graph);
      p.device = device;
      params.push_back(std::move(p));
    }
    auto partition_of_node = [&](const std::string& node) -> int {
      const Node* placed = graph->FindNode(node);
      return placed ? partition_index.at(placed->assigned_device()) : -1;
    };

    for (const TensorId& id : feed_ids) {
      Route route{partition_of_node(id.node), 0};
      if (route.partition >= 0) {
        auto& p = params[static_cast<size_t>(route.partition)];
        route.index = static_cast<int>(p.feeds.size());
        p.feeds.push_back(CanonicalTensorName(id));
      }
      compiled->feed_routes.push_back(route);
    }
    // A tensor fetched twice is produced once; both fetches read the same result.
    std::map<std::string, Route> fetch_route_of;
    for (const TensorId& id : fetch_ids) {
      const std::string name = CanonicalTensorName(id);
      auto [it, inserted] = fetch_route_of.try_emplace(name);
      if (inserted) {
        it->second.partition = partition_of_node(id.node);
        if (it->second.partition < 0) return errors::Internal("Fetch '", name, "' was pruned away");
        auto& p = params[static_cast<size_t>(it->second.partition)];
        it->second.index = static_cast<int>(p.fetches.size());
        p.fetches.push_back(name);
      }
      compiled->fetch_routes.push_back(it->second);
    }
    for (const std::string& target : target_nodes) {
      const int partition = partition_of_node(target);
      if (partition >= 0) params[static_cast<size_t>(partition)].targets.push_back(target);
    }

    for (Executor::Params& p : params) {
      CompiledSignature::Partition partition;
      partition.device = p.device;
      partition.num_feeds = p.feeds.size();
      partition.graph = p.graph;
      CLAB_ASSIGN_OR_RETURN(partition.executor, Executor::Create(std::move(p)));
      compiled->partitions.push_back(std::move(partition));
    }
    return std::shared_ptr<const CompiledSignature>(std::move(compiled));
  }

  // A stateful node (a variable above all) must land where it did for earlier signatures:
  // its state lives in that device's resource manager.
  StatusOr<std::unique_ptr<Graph>> PlaceStatefulNodesAsBefore(tensorflow::GraphDef& pruned) const {
    for (tensorflow::NodeDef& node : *pruned.mutable_node()) {
      auto placed = stateful_placement_.find(node.name());
      if (placed != stateful_placement_.end()) node.set_device(placed->second);
    }
    return Graph::FromGraphDef(pruned);
  }

  PlacerOptions PlacerOptionsForRun() {
    PlacerOptions placer;
    placer.allow_soft_placement = options_.config.allow_soft_placement();
    placer.log_device_placement = options_.config.log_device_placement();
    // Each placement is printed once per session, not again for every new signature.
    placer.log = [this](const std::string& line) {
      if (logged_placements_.insert(line).second) WriteLogLine({}, line);
    };
    return placer;
  }

  Status Execute(const CompiledSignature& compiled, const tensorflow::RunOptions& options, const FeedList& feeds,
                 const absl::InlinedVector<int, 8>& feed_order, std::vector<Tensor>* outputs,
                 tensorflow::RunMetadata* metadata) {
    const size_t num_partitions = compiled.partitions.size();
    std::vector<Executor::RunArgs> args(num_partitions);
    const int64_t step_id = next_step_id_.fetch_add(1, std::memory_order_relaxed);
    // One partition never sends, so it needs no rendezvous.
    std::unique_ptr<StepRendezvous> rendezvous;
    if (num_partitions > 1) rendezvous = std::make_unique<StepRendezvous>();
    const bool trace = options.trace_level() == tensorflow::RunOptions::FULL_TRACE;
    for (size_t p = 0; p < num_partitions; ++p) {
      args[p].step_id = step_id;
      args[p].rendezvous = rendezvous.get();
      args[p].collect_stats = trace;
      args[p].feeds.resize(compiled.partitions[p].num_feeds);
    }
    for (size_t i = 0; i < feed_order.size(); ++i) {
      const Route& route = compiled.feed_routes[i];
      if (route.partition >= 0)
        args[static_cast<size_t>(route.partition)].feeds[static_cast<size_t>(route.index)] =
            feeds[static_cast<size_t>(feed_order[i])].second;
    }

    std::vector<Executor::Result> results(num_partitions);
    StepLatch latch(static_cast<int>(num_partitions));
    for (size_t p = 0; p < num_partitions; ++p) {
      compiled.partitions[p].executor->RunAsync(std::move(args[p]), [&results, &latch, p](Executor::Result result) {
        results[p] = std::move(result);
        latch.CountDown();
      });
    }
    const int64_t timeout_ms =
        options.timeout_in_ms() > 0 ? options.timeout_in_ms() : options_.config.operation_timeout_in_ms();
    Status status;
    if (!latch.WaitFor(timeout_ms)) {
      status = errors::DeadlineExceeded("Timed out waiting for notification (the step ran longer than ",
                                        timeout_ms, " ms)");
      if (rendezvous) rendezvous->StartAbort(status);
      latch.WaitFor(0);  // partitions refer to the rendezvous and the results until they end
    }
    if (status.ok() && rendezvous) status = rendezvous->cause();
    for (size_t p = 0; p < num_partitions && status.ok(); ++p) status = results[p].status;

    if (metadata) {
      if (trace) {
        for (Executor::Result& result : results)
          *metadata->mutable_step_stats()->add_dev_stats() = std::move(result.stats);
      }
      if (options.output_partition_graphs()) {
        for (const auto& partition : compiled.partitions) *metadata->add_partition_graphs() = partition.graph;
      }
    }
    if (!status.ok()) return status;

    outputs->resize(compiled.fetch_routes.size());
    for (size_t i = 0; i < compiled.fetch_routes.size(); ++i) {
      const Route& route = compiled.fetch_routes[i];
      (*outputs)[i] = results[static_cast<size_t>(route.partition)].fetches[static_cast<size_t>(route.index)];
    }
    return OkStatus();
  }

  const SessionOptions options_;
  std::unique_ptr<DeviceMgr> devices_;  // declared before what refers to its devices
  std::vector<AvailableDevice> available_;
  std::unordered_map<std::string, uint64_t> incarnations_;

  std::mutex mu_;  // guards everything below
  bool graph_created_ = false;
  bool closed_ = false;
  tensorflow::GraphDef graph_def_;
  std::unique_ptr<Graph> graph_;
  std::map<std::string, std::shared_ptr<const CompiledSignature>> cache_;
  std::map<std::string, std::string> stateful_placement_;
  std::set<std::string> logged_placements_;
  std::atomic<int64_t> next_step_id_{1};
};

}  // namespace

StatusOr<std::unique_ptr<Session>> NewDirectSession(const SessionOptions& options, const std::string& task_prefix) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<DeviceMgr> devices, DeviceMgr::CreateLocal(task_prefix, options.config));
  return std::unique_ptr<Session>(std::make_unique<DirectSession>(options, std::move(devices)));
}

}  // namespace clab
