#include "bench/TrainWorker.h"

#include "bench/CostMeter.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "exampledata/ExampleDataPath.h"
#include "models/Classifier.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <ostream>
#include <thread>

namespace clab::cli {
namespace {

constexpr int kBatch = 32;
constexpr double kLearningRate = 0.1;
constexpr uint64_t kSeed = 7;

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status WaitForFile(const std::string& path, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() > deadline)
      return errors::DeadlineExceeded("the start signal '", path, "' did not appear within ", timeout.count(), " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return OkStatus();
}

}  // namespace

Status RunTrainWorker(const TrainWorkerOptions& options, std::ostream& out) {
  const int workers = options.cluster.num_tasks("worker");
  if (workers < 1 || options.cluster.num_tasks("ps") != 1)
    return errors::InvalidArgument("the cluster needs one ps task and at least one worker task");
  if (options.task_index < 0 || options.task_index >= workers)
    return errors::InvalidArgument("--task_index ", options.task_index, ": the cluster has ", workers, " workers");
  if (options.go_file.empty()) return errors::InvalidArgument("--go_file is needed");
  CLAB_ASSIGN_OR_RETURN(const examples::ClassificationData data,
                        examples::LoadClassificationCsv(tools::ExampleDataPath("digits.csv.gz")));
  const int task = options.task_index;

  ServerOptions server_options;
  server_options.cluster = options.cluster;
  server_options.job_name = "worker";
  server_options.task_index = task;
  server_options.log = [](const std::string&) {};
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));

  GraphBuilder g;
  tools::ClassifierGraph model;
  {
    ReplicaDeviceSetterOptions setter_options;
    setter_options.worker_device = "/job:worker/task:" + std::to_string(task);
    setter_options.cluster = options.cluster.ToDict();
    CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
    auto scope = g.WithDevice(setter);
    CLAB_ASSIGN_OR_RETURN(
        model, tools::BuildClassifier(g, data.num_features, {options.hidden}, data.num_classes, kLearningRate, kSeed));
  }
  const Output init = ops::GlobalVariablesInitializer(g);
  SessionOptions session_options;
  session_options.target = server->target();
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
  CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
  std::vector<Tensor> unused;
  if (task == 0) CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &unused));
  const examples::Examples shard = examples::Shard(data.train, task, workers);
  const int64_t steps = options.total_steps / workers + (task < options.total_steps % workers ? 1 : 0);
  out << "Worker " << task << " ready" << std::endl;

  CLAB_RETURN_IF_ERROR(WaitForFile(options.go_file, std::chrono::seconds(600)));
  const ProcessUsage start_usage = CostMeter::Self();
  const int64_t start_ns = SteadyNanos();
  CLAB_RETURN_IF_ERROR(
      examples::Train(*session, model, shard, steps, kBatch, kSeed + 100 + static_cast<uint64_t>(task)).status());
  const int64_t end_ns = SteadyNanos();
  const ProcessUsage end_usage = CostMeter::Self();
  nlohmann::json result = {{"task", task},
                           {"steps", steps},
                           {"start_ns", start_ns},
                           {"end_ns", end_ns},
                           {"cpu_us", end_usage.cpu_us - start_usage.cpu_us},
                           {"context_switches", end_usage.context_switches - start_usage.context_switches},
                           {"accuracy", nullptr}};
  if (task == 0) {
    CLAB_ASSIGN_OR_RETURN(const double accuracy, examples::Accuracy(*session, model, data.held_out));
    result["accuracy"] = accuracy;
  }
  CLAB_RETURN_IF_ERROR(session->Close());
  out << kTrainWorkerResult << result.dump() << std::endl;
  return server->Stop();
}

}  // namespace clab::cli
