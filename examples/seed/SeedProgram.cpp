#include "seed/SeedProgram.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/runtime/Session.h"
#include "seed/SeedGraph.h"

#include <chrono>
#include <ostream>
#include <thread>

namespace clab::examples {
namespace {

// A worker that is not the chief leaves initialisation to the chief (as the monitored
// session does): until the chief has run it, reading x or w fails with FAILED_PRECONDITION.
StatusOr<std::vector<Tensor>> RunWhenInitialized(Session& session, const std::string& fetch, std::ostream& out) {
  constexpr auto kRetry = std::chrono::milliseconds(500);
  constexpr int kAttempts = 120;
  std::vector<Tensor> outputs;
  for (int attempt = 1;; ++attempt) {
    const Status status = session.Run({}, {fetch}, {}, &outputs);
    if (status.ok()) return outputs;
    if (!absl::IsFailedPrecondition(status) || attempt == kAttempts) return status;
    if (attempt == 1) out << "Waiting for the chief to initialise the variables..." << std::endl;
    std::this_thread::sleep_for(kRetry);
  }
}

}  // namespace

Status RunSeedProgram(const SeedProgramOptions& options, std::ostream& out) {
  // cluster = tf.train.ClusterSpec({"ps": ["...:2223"], "worker": ["...:2222"]})
  const ClusterSpec& cluster = options.cluster;

  // server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
  ServerOptions server_options;
  server_options.cluster = cluster;
  server_options.job_name = options.job_name;
  server_options.task_index = options.task_index;
  server_options.config.mutable_clusterlab()->set_wait_for_tasks_ms(options.wait_for_ps_ms);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));

  // if FLAGS.job_name == "ps": server.join()
  if (options.job_name == "ps") {
    return JoinUntilTerminationSignal(*server, [&](const char* signal) {
      out << "Received " << signal << ", stopping " << server->task_name() << std::endl;
    });
  }

  // worker_device = "/job:worker/task:0/cpu:0/"
  const std::string worker_device = StrCat("/job:worker/task:", options.task_index, "/cpu:0/");

  // with tf.device(tf.train.replica_device_setter(worker_device=worker_device, cluster=cluster)):
  GraphBuilder g;
  SeedGraph seed;
  {
    ReplicaDeviceSetterOptions setter;
    setter.worker_device = worker_device;
    std::map<std::string, std::vector<std::string>> dict;
    for (const auto& [job, tasks] : cluster.all_jobs())
      for (const auto& [index, address] : tasks) dict[job].push_back(address);
    setter.cluster = dict;
    CLAB_ASSIGN_OR_RETURN(DeviceFunction device_function, ReplicaDeviceSetter(setter));
    auto scope = g.WithDevice(device_function);
    //   x = tf.Variable([[1, 2, 3, 4]]);  w = tf.Variable([[2], [2], [2], [2]]);  mat = tf.matmul(x, w)
    seed = BuildSeedGraph(g);
  }
  CLAB_RETURN_IF_ERROR(g.status());

  // with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(FLAGS.task_index == 0),
  //                                        config=tf.ConfigProto(log_device_placement=True)) as mon_sess:
  const bool is_chief = options.task_index == 0;
  SessionOptions session_options;
  session_options.target = server->target();
  session_options.config.set_log_device_placement(true);
  session_options.config.mutable_clusterlab()->set_wait_for_tasks_ms(options.wait_for_ps_ms);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> mon_sess, NewSession(session_options));
  CLAB_RETURN_IF_ERROR(mon_sess->Create(g.graph_def()));
  std::vector<Tensor> outputs;
  if (is_chief) CLAB_RETURN_IF_ERROR(mon_sess->Run({}, {}, {seed.init.node()}, &outputs));

  //   while not mon_sess.should_stop(): print(mon_sess.run(mat))
  for (int64_t step = 1; step <= options.steps; ++step) {
    CLAB_ASSIGN_OR_RETURN(outputs, RunWhenInitialized(*mon_sess, seed.product.name(), out));
    out << outputs.at(0).DebugString() << std::endl;
  }
  CLAB_RETURN_IF_ERROR(mon_sess->Close());
  return server->Stop();
}

}  // namespace clab::examples
