#include "clab/train/MonitoredSession.h"

#include "clab/graph/GraphKeys.h"
#include "clab/graph/OpRegistry.h"
#include "clab/ops/Ops.h"
#include "clab/train/CheckpointState.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MetaGraphExport.h"
#include "clab/train/QueueRunners.h"
#include "clab/train/Saver.h"
#include "clab/train/hooks/CheckpointSaverHook.h"
#include "clab/train/hooks/StepCounterHook.h"
#include "clab/train/hooks/StepReporterHook.h"
#include "clab/train/hooks/SummarySaverHook.h"

#include <absl/strings/str_join.h>

#include <chrono>
#include <set>
#include <thread>

namespace clab {
namespace {

bool IsRecoverable(const Status& s) { return absl::IsAborted(s) || absl::IsUnavailable(s); }

SecondOrStepTimer TimerFor(std::optional<double> secs, std::optional<int64_t> steps) {
  if (steps && *steps > 0) return SecondOrStepTimer::EverySteps(*steps);
  return SecondOrStepTimer::EverySeconds(secs.value_or(0));
}

// TensorFlow's defaults: a pair left unset means the default cadence; one value set turns
// the other off; zero (or both unset where there is no default) means no hook.
bool ResolveCadence(std::optional<double>* secs, std::optional<int64_t>* steps, double default_secs,
                    int64_t default_steps) {
  if (!secs->has_value() && !steps->has_value()) {
    if (default_steps > 0) *steps = default_steps;
    else *secs = default_secs;
  }
  return (secs->has_value() && **secs > 0) || (steps->has_value() && **steps > 0);
}

}  // namespace

StatusOr<std::unique_ptr<MonitoredSession>> MonitoredTrainingSession(GraphBuilder& graph,
                                                                     MonitoredTrainingSessionOptions options) {
  std::unique_ptr<MonitoredSession> ms(new MonitoredSession);
  ms->log_ = options.log ? options.log : std::make_shared<TrainingLog>();
  HookEnvironment env;
  env.graph = &graph;
  env.log = ms->log_.get();
  if (auto gs = GetGlobalStep(graph)) env.global_step_tensor = GlobalStepReadTensor(*gs);
  env.graph_def = &ms->graph_def_;
  env.master = options.master;
  env.config = options.config;

  // The saver exists before the hooks so that the checkpoint hook and restore share it.
  ms->saver_ = options.scaffold.saver;
  const auto& all_variables = graph.Collection(GraphKeys::kGlobalVariables);
  if (!ms->saver_ && !all_variables.empty()) {
    CLAB_ASSIGN_OR_RETURN(Saver saver, Saver::Build(graph));
    ms->saver_ = std::make_shared<Saver>(std::move(saver));
  }

  if (options.is_chief) {
    ms->hooks_ = options.chief_only_hooks;
    if (!options.checkpoint_dir.empty() && !env.global_step_tensor.empty()) {
      if (options.log_step_count_steps > 0)
        ms->hooks_.push_back(std::make_shared<StepCounterHook>(
            SecondOrStepTimer::EverySteps(options.log_step_count_steps), options.checkpoint_dir));
      if (ResolveCadence(&options.save_summaries_secs, &options.save_summaries_steps, 0, 100))
        ms->hooks_.push_back(
            std::make_shared<SummarySaverHook>(TimerFor(options.save_summaries_secs, options.save_summaries_steps),
                                               options.checkpoint_dir, options.summary_scalars));
      if (ResolveCadence(&options.save_checkpoint_secs, &options.save_checkpoint_steps, 600, 0) && ms->saver_)
        ms->hooks_.push_back(std::make_shared<CheckpointSaverHook>(
            options.checkpoint_dir, TimerFor(options.save_checkpoint_secs, options.save_checkpoint_steps), ms->saver_));
    }
  }
  ms->hooks_.insert(ms->hooks_.end(), options.hooks.begin(), options.hooks.end());
  // Progress for watchers of the task (the studio's live step count); cheap and throttled.
  if (!env.global_step_tensor.empty()) ms->hooks_.push_back(std::make_shared<StepReporterHook>());
  for (auto& hook : ms->hooks_) {
    Status s = hook->Begin(env);
    if (!s.ok()) return errors::Annotate(s, StrCat(hook->name(), ".Begin: "));
  }

  // Finalise: initialiser and readiness ops.
  ms->variables_ = options.scaffold.variables.empty() ? all_variables : options.scaffold.variables;
  ms->init_op_ = options.scaffold.init_op;
  ms->global_step_tensor_ = env.global_step_tensor;
  if (ms->init_op_.empty()) ms->init_op_ = ops::GlobalVariablesInitializer(graph, "init").node();
  {
    auto scope = graph.WithNameScope("report_uninitialized_variables");
    for (size_t i = 0; i < ms->variables_.size(); ++i) {
      const Output var(ms->variables_[i]);
      auto colocate = graph.ColocateWith(var);
      const tensorflow::NodeDef* node = graph.FindNode(var.node());
      if (node == nullptr) return errors::NotFound("Scaffold: variable '", var.node(), "' is not in the graph");
      std::map<std::string, tensorflow::AttrValue> attrs;
      attrs["dtype"] = node->attr().at("dtype");
      Output check = graph.AddNode("IsVariableInitialized", {var}, attrs, StrCat("IsVariableInitialized_", i));
      ms->is_initialized_tensors_.push_back(check.name());
    }
  }
  CLAB_RETURN_IF_ERROR(graph.status());
  ms->graph_def_ = graph.graph_def();
  CLAB_ASSIGN_OR_RETURN(ms->queue_runner_defs_, QueueRunners::FromGraph(graph));
  // The MetaGraphDef each checkpoint carries (model.ckpt-N.meta), of the finished graph.
  if (ms->saver_) {
    const tensorflow::SaverDef saver_def = ms->saver_->saver_def();
    ms->saver_->SetMetaGraph(ExportMetaGraph(graph, &saver_def));
  }
  // Nodes whose op has no outputs (NoOp, a train op, ...) can only be run, not fetched.
  for (const tensorflow::NodeDef& node : ms->graph_def_.node()) {
    const OpDef* op = OpRegistry::Global().Find(node.op());
    if (op != nullptr && op->outputs.empty()) ms->no_output_ops_.insert(node.name());
  }
  ms->options_ = std::move(options);
  env.graph = nullptr;

  Status created = ms->CreateSession();
  while (IsRecoverable(created)) {
    ms->log_->Info(StrCat("An error was raised while a session was being created: ", FormatStatus(created),
                          ". It may be a task that is not up yet or restarting; trying again."));
    std::this_thread::sleep_for(std::chrono::duration<double>(ms->options_.recovery_wait_secs));
    created = ms->CreateSession();
  }
  CLAB_RETURN_IF_ERROR(created);
  return ms;
}

MonitoredSession::~MonitoredSession() {
  if (!closed_) Close().IgnoreError();
}

Status MonitoredSession::CreateSession() {
  if (queue_runners_) queue_runners_->Stop().IgnoreError();
  queue_runners_.reset();
  if (session_) session_->Close().IgnoreError();
  session_.reset();
  SessionOptions so;
  so.target = options_.master;
  so.config = options_.config;
  CLAB_ASSIGN_OR_RETURN(session_, NewSession(so));
  CLAB_RETURN_IF_ERROR(session_->Create(graph_def_));
  log_->State(TaskState::SESSION_CREATED,
              StrCat("session on ", options_.master.empty() ? "this process" : options_.master));
  CLAB_RETURN_IF_ERROR(options_.is_chief ? PrepareChief() : WaitUntilReady());
  log_->State(TaskState::MODEL_READY,
              options_.is_chief ? "the chief initialised or restored the model" : "the model is ready");
  for (auto& hook : hooks_) {
    Status s = hook->AfterCreateSession(*session_);
    if (!s.ok()) return errors::Annotate(s, StrCat(hook->name(), ".AfterCreateSession: "));
  }
  // As TensorFlow's session creators start the standard services: the queue runners fill
  // the input queues from here on.
  if (!queue_runner_defs_.empty()) {
    queue_runners_ = std::make_unique<QueueRunners>(queue_runner_defs_,
                                                    [log = log_](const std::string& line) { log->Warning(line); });
    queue_runners_->Start(session_.get());
  }
  return OkStatus();
}

StatusOr<std::vector<std::string>> MonitoredSession::UninitializedVariables() {
  std::vector<std::string> missing;
  if (is_initialized_tensors_.empty()) return missing;
  std::vector<Tensor> flags;
  CLAB_RETURN_IF_ERROR(session_->Run({}, is_initialized_tensors_, {}, &flags));
  for (size_t i = 0; i < flags.size(); ++i)
    if (!flags[i].scalar<bool>()) missing.push_back(variables_[i]);
  return missing;
}

Status MonitoredSession::PrepareChief() {
  bool restored = false;
  if (saver_ && !options_.checkpoint_dir.empty()) {
    auto candidates = CheckpointsNewestFirst(options_.checkpoint_dir);
    if (candidates.ok()) {
      saver_->RecoverLastCheckpoints(*candidates);
      for (const auto& prefix : *candidates) {
        Status s = saver_->Restore(*session_, prefix);
        if (s.ok()) {
          log_->Info(StrCat("Restoring parameters from ", prefix));
          // Watchers are told the step the model resumes from, as read from the restored model.
          int64_t step = -1;
          std::vector<Tensor> value;
          if (!global_step_tensor_.empty() && session_->Run({}, {global_step_tensor_}, {}, &value).ok())
            step = value.at(0).scalar<int64_t>();
          log_->Checkpoint(prefix, step, 0, static_cast<int>(saver_->variables().size()), true);
          restored = true;
          break;
        }
        if (!absl::IsDataLoss(s) && !absl::IsNotFound(s)) return s;
        if (options_.on_damaged_checkpoint == MonitoredTrainingSessionOptions::OnDamagedCheckpoint::kFail)
          return errors::DataLoss("Checkpoint ", prefix, " cannot be restored (", s.message(),
                                  "); --on_damaged_checkpoint=previous would restore the one before it");
        // A damaged or missing checkpoint is skipped for the previous good one, never loaded,
        // and said loudly: training goes back to an older step.
        log_->Warning(StrCat("Checkpoint ", prefix, " is DAMAGED or missing and is skipped: ", FormatStatus(s),
                             ". The previous checkpoint is restored instead (--on_damaged_checkpoint=fail stops)."));
      }
    }
  }
  if (!restored) {
    log_->Info("Running the initializers (no checkpoint to restore).");
    std::vector<Tensor> unused;
    CLAB_RETURN_IF_ERROR(session_->Run(options_.scaffold.init_feed, {}, {init_op_}, &unused));
  }
  CLAB_ASSIGN_OR_RETURN(auto missing, UninitializedVariables());
  if (!missing.empty())
    return errors::FailedPrecondition("Init operations did not make model ready. Variables not initialized: ",
                                      absl::StrJoin(missing, ", "));
  return OkStatus();
}

Status MonitoredSession::WaitUntilReady() {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_log = start - std::chrono::hours(1);
  while (true) {
    CLAB_ASSIGN_OR_RETURN(auto missing, UninitializedVariables());
    if (missing.empty()) return OkStatus();
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited > options_.max_wait_secs)
      return errors::DeadlineExceeded("Session was not ready after waiting ", static_cast<int64_t>(waited),
                                      " secs. Variables not initialized: ", absl::StrJoin(missing, ", "),
                                      ". Is the chief running?");
    if (Clock::now() - last_log >= std::chrono::seconds(2)) {
      const std::string detail = StrCat("Waiting for model to be ready: the chief has not initialised ",
                                        absl::StrJoin(missing, ", "), " yet (", static_cast<int64_t>(waited), " s)");
      log_->Info(detail);
      log_->State(TaskState::WAITING, detail, missing);
      last_log = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options_.recovery_wait_secs));
  }
}

