// A graph written elsewhere (the studio's graph editor, TensorFlow's tf.train.write_graph)
// run on a cluster, one task per process, the way the seed program runs its own graph: the
// ps serves; each worker imports the graph, runs it in a MonitoredTrainingSession on its
// own server (worker 0 is the chief and initialises the variables) and prints the fetched
// tensors.
//
// The graph is the one worker 0 builds: nodes placed on /job:worker/task:0 run on each
// worker's own task, as replica_device_setter(worker_device=...) gives every worker its own
// replica. A graph without a global step gets one (on the first ps task), incremented with
// each step, so StopAtStepHook(last_step) ends the run; a graph with its own global step
// must increment it (an optimizer's minimize(loss, global_step) does), or --max_seconds
// ends the run.
#pragma once

#include "clab/core/Status.h"
#include "seed/TaskProgram.h"
#include "tensorflow/graph.pb.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace clab::examples {

struct GraphProgramOptions : TaskProgramOptions {
  tensorflow::GraphDef graph;
  // Run in each step. Names of nodes without outputs (a train op) are run, not printed.
  // Empty: what a step of the graph most likely runs (GuessStepFetches).
  std::vector<std::string> fetches;
  // Print the fetched values every this many steps of this worker (and the last).
  int64_t print_every = 1;
};

// Runs one task to its end: a worker after its loop, a ps when SIGINT or SIGTERM arrives.
Status RunGraphProgram(const GraphProgramOptions& options, std::ostream& out);

// Nodes placed on worker 0's task, moved to worker `task_index`'s (any other device as is).
std::string WorkerReplicaDevice(const std::string& device, int task_index);

}  // namespace clab::examples
