#include "models/TrainProgram.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/ops/Ops.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/LoggingTensorHook.h"
#include "clab/train/hooks/StopAtStepHook.h"
#include "exampledata/ExampleDataPath.h"
#include "examplegraphs/RegressionGraph.h"
#include "examplegraphs/TrainGraph.h"
#include "models/Classifier.h"

#include <filesystem>
#include <functional>
#include <ostream>

namespace clab::examples {

Status RunTrainProgram(const TrainProgramOptions& options, std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const tools::TrainModelSpec spec, tools::TrainModelSpecOf(options.model));
  const std::string data_path = spec.data_file.empty() ? std::string() : tools::ExampleDataPath(spec.data_file);
  TaskProgramOptions task = options;
  if (!data_path.empty()) {
    // The worker's own dataset op reads the shipped data set, besides the task's directories.
    if (task.data_dirs.empty()) task.data_dirs.push_back(".");
    task.data_dirs.push_back(std::filesystem::path(data_path).parent_path().string());
  }
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, StartTaskServer(task, out));
  if (!server) return OkStatus();  // a ps, after serving until a signal

  const int workers = options.cluster.num_tasks("worker");
  const int sync_replicas = options.sync ? workers : 0;
  GraphBuilder g;
  // The classifiers' data: its held-out rows measure what a worker learnt.
  ClassificationData data;
  if (!data_path.empty()) {
    CLAB_ASSIGN_OR_RETURN(data, LoadClassificationCsv(data_path));
    if (data.num_features != spec.num_features || data.num_classes != spec.num_classes)
      return errors::InvalidArgument(data_path, ": ", data.num_features, " features in ", data.num_classes,
                                     " classes, but the model '", options.model, "' is built for ", spec.num_features,
                                     " features in ", spec.num_classes, " classes");
  }
  tools::TrainGraph model;
  {
    ReplicaDeviceSetterOptions setter;
    setter.worker_device = StrCat("/job:worker/task:", options.task_index);
    setter.cluster = options.cluster.ToDict();
    CLAB_ASSIGN_OR_RETURN(DeviceFunction device_function, ReplicaDeviceSetter(setter));
    auto scope = g.WithDevice(device_function);
    CLAB_ASSIGN_OR_RETURN(model, tools::BuildTrainGraph(g, {.model = options.model,
                                                            .data_path = data_path,
                                                            .task_index = options.task_index,
                                                            .num_workers = workers,
                                                            .sync_replicas = sync_replicas}));
  }
  // The minibatch's accuracy, for the event files' accuracy curve (as a TF program's
  // tf.summary.scalar("accuracy", ...) over argmax(logits) == labels).
  std::string accuracy_name;
  if (options.model != "linear-regression") {
    ReplicaDeviceSetterOptions setter;
    setter.worker_device = StrCat("/job:worker/task:", options.task_index);
    setter.cluster = options.cluster.ToDict();
    CLAB_ASSIGN_OR_RETURN(DeviceFunction device_function, ReplicaDeviceSetter(setter));
    auto device = g.WithDevice(device_function);
    auto scope = g.WithNameScope("accuracy");
    const Output predicted = ops::Cast(g, ops::ArgMax(g, model.classifier.logits, 1), DT_INT32);
    const Output correct = ops::Cast(g, ops::Equal(g, predicted, model.classifier.labels), DT_FLOAT);
    accuracy_name = ops::Mean(g, correct, ops::Const(g, Tensor::Vector<int32_t>({0}))).name();
  }
  const Output train = model.train, loss = model.loss;
  const std::shared_ptr<SyncReplicasOptimizer> sync = model.sync;
  // How a worker reports what it learnt at the end (a classifier: its held-out accuracy).
  double held_out_accuracy = -1;
  std::function<StatusOr<std::string>(Session&)> report = [&](Session& session) -> StatusOr<std::string> {
    if (options.model == "linear-regression") {
      std::vector<Tensor> values;
      CLAB_RETURN_IF_ERROR(session.Run({}, {"w:0", "b:0"}, {}, &values));
      return StrCat("learnt w = ", values[0].data<float>()[0], ", b = ", values[1].data<float>()[0],
                    " (the data follow y = ", tools::kRegressionSlope, "x + ", tools::kRegressionIntercept, ")");
    }
    CLAB_ASSIGN_OR_RETURN(held_out_accuracy, Accuracy(session, model.classifier, data.held_out));
    return StrCat("held-out accuracy ", held_out_accuracy);
  };

  MonitoredTrainingSessionOptions session_options = WorkerSessionOptions(options, *server, options.max_seconds);
  // The loss, and a classifier's minibatch accuracy, every log_every steps: the studio charts
  // them live from these hook events.
  std::map<std::string, std::string> logged = {{"loss", loss.name()}};
  if (!accuracy_name.empty()) logged.emplace("accuracy", accuracy_name);
  CLAB_ASSIGN_OR_RETURN(auto logging, LoggingTensorHook::Create(logged, options.log_every, 0));
  session_options.hooks.push_back(logging);
  // The loss curve goes into the chief's event files, as tf.summary.scalar("loss", loss) would.
  session_options.summary_scalars = {{"loss", loss.name()}};
  if (!accuracy_name.empty()) session_options.summary_scalars.emplace("accuracy", accuracy_name);
  if (sync) {
    CLAB_ASSIGN_OR_RETURN(auto sync_hook, sync->MakeSessionRunHook(session_options.is_chief));
    session_options.hooks.push_back(sync_hook);
  }
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> session, MonitoredTrainingSession(g, session_options));

  std::vector<Tensor> outputs;
  int64_t runs = 0;
  while (!session->should_stop()) {
    Status s = session->Run({train.node(), loss.name()}, {}, &outputs);
    if (absl::IsOutOfRange(s)) break;  // synchronous replicas: the chief has finished
    CLAB_RETURN_IF_ERROR(s);
    ++runs;
  }
  CLAB_ASSIGN_OR_RETURN(const std::string learnt, report(*session->raw_session()));
  // Measured once, at the end: an event of its own, so that a watcher can show it.
  if (held_out_accuracy >= 0)
    session->log().Hook("HeldOutEvaluation", LogLevel::kInfo, learnt, {{"held_out_accuracy", held_out_accuracy}});
  CLAB_RETURN_IF_ERROR(session->Close());
  out << "Worker " << options.task_index << " ran " << runs << " steps; " << learnt << std::endl;
  return server->Stop();
}

}  // namespace clab::examples