bool MonitoredSession::should_stop() { return stop_requested_ || closed_; }

Status MonitoredSession::Run(const std::vector<std::string>& fetches, const FeedList& feeds,
                             std::vector<Tensor>* outputs) {
  if (closed_) return errors::FailedPrecondition("Session is already closed.");
  if (stop_requested_) return errors::FailedPrecondition("Run called even after should_stop requested.");
  while (true) {
    Status s = RunOnce(fetches, feeds, outputs);
    // A queue runner that failed closed the queues; its error is the step's cause.
    if (!s.ok() && queue_runners_ && !queue_runners_->error().ok()) {
      stop_requested_ = true;
      return queue_runners_->error();
    }
    if (absl::IsOutOfRange(s)) {
      // Input exhausted or a queue closed: the end of training, as TensorFlow's monitored
      // session treats OutOfRangeError. The caller still sees the status.
      stop_requested_ = true;
      log_->Info(StrCat("Stopping: ", s.message()));
      return s;
    }
    if (!IsRecoverable(s)) return s;
    if (options_.max_recoveries > 0 && recoveries_ >= options_.max_recoveries) return s;
    ++recoveries_;
    log_->Info(
        StrCat("An error was raised. This may be due to a preemption in a connected worker or parameter "
               "server. The current session will be closed and a new session will be created. Error: ",
               FormatStatus(s)));
    log_->Error(std::string(absl::StatusCodeToString(s.code())), std::string(s.message()));
    Status created = CreateSession();
    while (IsRecoverable(created)) {
      std::this_thread::sleep_for(std::chrono::duration<double>(options_.recovery_wait_secs));
      created = CreateSession();
    }
    CLAB_RETURN_IF_ERROR(created);
  }
}

