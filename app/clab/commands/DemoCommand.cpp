#include "commands/DemoCommand.h"

#include "cli/ChildProcess.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/LoopbackPorts.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "seed/SeedGraph.h"

#include <absl/strings/str_cat.h>

#include <mutex>
#include <ostream>

namespace clab::cli {

std::string DemoCommand::description() const {
  return "Runs the seed tutorial's program on a real cluster on this machine:\n"
         "  x = Variable([[1, 2, 3, 4]])   w = Variable([[2], [2], [2], [2]])   mat = matmul(x, w)\n"
         "A ps task and a worker task start as two processes ('clab example seed') on free\n"
         "127.0.0.1 ports. The worker builds the graph under replica_device_setter, so x and w\n"
         "live on /job:ps and MatMul runs on /job:worker, and prints the placement log and [[20]]\n"
         "per step; the tensors cross between the processes over gRPC. Every line is prefixed\n"
         "with the task that printed it. --local runs the graph in this process instead.";
}

void DemoCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("steps", "N", "how many steps the worker runs", &steps_, 1);
  flags.AddInt("timeout", "SECONDS", "give up when the worker has not finished by then", &timeout_s_, 1);
  flags.AddBool("local", "run in this process with a local session instead of a ps and a worker", &local_);
}

Status DemoCommand::Run(std::ostream& out) { return local_ ? RunLocal(out) : RunDistributed(out); }

Status DemoCommand::RunDistributed(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, PickFreeLoopbackPorts(2));
  const std::string cluster = absl::StrCat("ps=127.0.0.1:", ports[0], ";worker=127.0.0.1:", ports[1]);
  out << "The seed program on a cluster of two processes on this machine:\n"
      << "  cluster " << cluster << "\n"
      << "  ps/0      holds the variables x and w (replica_device_setter puts variables on the ps)\n"
      << "  worker/0  runs MatMul and prints the result; log_device_placement shows where each op runs\n"
      << std::endl;

  std::mutex out_mu;
  auto printer = [&](std::string prefix) {
    return [&out, &out_mu, prefix = std::move(prefix)](const std::string& line) {
      std::lock_guard<std::mutex> lock(out_mu);
      out << prefix << line << std::endl;
    };
  };
  const std::string self = ChildProcess::SelfPath();
  auto task_args = [&](const char* job) {
    return std::vector<std::string>{"example", "seed", "--cluster", cluster, "--job_name", job, "--task_index", "0",
                                    "--steps", std::to_string(steps_)};
  };
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> ps, ChildProcess::Start(self, task_args("ps"), printer("[ps/0]     ")));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> worker,
                        ChildProcess::Start(self, task_args("worker"), printer("[worker/0] ")));

  const std::optional<int> worker_status = worker->Wait(std::chrono::seconds(timeout_s_));
  if (!worker_status) worker->Stop();
  const int ps_status = ps->Stop();
  worker.reset();  // joins its output reader: every line is printed before the summary
  ps.reset();
  {
    std::lock_guard<std::mutex> lock(out_mu);
    out << std::endl;
  }
  if (!worker_status)
    return errors::DeadlineExceeded("the worker did not finish within ", timeout_s_,
                                    " s (see its lines above); both tasks were stopped");
  if (*worker_status != 0)
    return errors::Unknown("the worker task failed with exit status ", *worker_status, " (see its lines above)");
  out << "Both tasks ended cleanly (ps exit status " << ps_status
      << " after SIGTERM). The same program runs on real hosts: see 'clab help example seed'." << std::endl;
  return OkStatus();
}

Status DemoCommand::RunLocal(std::ostream& out) {
  GraphBuilder g;
  const examples::SeedGraph seed = examples::BuildSeedGraph(g);
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
  for (int64_t step = 1; step <= steps_; ++step) {
    CLAB_RETURN_IF_ERROR(
        WithPrefix(session->Run({}, {seed.product.name()}, {}, &outputs), absl::StrCat("step ", step, " failed: ")));
    out << outputs[0].DebugString() << std::endl;
  }
  return session->Close();
}

}  // namespace clab::cli
