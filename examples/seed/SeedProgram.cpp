#include "seed/SeedProgram.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/hooks/StepCounterHook.h"
#include "examplegraphs/SeedGraph.h"
#include "seed/TaskProgram.h"

#include <chrono>
#include <ostream>

namespace clab::examples {

Status RunSeedProgram(const SeedProgramOptions& options, std::ostream& out) {
  GraphBuilder g;
  // global_step = tf.contrib.framework.get_or_create_global_step()
  // As written, outside any device scope, the global step lands on each worker's own task:
  // with one worker (the tutorial's cluster) that is harmless, but with several, each has a
  // global step only it can initialise, and a non-chief waits for its own forever. A
  // faithful run keeps that; otherwise it is created under replica_device_setter below, on
  // the ps, shared by every worker.
  Output global_step;
  if (options.faithful) global_step = GetOrCreateGlobalStep(g);

  // cluster = tf.train.ClusterSpec({"ps": ["...:2223"], "worker": ["...:2222"]})
  const ClusterSpec& cluster = options.cluster;
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, StartTaskServer(options, out));
  if (!server) return OkStatus();  // a ps, after serving until a signal

  // worker_device = "/job:worker/task:0/cpu:0/"
  const std::string worker_device = StrCat("/job:worker/task:", options.task_index, "/cpu:0/");

  // with tf.device(tf.train.replica_device_setter(worker_device=worker_device, cluster=cluster)):
  tools::SeedGraph seed;
  {
    ReplicaDeviceSetterOptions setter;
    setter.worker_device = worker_device;
    setter.cluster = cluster.ToDict();
    CLAB_ASSIGN_OR_RETURN(DeviceFunction device_function, ReplicaDeviceSetter(setter));
    auto scope = g.WithDevice(device_function);
    if (!options.faithful) global_step = GetOrCreateGlobalStep(g);
    //   x = tf.Variable([[1, 2, 3, 4]]);  w = tf.Variable([[2], [2], [2], [2]]);  mat = tf.matmul(x, w)
    seed = tools::BuildSeedGraph(g);
  }
  // Not in the tutorial: without it the global step stays 0 and StopAtStepHook never fires.
  std::vector<std::string> fetches = {seed.product.name()};
  if (!options.faithful) fetches.push_back(IncrementGlobalStep(g, global_step).name());
  CLAB_RETURN_IF_ERROR(g.status());

  // with tf.train.MonitoredTrainingSession(
  //     master=server.target, is_chief=(FLAGS.task_index == 0),
  //     config=tf.ConfigProto(log_device_placement=True),
  //     hooks=[tf.train.StopAtStepHook(last_step=200)]) as mon_sess:
  MonitoredTrainingSessionOptions session_options = WorkerSessionOptions(
      options, *server, options.max_seconds > 0 ? options.max_seconds : (options.faithful ? 10.0 : 0.0));
  // TensorFlow adds the step counter only with a checkpoint directory; a faithful run adds it
  // anyway, so that its warning shows why the run cannot end by itself.
  if (options.faithful && options.checkpoint_dir.empty() && session_options.is_chief)
    session_options.hooks.push_back(std::make_shared<StepCounterHook>(SecondOrStepTimer::EverySteps(100)));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<MonitoredSession> mon_sess, MonitoredTrainingSession(g, session_options));

  //   while not mon_sess.should_stop(): print(mon_sess.run(mat))
  std::vector<Tensor> outputs;
  int64_t runs = 0;
  while (!mon_sess->should_stop()) {
    CLAB_RETURN_IF_ERROR(mon_sess->Run(fetches, {}, &outputs));
    out << outputs.at(0).DebugString() << std::endl;
    ++runs;
  }
  std::vector<Tensor> step;
  CLAB_RETURN_IF_ERROR(mon_sess->raw_session()->Run({}, {GlobalStepReadTensor(global_step)}, {}, &step));
  const int64_t final_step = step.at(0).scalar<int64_t>();
  CLAB_RETURN_IF_ERROR(mon_sess->Close());

  if (options.faithful) {
    out << "Stopped after " << runs << " runs at global step " << final_step
        << ": the tutorial's graph never increments the global step, so StopAtStepHook(last_step=" << options.last_step
        << ") could not fire; --max_seconds ended it." << std::endl;
  } else if (final_step >= options.last_step) {
    out << "Stopped at global step " << final_step << " after " << runs
        << " runs of this worker: StopAtStepHook(last_step=" << options.last_step
        << "). Each run also incremented the global step, which the tutorial's graph never does "
        << "(see --faithful)." << std::endl;
  } else {
    out << "Stopped at global step " << final_step << " after " << runs << " runs (--max_seconds)." << std::endl;
  }
  return server->Stop();
}

}  // namespace clab::examples
