#include "commands/ServerCommand.h"

#include "clab/distributed/Server.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/task/WorkerWatch.h"

#include <absl/strings/str_join.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <ostream>
#include <thread>

namespace clab::cli {

std::string ServerCommand::summary() const { return "Run one task of a cluster (a ps or a worker) until Ctrl-C"; }

std::string ServerCommand::description() const {
  return "Starts the gRPC server of one task, as tf.train.Server(cluster, job_name, task_index)\n"
         "followed by server.join(): the task's master and worker services listen on the port\n"
         "the cluster gives it (loopback addresses listen on loopback only). Sessions of other\n"
         "tasks then place variables and ops on it. Ctrl-C or SIGTERM stops it cleanly: running\n"
         "steps fail with CANCELLED and the port is released. With --until_workers_done the task\n"
         "also stops, the same way, once every worker of the cluster has been seen and has\n"
         "finished (its monitored session closed or its process ended): a ps in a batch job or\n"
         "a pod then ends when training does.\n\n"
         "The graphs the task runs read and write files (datasets, checkpoints) only inside its\n"
         "--data_dir directories (default: the working directory) and its --checkpoint_dir; any\n"
         "other path, also one reached through '..' or a symbolic link, is PERMISSION_DENIED.\n\n"
         "Examples:\n"
         "  clab server --cluster 'ps=127.0.0.1:2223;worker=127.0.0.1:2222' --job_name ps\n"
         "  clab server --cluster cluster.json --job_name worker --task_index 1\n"
         "  TF_CONFIG='{\"cluster\": {...}, \"task\": {\"type\": \"ps\", \"index\": 0}}' clab server";
}

void ServerCommand::DeclareFlags(FlagParser& flags) {
  cluster_flags_.Declare(flags);
  flags.AddString("protocol", "NAME", "the transport; only grpc is implemented", &protocol_);
  flags.AddStringList("data_dir", "DIR",
                      "a directory the graphs this task runs may read files in (repeatable; default: the working "
                      "directory)",
                      &data_dirs_);
  flags.AddString("checkpoint_dir", "DIR", "a directory the graphs this task runs may write checkpoints in",
                  &checkpoint_dir_);
  flags.AddBool("until_workers_done", "stop once every worker of the cluster has finished", &until_workers_done_);
}

Status ServerCommand::Run(std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const ClusterFlags::Task task, cluster_flags_.Resolve());
  ServerOptions options;
  options.cluster = task.cluster;
  options.job_name = task.job_name;
  options.task_index = task.task_index;
  options.protocol = protocol_;
  options.data_dirs = data_dirs_;
  options.checkpoint_dir = checkpoint_dir_;
  auto server_or = Server::Create(options);
  if (!server_or.ok()) return server_or.status();
  Server& server = **server_or;
  // The watch ends the join the way Ctrl-C would: a SIGTERM to this process.
  std::atomic<bool> workers_done{false};
  launch::WorkerWatch watch(task.cluster);
  std::thread watcher;
  const bool watching = until_workers_done_ && task.job_name != "worker" && task.cluster.HasJob("worker");
  const Status joined = JoinUntilTerminationSignal(
      server,
      [&](const char* signal) {
        if (workers_done) {
          out << "Every worker has finished: stopping " << server.task_name() << std::endl;
        } else {
          out << "Received " << signal << ", stopping " << server.task_name() << std::endl;
        }
      },
      [&] {
        out << "Serving " << server.task_name() << " at " << server.target() << "; Ctrl-C or SIGTERM stops it"
            << (watching ? ", and so does the end of training." : ".") << std::endl;
        out << "Graphs on this task may use files in " << absl::StrJoin(server.file_dirs(), ", ") << " only."
            << std::endl;
        if (!watching) return;
        watcher = std::thread([&] {
          if (!watch.WaitUntilDone()) return;
          workers_done = true;
          ::kill(::getpid(), SIGTERM);
        });
      });
  watch.Cancel();
  if (watcher.joinable()) watcher.join();
  CLAB_RETURN_IF_ERROR(joined);
  out << "Server " << server.task_name() << " stopped." << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
