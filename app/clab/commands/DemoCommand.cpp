#include "commands/DemoCommand.h"

#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/LocalTasks.h"
#include "examplegraphs/SeedGraph.h"
#include "network/LoopbackPorts.h"

#include <absl/strings/str_cat.h>

#include <ostream>

namespace clab::cli {

std::string DemoCommand::description() const {
  return "Runs the seed tutorial's program on a real cluster on this machine:\n"
         "  x = Variable([[1, 2, 3, 4]])   w = Variable([[2], [2], [2], [2]])   mat = matmul(x, w)\n"
         "A ps task and a worker task start as two processes ('clab example seed') on free\n"
         "127.0.0.1 ports. The worker builds the graph under replica_device_setter, so x and w\n"
         "live on /job:ps and MatMul runs on /job:worker, and runs it in a MonitoredTrainingSession\n"
         "with StopAtStepHook(last_step=200), printing the placement log and [[20]] per step; the\n"
         "tensors cross between the processes over gRPC. Every line is prefixed with the task\n"
         "that printed it.\n\n"
         "The tutorial's graph never increments the global step, so it would never stop; by\n"
         "default each step also increments it, so the demo stops at step 200. --faithful runs\n"
         "the graph exactly as written, for --max_seconds (default 10), and shows the step\n"
         "counter's warning. --checkpoint_dir makes the chief write checkpoints and event files\n"
         "(see 'clab ckpt ls' and 'clab events'). --local runs the graph in this process with a\n"
         "plain session for --last_step steps.";
}

void DemoCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("last_step", "N", "StopAtStepHook's last_step (with --local: the number of steps)", &last_step_, 1);
  flags.AddBool("faithful", "run the tutorial's graph exactly: nothing increments the global step", &faithful_);
  flags.AddInt("max_seconds", "S", "stop the worker after S seconds (faithful runs: 10 unless given)", &max_seconds_,
               0);
  flags.AddString("checkpoint_dir", "DIR", "where the chief writes checkpoints and event files", &checkpoint_dir_);
  flags.AddInt("timeout", "SECONDS", "give up when the worker has not finished by then", &timeout_s_, 1);
  flags.AddBool("local", "run in this process with a local session instead of a ps and a worker", &local_);
}

Status DemoCommand::Run(std::ostream& out) { return local_ ? RunLocal(out) : RunDistributed(out); }

Status DemoCommand::RunDistributed(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(2));
  const std::string cluster = absl::StrCat("ps=127.0.0.1:", ports[0], ";worker=127.0.0.1:", ports[1]);
  out << "The seed program on a cluster of two processes on this machine:\n"
      << "  cluster " << cluster << "\n"
      << "  ps/0      holds the variables x and w (replica_device_setter puts variables on the ps)\n"
      << "  worker/0  runs MatMul and prints the result; log_device_placement shows where each op runs\n"
      << std::endl;

  auto task_args = [&](const char* job) {
    std::vector<std::string> args{"example", "seed",         "--cluster", cluster,       "--job_name",
                                  job,       "--task_index", "0",         "--last_step", std::to_string(last_step_)};
    if (faithful_) args.push_back("--faithful");
    if (max_seconds_ > 0) args.insert(args.end(), {"--max_seconds", std::to_string(max_seconds_)});
    if (!checkpoint_dir_.empty()) args.insert(args.end(), {"--checkpoint_dir", checkpoint_dir_});
    return args;
  };
  CLAB_ASSIGN_OR_RETURN(const LocalTasksResult result,
                        RunLocalTasks({{"ps/0", task_args("ps"), false}, {"worker/0", task_args("worker"), true}}, out,
                                      std::chrono::seconds(timeout_s_)));
  out << std::endl;
  if (result.timed_out)
    return errors::DeadlineExceeded("the worker did not finish within ", timeout_s_,
                                    " s (see its lines above); both tasks were stopped");
  if (result.worker_status[0] != 0)
    return errors::Unknown("the worker task failed with exit status ", result.worker_status[0],
                           " (see its lines above)");
  const int ps_status = result.other_status[0];
  out << "Both tasks ended cleanly (ps exit status " << ps_status
      << " after SIGTERM). The same program runs on real hosts: see 'clab help example seed'." << std::endl;
  if (!checkpoint_dir_.empty())
    out << "Checkpoints and event files are in " << checkpoint_dir_ << ": 'clab ckpt ls " << checkpoint_dir_
        << "', 'clab events " << checkpoint_dir_ << "'." << std::endl;
  return OkStatus();
}

Status DemoCommand::RunLocal(std::ostream& out) {
  GraphBuilder g;
  const tools::SeedGraph seed = tools::BuildSeedGraph(g);
  if (!g.status().ok()) return WithPrefix(g.status(), "building the seed graph failed: ");

  out << "The seed program: x = [[1, 2, 3, 4]], w = [[2], [2], [2], [2]], mat = matmul(x, w),\n"
      << "in one local session with log_device_placement=True.\n"
      << std::endl;

  SessionOptions options;
  options.config.set_log_device_placement(true);
  auto session_or = NewSession(options);
  if (!session_or.ok()) return WithPrefix(session_or.status(), "cannot start a local session: ");
  std::unique_ptr<Session> session = std::move(session_or).value();
  CLAB_RETURN_IF_ERROR(WithPrefix(session->Create(g.graph_def()), "creating the session failed: "));

  std::vector<Tensor> outputs;
  CLAB_RETURN_IF_ERROR(WithPrefix(session->Run({}, {}, {seed.init.node()}, &outputs), "initialising x and w failed: "));
  for (int64_t step = 1; step <= last_step_; ++step) {
    CLAB_RETURN_IF_ERROR(
        WithPrefix(session->Run({}, {seed.product.name()}, {}, &outputs), absl::StrCat("step ", step, " failed: ")));
    out << outputs[0].DebugString() << std::endl;
  }
  return session->Close();
}

}  // namespace clab::cli
