#include "commands/ExampleTrainCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "examplegraphs/TrainGraph.h"
#include "models/TrainProgram.h"
#include "seed/SeedProgram.h"

#include <absl/strings/str_join.h>

namespace clab::cli {

std::string ExampleTrainCommand::description() const {
  return "A training program, one task per process, on a data set shipped in resources/data.\n"
         "The ps task serves until Ctrl-C. Each worker trains the model on its shard of the\n"
         "training rows (minibatches of 32, gradient descent; weights on the ps through\n"
         "replica_device_setter) in a MonitoredTrainingSession with StopAtStepHook(--last_step)\n"
         "and the loss logged every --log_every steps (100), then prints its held-out accuracy. Worker 0 is\n"
         "the chief.\n\n"
         "Models: digits-mlp (64-128-10 on 8x8 handwritten digits), digits-cnn (the digits\n"
         "through a 3x3 convolution to 16 channels, ReLU, 2x2 max pooling and a dense layer),\n"
         "iris-softmax (softmax regression on Fisher's iris), linear-regression (y = 3x + 2 plus\n"
         "noise, drawn in the graph on each worker; prints the fitted w and b).\n\n"
         "Without --cluster and TF_CONFIG the cluster is ps=127.0.0.1:2223;worker=127.0.0.1:2222.";
}

void ExampleTrainCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("model", "NAME", "digits-mlp, digits-cnn, iris-softmax or linear-regression", &model_);
  task_flags_.Declare(flags, "stop the worker after S seconds");
  flags.AddBool("sync", "synchronous replicas: each global step applies the mean gradient of all the workers", &sync_);
  flags.AddBool("log_device_placement", "print each node's device, as TensorFlow does", &log_device_placement_);
  flags.AddInt("log_every", "N", "log the loss (and how long the last N steps took) every N steps", &log_every_, 1);
}

Status ExampleTrainCommand::Run(std::ostream& out) {
  const auto models = tools::TrainModels();
  if (std::find(models.begin(), models.end(), model_) == models.end())
    return UsageError("--model '" + model_ + "' is unknown (models: " + absl::StrJoin(models, ", ") + ")");
  CLAB_ASSIGN_OR_RETURN(const examples::TaskProgramOptions task,
                        task_flags_.Resolve(examples::kSeedDefaultCluster, "example train"));
  examples::TrainProgramOptions options;
  static_cast<examples::TaskProgramOptions&>(options) = task;
  options.model = model_;
  options.sync = sync_;
  options.log_device_placement = log_device_placement_;
  options.log_every = log_every_;
  return RunTrainProgram(options, out);
}

}  // namespace clab::cli
