#include "clab/runtime/DirectSession.h"
#include "core/BoundedMillis.h"

#include "clab/compile/CompileStep.h"
#include "clab/compile/PlanCache.h"
#include "clab/core/Mutex.h"
#include "clab/graph/Graph.h"
#include "clab/runtime/Device.h"
#include "clab/runtime/Executor.h"
#include "clab/runtime/FunctionLibrary.h"
#include "clab/runtime/Rendezvous.h"
#include "core/LogLine.h"

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <unordered_map>

namespace clab {
namespace {

// Everything one (feeds, fetches, targets) signature needs, built on its first Run.
struct CompiledSignature {
  struct Partition {
    Device* device = nullptr;
    std::unique_ptr<Executor> executor;
    size_t num_feeds = 0;
    tensorflow::GraphDef graph;  // for RunOptions.output_partition_graphs
  };
  std::vector<Partition> partitions;
  // By the names the step was compiled with; a Run of the same names in another order
  // finds the same plan.
  std::unordered_map<std::string, StepRoutes::Route> feed_routes;
  std::unordered_map<std::string, StepRoutes::Route> fetch_routes;
};

// Counts partitions still running; the caller waits, optionally with a deadline.
class StepLatch {
 public:
  explicit StepLatch(int count) : count_(count) {}
  void CountDown() {
    MutexLock lock(mu_);
    if (--count_ == 0) done_.NotifyAll();
  }
  // False when the deadline passed first.
  bool WaitFor(int64_t timeout_ms) {
    MutexLock lock(mu_);
    const auto finished = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return count_ == 0; };
    if (timeout_ms <= 0) {
      done_.Wait(mu_, finished);
      return true;
    }
    return done_.WaitFor(mu_, BoundedMillis(timeout_ms), finished);
  }