Status MonitoredSession::RunOnce(const std::vector<std::string>& fetches, const FeedList& feeds,
                                 std::vector<Tensor>* outputs) {
  SessionRunContext context(SessionRunArgs{fetches, feeds, {}}, session_.get());
  std::vector<std::string> all_fetches = fetches;
  FeedList all_feeds = feeds;
  std::set<std::string> user_fed, hook_fed;
  for (const auto& [name, value] : feeds) user_fed.insert(name);
  tensorflow::RunOptions options;
  std::vector<std::pair<size_t, size_t>> ranges;  // per hook: [begin, end) in all_fetches
  for (auto& hook : hooks_) {
    auto args = hook->BeforeRun(context);
    if (!args.ok()) return errors::Annotate(args.status(), StrCat(hook->name(), ".BeforeRun: "));
    ranges.emplace_back(all_fetches.size(), all_fetches.size() + args->fetches.size());
    all_fetches.insert(all_fetches.end(), args->fetches.begin(), args->fetches.end());
    for (auto& [name, value] : args->feeds) {
      if (user_fed.count(name))
        return errors::InvalidArgument("Same tensor is fed by a SessionRunHook and user. Conflict(s): [", name, "]");
      if (!hook_fed.insert(name).second)
        return errors::InvalidArgument("Same tensor is fed by two hooks. Conflict(s): [", name, "]");
      all_feeds.emplace_back(name, value);
    }
    if (args->options.trace_level() > options.trace_level()) options.set_trace_level(args->options.trace_level());
    if (args->options.timeout_in_ms() > options.timeout_in_ms())
      options.set_timeout_in_ms(args->options.timeout_in_ms());
  }
  // As mon_sess.run(train_op): a fetch naming a node without outputs (a train op) is run as
  // a target, and its result is an empty tensor (Python's None).
  std::vector<std::string> tensor_fetches;
  std::vector<std::string> targets;
  std::vector<int> position(all_fetches.size(), -1);
  for (size_t i = 0; i < all_fetches.size(); ++i) {
    const std::string& fetch = all_fetches[i];
    if (fetch.find(':') == std::string::npos && no_output_ops_.count(fetch)) {
      targets.push_back(fetch);
      continue;
    }
    position[i] = static_cast<int>(tensor_fetches.size());
    tensor_fetches.push_back(fetch);
  }
  std::vector<Tensor> fetched;
  tensorflow::RunMetadata metadata;
  CLAB_RETURN_IF_ERROR(session_->Run(options, all_feeds, tensor_fetches, targets, &fetched, &metadata));
  std::vector<Tensor> results(all_fetches.size());
  for (size_t i = 0; i < all_fetches.size(); ++i)
    if (position[i] >= 0) results[i] = fetched[static_cast<size_t>(position[i])];
  outputs->assign(results.begin(), results.begin() + static_cast<long>(fetches.size()));
  for (size_t h = 0; h < hooks_.size(); ++h) {
    SessionRunValues values;
    values.results.assign(results.begin() + static_cast<long>(ranges[h].first),
                          results.begin() + static_cast<long>(ranges[h].second));
    values.options = options;
    values.run_metadata = &metadata;
    Status s = hooks_[h]->AfterRun(context, values);
    if (!s.ok()) return errors::Annotate(s, StrCat(hooks_[h]->name(), ".AfterRun: "));
  }
  stop_requested_ = stop_requested_ || context.stop_requested();
  return OkStatus();
}

Status MonitoredSession::Close() {
  if (closed_) return errors::FailedPrecondition("Session is already closed.");
  closed_ = true;
  Status first;
  if (session_) {
    for (auto& hook : hooks_) {
      Status s = hook->End(*session_);
      if (!s.ok() && first.ok()) first = errors::Annotate(s, StrCat(hook->name(), ".End: "));
    }
    // The runners' threads end before the session they run on.
    if (queue_runners_) queue_runners_->Stop().IgnoreError();
    queue_runners_.reset();
    Status c = session_->Close();
    // A session whose tasks went away cannot be closed cleanly; that is not the caller's error.
    if (!c.ok() && !IsRecoverable(c) && first.ok()) first = c;
  }
  log_->State(TaskState::STOPPED, "the monitored session is closed");
  return first;
}

}  // namespace clab
