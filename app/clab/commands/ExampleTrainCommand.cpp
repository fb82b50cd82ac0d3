#include "commands/ExampleTrainCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "models/TrainProgram.h"
#include "seed/SeedProgram.h"

#include <absl/strings/str_join.h>

namespace clab::cli {

std::string ExampleTrainCommand::description() const {
  return "A training program, one task per process, on a data set shipped in resources/data.\n"
         "The ps task serves until Ctrl-C. Each worker trains the model on its shard of the\n"
         "training rows (minibatches of 32, gradient descent; weights on the ps through\n"
         "replica_device_setter) in a MonitoredTrainingSession with StopAtStepHook(--last_step)\n"
         "and the loss logged every 100 steps, then prints its held-out accuracy. Worker 0 is\n"
         "the chief.\n\n"
         "Models: digits-mlp (64-128-10 on 8x8 handwritten digits), digits-cnn (the digits\n"
         "through a 3x3 convolution to 16 channels, ReLU, 2x2 max pooling and a dense layer),\n"
         "iris-softmax (softmax regression on Fisher's iris), linear-regression (y = 3x + 2 plus\n"
         "noise, drawn in the graph on each worker; prints the fitted w and b).\n\n"
         "Without --cluster and TF_CONFIG the cluster is ps=127.0.0.1:2223;worker=127.0.0.1:2222.";
}

void ExampleTrainCommand::DeclareFlags(FlagParser& flags) {
  cluster_flags_.Declare(flags);
  flags.AddString("model", "NAME", "digits-mlp, digits-cnn, iris-softmax or linear-regression", &model_);
  flags.AddInt("last_step", "N", "StopAtStepHook's last_step", &last_step_, 1);
  flags.AddString("checkpoint_dir", "DIR", "where the chief writes checkpoints and event files", &checkpoint_dir_);
  flags.AddBool("sync", "synchronous replicas: each global step applies the mean gradient of all the workers", &sync_);
  flags.AddInt("wait_for_ps_ms", "MS", "how long a worker waits for the ps", &wait_for_ps_ms_, 1);
  flags.AddInt("wait_for_watcher_ms", "MS", "before starting, wait this long for a watcher of the task's events",
               &wait_for_watcher_ms_, 0);
}

Status ExampleTrainCommand::Run(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const ClusterFlags::Task task, cluster_flags_.Resolve(examples::kSeedDefaultCluster));
  const auto models = examples::TrainModels();
  if (std::find(models.begin(), models.end(), model_) == models.end())
    return UsageError("--model '" + model_ + "' is unknown (models: " + absl::StrJoin(models, ", ") + ")");
  if (task.job_name != "ps" && task.job_name != "worker")
    return UsageError("--job_name must be ps or worker (see 'clab help example train')");
  examples::TrainProgramOptions options;
  options.cluster = task.cluster;
  options.job_name = task.job_name;
  options.task_index = task.task_index;
  options.model = model_;
  options.last_step = last_step_;
  options.checkpoint_dir = checkpoint_dir_;
  options.sync = sync_;
  options.wait_for_ps_ms = wait_for_ps_ms_;
  options.wait_for_watcher_ms = wait_for_watcher_ms_;
  return RunTrainProgram(options, out);
}

}  // namespace clab::cli
