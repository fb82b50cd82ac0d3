#include "bench/StepCluster.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "examplegraphs/SeedGraph.h"
#include "network/LoopbackPorts.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <chrono>

namespace clab::cli {
namespace {

// The seed graph and one float32 variable per pull size, placed by replica_device_setter:
// variables on the ps, MatMul and the pulls' Identity on the worker.
struct BenchGraph {
  tensorflow::GraphDef graph;
  std::string init;
  std::string seed_product;
  std::map<int64_t, std::string> pulls;
};

StatusOr<BenchGraph> BuildBenchGraph(const std::map<std::string, std::vector<std::string>>& cluster,
                                     const std::vector<int64_t>& sizes) {
  GraphBuilder g;
  ReplicaDeviceSetterOptions setter_options;
  setter_options.worker_device = "/job:worker/task:0";
  setter_options.cluster = cluster;
  CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
  BenchGraph built;
  {
    auto scope = g.WithDevice(setter);
    const tools::SeedGraph seed = tools::BuildSeedGraph(g);
    built.seed_product = seed.product.name();
    for (int64_t size : sizes) {
      if (built.pulls.count(size)) continue;
      const std::string name = absl::StrCat("params_", size);
      Tensor initial(DT_FLOAT, TensorShape{size});
      std::fill_n(initial.data<float>(), size, 0.5f);
      ops::Variable v = ops::MakeVariable(g, ops::Const(g, initial, name + "/initial_value"), name);
      built.pulls[size] = ops::Identity(g, v.read, absl::StrCat("pull_", size)).name();
    }
    built.init = ops::GlobalVariablesInitializer(g).node();
  }
  CLAB_RETURN_IF_ERROR(g.status());
  built.graph = g.graph_def();
  return built;
}

}  // namespace

StatusOr<std::unique_ptr<StepCluster>> StepCluster::Start(const std::string& clab_program,
                                                          const std::vector<int64_t>& pull_sizes) {
  std::unique_ptr<StepCluster> cluster(new StepCluster());
  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(2));
  cluster->ps_address_ = absl::StrCat("127.0.0.1:", ports[0]);
  const std::map<std::string, std::vector<std::string>> jobs = {{"ps", {cluster->ps_address_}},
                                                                {"worker", {absl::StrCat("127.0.0.1:", ports[1])}}};
  CLAB_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromDict(jobs));
  CLAB_ASSIGN_OR_RETURN(
      cluster->ps_,
      launch::ChildProcess::Start(clab_program, {"server", "--cluster", spec.ToInline(), "--job_name", "ps"}, {}));
  if (!cluster->ps_->WaitForLine("Serving /job:", std::chrono::seconds(30)))
    return errors::Unavailable("the ps process (", clab_program,
                               " server) did not start: ", absl::StrJoin(cluster->ps_->lines(), " / "));

  ServerOptions server_options;
  server_options.cluster = spec;
  server_options.job_name = "worker";
  server_options.log = [](const std::string&) {};
  CLAB_ASSIGN_OR_RETURN(cluster->worker_, Server::Create(server_options));
  CLAB_ASSIGN_OR_RETURN(const BenchGraph graph, BuildBenchGraph(jobs, pull_sizes));
  cluster->seed_product_ = graph.seed_product;
  cluster->pulls_ = graph.pulls;
  SessionOptions session_options;
  session_options.target = cluster->worker_->target();
  CLAB_ASSIGN_OR_RETURN(cluster->session_, NewSession(session_options));
  CLAB_RETURN_IF_ERROR(cluster->session_->Create(graph.graph));
  CLAB_RETURN_IF_ERROR(cluster->session_->Run({}, {}, {graph.init}, &cluster->outputs_));
  return cluster;
}

StepCluster::~StepCluster() {
  if (!stopped_) Stop().IgnoreError();
}

Status StepCluster::Step() { return session_->Run({}, {seed_product_}, {}, &outputs_); }

Status StepCluster::Pull(int64_t elements) {
  const auto it = pulls_.find(elements);
  if (it == pulls_.end()) return errors::InvalidArgument("no variable of ", elements, " elements to pull");
  CLAB_RETURN_IF_ERROR(session_->Run({}, {it->second}, {}, &outputs_));
  if (outputs_.size() != 1 || outputs_[0].NumElements() != elements)
    return errors::DataLoss("pulling ", elements, " floats gave ", outputs_.empty() ? 0 : outputs_[0].NumElements());
  return OkStatus();
}

StatusOr<int> StepCluster::Stop() {
  stopped_ = true;
  Status status;
  if (session_) status.Update(session_->Close());
  if (worker_) status.Update(worker_->Stop());
  const int exit_status = ps_ ? ps_->Stop() : 0;
  CLAB_RETURN_IF_ERROR(status);
  return exit_status;
}

}  // namespace clab::cli
