// MonitoredTrainingSession: a session that initialises or restores the model (chief) or
// waits until it is ready (non-chief), runs hooks around every step, and recreates itself
// when a task of the cluster restarts (ABORTED or UNAVAILABLE), retrying the failed step.
//
//   clab::MonitoredTrainingSessionOptions options;
//   options.master = server->target();
//   options.is_chief = task_index == 0;
//   options.hooks.push_back(std::make_shared<clab::StopAtStepHook>(clab::StopAtStepHook::LastStep(200)));
//   auto session = clab::MonitoredTrainingSession(graph, options);
//   while (!(*session)->should_stop()) (*session)->Run({"MatMul:0"}, {}, &out);
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "clab/train/SessionRunHook.h"
#include "clab/train/TrainingEvents.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/queue_runner.pb.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clab {

class QueueRunners;
class Saver;

// The ops that initialise and check a model. Empty fields get defaults when the monitored
// session finalises the graph: init_op runs every variable's initializer; readiness is
// checked with IsVariableInitialized on every variable (on each variable's own device).
struct Scaffold {
  std::string init_op;
  std::vector<std::string> variables;  // checked for readiness; empty: "variables" collection
  FeedList init_feed;
  std::shared_ptr<Saver> saver;  // null: a default Saver over every variable
};

struct MonitoredTrainingSessionOptions {
  std::string master;  // "" (in process) or "grpc://host:port"
  bool is_chief = true;
  std::string checkpoint_dir;
  Scaffold scaffold;
  std::vector<std::shared_ptr<SessionRunHook>> hooks;
  std::vector<std::shared_ptr<SessionRunHook>> chief_only_hooks;
  // TensorFlow's defaults: checkpoints every 600 s unless steps are given; summaries every
  // 100 steps unless seconds are given. Set both of a pair to 0 to turn that hook off.
  std::optional<double> save_checkpoint_secs;
  std::optional<int64_t> save_checkpoint_steps;
  // A damaged or missing newest checkpoint: restore the previous good one (ClusterLab's
  // default; said as a warning on the console and the event stream) or stop with DATA_LOSS,
  // as TensorFlow does.
  enum class OnDamagedCheckpoint { kPrevious, kFail };
  OnDamagedCheckpoint on_damaged_checkpoint = OnDamagedCheckpoint::kPrevious;
  std::optional<int64_t> save_summaries_steps;
  std::optional<double> save_summaries_secs;
  tensorflow::ConfigProto config;
  double stop_grace_period_secs = 120;
  int64_t log_step_count_steps = 100;
  double max_wait_secs = 7200;
  // How often a waiting non-chief checks readiness (TensorFlow: fixed 30 s).
  double recovery_wait_secs = 0.5;
  // How many times a step is retried after recoverable errors before giving up (0: forever).
  int max_recoveries = 0;
  // Scalars the summary saver writes: tag -> tensor name (e.g. {"loss", "loss:0"}).
  std::map<std::string, std::string> summary_scalars;
  // Where hook output and events go; null: a log that prints to stderr.
  std::shared_ptr<TrainingLog> log;
};

class MonitoredSession {
 public:
  ~MonitoredSession();  // closes (hooks' End runs) if Close() was not called

  bool should_stop();
  // Runs `fetches` (and the hooks' extra fetches) once. A fetch naming a node without
  // outputs (a train op) runs it and gives an empty tensor, as mon_sess.run(train_op) gives
  // None. OUT_OF_RANGE (input exhausted, a queue closed) is returned and also ends the
  // session: should_stop() turns true, as TensorFlow ends on OutOfRangeError. A run after should_stop() turned
  // true is FAILED_PRECONDITION "Run called even after should_stop requested."
  Status Run(const std::vector<std::string>& fetches, const FeedList& feeds, std::vector<Tensor>* outputs);
  Status Close();

  Session* raw_session() const { return session_.get(); }
  TrainingLog& log() const { return *log_; }
  int recoveries() const { return recoveries_; }

 private:
  friend StatusOr<std::unique_ptr<MonitoredSession>> MonitoredTrainingSession(GraphBuilder&,
                                                                              MonitoredTrainingSessionOptions);
  MonitoredSession() = default;
  Status CreateSession();
  Status RunOnce(const std::vector<std::string>& fetches, const FeedList& feeds, std::vector<Tensor>* outputs);
  Status PrepareChief();
  Status WaitUntilReady();
  StatusOr<std::vector<std::string>> UninitializedVariables();

  MonitoredTrainingSessionOptions options_;
  tensorflow::GraphDef graph_def_;
  std::set<std::string> no_output_ops_;  // nodes without outputs: fetched as targets
  std::vector<std::shared_ptr<SessionRunHook>> hooks_;
  std::shared_ptr<TrainingLog> log_;
  std::shared_ptr<Saver> saver_;
  std::string init_op_;
  std::string global_step_tensor_;  // empty when the graph has no global step
  std::vector<std::string> variables_;
  std::vector<std::string> is_initialized_tensors_;
  std::unique_ptr<Session> session_;
  // The graph's queue runners, started on each (re)created session and stopped at Close.
  std::vector<tensorflow::QueueRunnerDef> queue_runner_defs_;
  std::unique_ptr<QueueRunners> queue_runners_;
  bool stop_requested_ = false;
  bool closed_ = false;
  int recoveries_ = 0;
};

// Builds the hooks TensorFlow adds (chief: step counter, summary saver and checkpoint saver
// when checkpoint_dir is set), calls every hook's Begin, finalises the graph, and creates the
// session (restoring or initialising on the chief, waiting on the others).
StatusOr<std::unique_ptr<MonitoredSession>> MonitoredTrainingSession(GraphBuilder& graph,
                                                                     MonitoredTrainingSessionOptions options);

}  // namespace clab
