// One task of a one-task cluster ("/job:worker/replica:0/task:0"), its server made but never
// started: the master and worker that the gRPC services hand requests to, called here
// directly with requests parsed from fuzz inputs, without a network. Also the graph the
// request targets work on: a fed vector times a variable, plus a constant.
#pragma once

#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "distributed/GrpcServer.h"
#include "distributed/Master.h"
#include "distributed/Worker.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace clab::fuzz {

class InProcessTask {
 public:
  static constexpr const char* kTask = "/job:worker/replica:0/task:0";
  static constexpr const char* kCpu = "/job:worker/replica:0/task:0/device:CPU:0";

  InProcessTask() {
    ServerOptions options;
    options.cluster = *ClusterSpec::Parse("worker=127.0.0.1:2222");
    options.job_name = "worker";
    options.start = false;
    (*options.config.mutable_device_count())["GPU"] = 0;
    auto server = GrpcServer::Create(options, [](const std::string&) {});
    if (!server.ok()) Fail(server.status());
    server_ = std::move(server).value();
  }
  InProcessTask(const InProcessTask&) = delete;
  InProcessTask& operator=(const InProcessTask&) = delete;

  Master* master() const { return server_->master(); }
  Worker* worker() const { return server_->worker(); }
  Device* cpu() const { return server_->devices()->host_cpu(); }

  // x: float[2], fed; v: a variable holding [2, 3], with the initialiser "init"; y = x * v;
  // c: the constant [1, 2].
  // With `on_cpu`, every node is placed on the task's CPU (a partition as a master
  // registers it with a worker).
  static tensorflow::GraphDef Graph(bool on_cpu) {
    GraphBuilder g;
    auto scope = g.WithDevice(on_cpu ? kCpu : "");
    Output x = ops::Placeholder(g, DT_FLOAT, PartialShape({2}), "x");
    ops::Variable v = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({2, 3})), "v");
    ops::Mul(g, x, v.read, "y");
    ops::Const(g, Tensor::Vector<float>({1, 2}), "c");
    ops::GlobalVariablesInitializer(g, "init");
    if (!g.status().ok()) Fail(g.status());
    return g.graph_def();
  }

  [[noreturn]] static void Fail(const Status& status) {
    std::fprintf(stderr, "fuzz target set-up failed: %s\n", status.ToString().c_str());
    std::abort();
  }

 private:
  std::unique_ptr<GrpcServer> server_;
};

}  // namespace clab::fuzz
