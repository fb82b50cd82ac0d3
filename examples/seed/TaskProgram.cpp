#include "seed/TaskProgram.h"

#include "clab/train/hooks/StopAtStepHook.h"

#include <ostream>

namespace clab::examples {

Status StopAfterSecondsHook::Begin(HookEnvironment& env) {
  log_ = env.log;
  return OkStatus();
}

Status StopAfterSecondsHook::AfterCreateSession(Session&) {
  if (!started_) start_ = std::chrono::steady_clock::now();
  started_ = true;
  return OkStatus();
}

Status StopAfterSecondsHook::AfterRun(SessionRunContext& context, const SessionRunValues&) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed >= seconds_) {
    if (log_) log_->Hook(name(), LogLevel::kInfo, StrCat("Stopping after ", seconds_, " s (--max_seconds)."));
    context.request_stop();
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<Server>> StartTaskServer(const TaskProgramOptions& options, std::ostream& out) {
  // server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
  ServerOptions server_options;
  server_options.cluster = options.cluster;
  server_options.job_name = options.job_name;
  server_options.task_index = options.task_index;
  server_options.data_dirs = options.data_dirs;
  server_options.checkpoint_dir = options.checkpoint_dir;
  server_options.config.mutable_clusterlab()->set_wait_for_tasks_ms(options.wait_for_ps_ms);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));
  // if FLAGS.job_name == "ps": server.join()  (any job but the workers only serves)
  if (options.job_name != "worker") {
    CLAB_RETURN_IF_ERROR(JoinUntilTerminationSignal(*server, [&](const char* signal) {
      out << "Received " << signal << ", stopping " << server->task_name() << std::endl;
    }));
    return std::unique_ptr<Server>();
  }
  if (options.wait_for_watcher_ms > 0) server->WaitForWatcher(static_cast<int>(options.wait_for_watcher_ms));
  return server;
}

MonitoredTrainingSessionOptions WorkerSessionOptions(const TaskProgramOptions& options, Server& server,
                                                     double max_seconds) {
  // tf.train.MonitoredTrainingSession(master=server.target, is_chief=(FLAGS.task_index == 0),
  //     config=tf.ConfigProto(log_device_placement=True),
  //     hooks=[tf.train.StopAtStepHook(last_step=...)])
  MonitoredTrainingSessionOptions session_options;
  session_options.master = server.target();
  session_options.is_chief = options.task_index == 0;
  session_options.config.set_log_device_placement(options.log_device_placement);
  session_options.config.mutable_clusterlab()->set_wait_for_tasks_ms(options.wait_for_ps_ms);
  session_options.hooks.push_back(std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(options.last_step)));
  if (max_seconds > 0) session_options.hooks.push_back(std::make_shared<StopAfterSecondsHook>(max_seconds));
  session_options.checkpoint_dir = options.checkpoint_dir;
  if (options.save_checkpoint_steps > 0) session_options.save_checkpoint_steps = options.save_checkpoint_steps;
  if (options.save_checkpoint_secs > 0) session_options.save_checkpoint_secs = options.save_checkpoint_secs;
  if (options.fail_on_damaged_checkpoint)
    session_options.on_damaged_checkpoint = MonitoredTrainingSessionOptions::OnDamagedCheckpoint::kFail;
  // Hook lines, steps and checkpoints also go to this task's event stream.
  session_options.log = std::make_shared<TrainingLog>(server.task_name());
  session_options.log->AddSink([server = &server](const TaskEvent& event) { server->Publish(event); });
  return session_options;
}

}  // namespace clab::examples