 private:
  Mutex mu_;
  CondVar done_;
  int count_ ABSL_GUARDED_BY(mu_);
};

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
    MutexLock lock(mu_);
    CLAB_RETURN_IF_ERROR(CheckOpen());
    if (graph_created_ && graph.node_size() > 0)
      return errors::AlreadyExists("A Graph has already been created for this session.");
    return ExtendLocked(graph);
  }

  Status Extend(const tensorflow::GraphDef& graph) override {
    MutexLock lock(mu_);
    CLAB_RETURN_IF_ERROR(CheckOpen());
    return ExtendLocked(graph);
  }

  Status Run(const tensorflow::RunOptions& options, const FeedList& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
             tensorflow::RunMetadata* metadata) override {
    std::vector<std::string_view> feed_names;
    feed_names.reserve(feeds.size());
    for (const auto& feed : feeds) feed_names.push_back(feed.first);
    const std::string key =
        StepSignature::Key(std::move(feed_names), {fetches.begin(), fetches.end()}, {targets.begin(), targets.end()});
    std::shared_ptr<const CompiledSignature> compiled = plans_.Find(key);
    if (!compiled) {
      MutexLock lock(mu_);
      CLAB_RETURN_IF_ERROR(CheckOpen());
      if (!graph_created_) return errors::FailedPrecondition("Session was not created with a graph before Run()!");
      compiled = plans_.Find(key);
      if (!compiled) {
        StepSignature signature;
        for (const auto& feed : feeds) signature.feeds.push_back(feed.first);
        signature.fetches = fetches;
        signature.targets = targets;
        CLAB_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledSignature> built, Compile(signature));
        compiled = plans_.Insert(key, std::move(built));
      }
    } else if (closed_.load(std::memory_order_acquire)) {
      return errors::FailedPrecondition("Session is closed.");
    }
    return Execute(*compiled, options, feeds, fetches, outputs, metadata);
  }

  Status ListDevices(std::vector<tensorflow::DeviceAttributes>* devices) override {
    devices->clear();
    for (const Device* device : devices_->devices()) devices->push_back(device->attributes());
    return OkStatus();
  }

  Status Close() override {
    MutexLock lock(mu_);
    closed_.store(true, std::memory_order_release);
    // Steps in flight keep their signature alive through their own reference.
    plans_.TakeAll();
    return OkStatus();
  }

 private:
  Status CheckOpen() const {
    if (closed_.load(std::memory_order_acquire)) return errors::FailedPrecondition("Session is closed.");
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

  Status ExtendLocked(const tensorflow::GraphDef& addition) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    tensorflow::GraphDef merged = graph_def_;
    std::set<std::string_view> names;
    for (const tensorflow::NodeDef& node : merged.node()) names.insert(node.name());
    for (const tensorflow::NodeDef& node : addition.node()) {
      if (!names.insert(node.name()).second)
        return errors::InvalidArgument("Duplicate node name in graph: '", node.name(), "'");
    }
    for (const tensorflow::NodeDef& node : addition.node()) *merged.add_node() = node;
    if (!merged.has_versions() && addition.has_versions()) *merged.mutable_versions() = addition.versions();
    CLAB_RETURN_IF_ERROR(FunctionLibrary::Merge(addition.library(), merged.mutable_library()));
    // Validated now, so a bad graph fails at Create or Extend rather than at some later Run.
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(merged));
    graph_def_ = std::move(merged);
    graph_ = std::move(graph);
    graph_created_ = true;
    // Cached signatures stay valid: new nodes can never become ancestors of old ones.
    return OkStatus();
  }

  StatusOr<std::shared_ptr<const CompiledSignature>> Compile(const StepSignature& signature)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    CompileOptions options;
    options.devices = available_;
    options.placer = PlacerOptionsForRun();
    options.partition_by = PartitionBy::kDevice;
    options.incarnation_of = [this](const std::string& device) {
      auto it = incarnations_.find(device);
      return it == incarnations_.end() ? uint64_t{0} : it->second;
    };
    options.stateful_placement = &stateful_placement_;
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<CompiledStep> step, CompileStep(graph_def_, *graph_, signature, options));

    auto compiled = std::make_shared<CompiledSignature>();
    compiled->feed_routes = std::move(step->routes.feed_routes);
    compiled->fetch_routes = std::move(step->routes.fetch_routes);
    for (size_t p = 0; p < step->partitions.size(); ++p) {
      CompiledStep::Partition& partition = step->partitions[p];
      CLAB_ASSIGN_OR_RETURN(Device * device, devices_->Lookup(partition.name));
      Executor::Params params;
      params.graph = partition.graph;
      params.device = device;
      params.feeds = std::move(step->routes.feeds[p]);
      params.fetches = std::move(step->routes.fetches[p]);
      params.targets = std::move(step->routes.targets[p]);
      CompiledSignature::Partition compiled_partition;
      compiled_partition.device = device;
      compiled_partition.num_feeds = params.feeds.size();
      compiled_partition.graph = std::move(partition.graph);
      CLAB_ASSIGN_OR_RETURN(compiled_partition.executor, Executor::Create(std::move(params)));
      compiled->partitions.push_back(std::move(compiled_partition));
    }
    return std::shared_ptr<const CompiledSignature>(std::move(compiled));
  }

  PlacerOptions PlacerOptionsForRun() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    PlacerOptions placer;
    placer.allow_soft_placement = options_.config.allow_soft_placement();
    placer.log_device_placement = options_.config.log_device_placement();
    // Each placement is printed once per session, not again for every new signature.
    // The placer calls it while this session's mu_ is held (it compiles under it).
    placer.log = [this](const std::string& line) ABSL_NO_THREAD_SAFETY_ANALYSIS {
      if (logged_placements_.insert(line).second) WriteLogLine({}, line);
    };
    return placer;
  }

  Status Execute(const CompiledSignature& compiled, const tensorflow::RunOptions& options, const FeedList& feeds,
                 const std::vector<std::string>& fetches, std::vector<Tensor>* outputs,
                 tensorflow::RunMetadata* metadata) {
    const size_t num_partitions = compiled.partitions.size();
    std::vector<Executor::RunArgs> args(num_partitions);
    const int64_t step_id = next_step_id_.fetch_add(1, std::memory_order_relaxed);
    // Partitions send to each other through it; even one partition has it, as its abort at a
    // timeout also ends waits that are not receives (a queue's dequeue).
    auto rendezvous = std::make_unique<LocalRendezvous>();
    const bool trace = options.trace_level() == tensorflow::RunOptions::FULL_TRACE;
    std::atomic<bool> cancelled{false};  // a while loop stops at its next iteration once set
    for (size_t p = 0; p < num_partitions; ++p) {
      args[p].step_id = step_id;
      args[p].cancelled = &cancelled;
      args[p].rendezvous = rendezvous.get();
      args[p].collect_stats = trace;
      args[p].feeds.resize(compiled.partitions[p].num_feeds);
    }
    for (const auto& [name, value] : feeds) {
      auto route = compiled.feed_routes.find(name);
      if (route == compiled.feed_routes.end())
        return errors::Internal("Feed '", name, "' has no route in the step's plan");
      if (route->second.partition >= 0)
        args[static_cast<size_t>(route->second.partition)].feeds[static_cast<size_t>(route->second.index)] = value;
    }
    std::vector<const StepRoutes::Route*> fetch_routes;
    fetch_routes.reserve(fetches.size());
    for (const std::string& fetch : fetches) {
      auto route = compiled.fetch_routes.find(fetch);
      if (route == compiled.fetch_routes.end())
        return errors::Internal("Fetch '", fetch, "' has no route in the step's plan");
      fetch_routes.push_back(&route->second);
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
      status =
          errors::DeadlineExceeded("Timed out waiting for notification (the step ran longer than ", timeout_ms, " ms)");
      cancelled.store(true, std::memory_order_release);
      if (rendezvous) rendezvous->StartAbort(status);
      latch.WaitFor(0);  // partitions refer to the rendezvous and the results until they end
    }
    // The first abort is the failure's cause; the other partitions' errors are its echoes
    // (their _Recv was cancelled).
    if (status.ok() && rendezvous) status = rendezvous->abort_status();
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

    outputs->resize(fetch_routes.size());
    for (size_t i = 0; i < fetch_routes.size(); ++i) {
      const StepRoutes::Route& route = *fetch_routes[i];
      (*outputs)[i] = results[static_cast<size_t>(route.partition)].fetches[static_cast<size_t>(route.index)];
    }
    return OkStatus();
  }

  const SessionOptions options_;
  std::unique_ptr<DeviceMgr> devices_;  // declared before what refers to its devices
  std::vector<AvailableDevice> available_;
  std::unordered_map<std::string, uint64_t> incarnations_;

  // Compiled signatures; looked up without mu_, filled under it.
  PlanCache<CompiledSignature> plans_;
  std::atomic<bool> closed_{false};
  std::atomic<int64_t> next_step_id_{1};

  Mutex mu_;  // serialises Create, Extend, Close and compiling
  bool graph_created_ ABSL_GUARDED_BY(mu_) = false;
  tensorflow::GraphDef graph_def_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Graph> graph_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> stateful_placement_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> logged_placements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

StatusOr<std::unique_ptr<Session>> NewDirectSession(const SessionOptions& options, const std::string& task_prefix) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<DeviceMgr> devices, DeviceMgr::CreateLocal(task_prefix, options.config));
  return std::unique_ptr<Session>(std::make_unique<DirectSession>(options, std::move(devices)));
}

}  // namespace clab
