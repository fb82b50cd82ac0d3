// One worker's training step as the simulator plays it: a graph of activities, each the CPU
// work of one task or one message between two tasks, made from the compiled step the way the
// engine runs it:
//
//   - the worker's client starts the step (hooks, session, master: the calibrated client cost
//     and the CPU of every call it makes) and runs its partition's nodes that need nothing
//     from elsewhere (reading a minibatch);
//   - the master calls RunGraph on every other partition; a partition runs its nodes in
//     stages, a stage once the tensors it waits for are in;
//   - a tensor goes between two tasks in a RecvTensor call of the receiver to the sender (a
//     request, the sender serving it once the tensor exists, the reply), except where the
//     engine saves the call: a partition that receives nothing returns what it sends the
//     worker in its RunGraph reply (up to 64 KiB a tensor), and a ps partition that serves the
//     worker and waits only for it is cut in two, the second part called once the worker's
//     tensors exist, with them in its request (distributed/InlineSends.h, PushedReceives.h);
//   - the step ends when every RunGraph has replied and the worker's partition is done.
//
// So the calls per step, the bytes each carries and what waits for what are those of a real
// run: a weight on one ps whose update another ps's global step waits for costs that wait.
#pragma once

#include "calibration/Calibration.h"
#include "clab/core/Status.h"
#include "model/StepPlan.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clab::sim {

// Bytes a message adds to its tensors: HTTP/2 and gRPC framing, the request's handles and ids.
inline constexpr int64_t kCallOverheadBytes = 200;
// The engine returns tensors up to this size in the RunGraph reply (distributed/InlineSends.h).
inline constexpr int64_t kInlineSendBytes = 64 * 1024;

struct StepActivity {
  enum class Kind { kCompute, kMessage };
  Kind kind = Kind::kCompute;
  std::string task;    // kCompute: whose CPU; kMessage: the sender
  std::string to;      // kMessage: the receiver
  int64_t bytes = 0;   // kMessage: the tensors it carries (kCallOverheadBytes come on top)
  double seconds = 0;  // kCompute: CPU seconds on the calibrated machine's core
  // kCompute: CPU the task spends beside it (polling threads) that holds nothing up.
  double background = 0;
  bool worker_compute = false;       // the worker's own work (its share of the step's time)
  bool serves_call = false;          // kCompute: the callee's work that serves a call
  std::vector<int> after;            // activities that end before it starts (earlier indexes)
  std::string label;                 // "ps 0: RunGraph", "RecvTensor reply"
  std::vector<std::string> tensors;  // kMessage: what it carries
};

struct StepModel {
  std::string worker_task;               // the compiled worker ("/job:worker/replica:0/task:0")
  std::vector<StepActivity> activities;  // in an order where `after` points back
  double idle_seconds = 0;               // waiting per step that is neither CPU nor messages
  double jitter = 0;                     // relative spread of the worker's compute
  double latency = 0;                    // per message, besides the network (wake-ups)
  double call_server_seconds = 0;        // a call's own CPU at the callee (for SyncReplicas' calls)
  double awake_saving_seconds = 0;       // less CPU for a call whose callee is at work already
  double busy_wake_latency = 0;          // per message, at a receiver whose machine is fully busy
  // Per ps, the CPU of applying the gradients (its nodes that wait for the worker): what
  // SyncReplicas' aggregation has each ps do once per step.
  std::map<std::string, double> apply_seconds;
  int traced_nodes = 0;    // nodes timed by the calibration's trace
  int modelled_nodes = 0;  // nodes costed by the FLOP-count model

  int server_calls = 0;  // calls the other tasks serve per step (RunGraph, RecvTensor)

  int64_t BytesPerStep() const;  // the worker's messages, both ways
  int CallsPerStep() const;      // calls (RunGraph, RecvTensor) the step makes
  double WorkerSeconds() const;  // the worker's CPU per step
  double OtherSeconds() const;   // the other tasks' CPU per step
  // The most messages one after another in a step: what its latency costs.
  int MessagesInSequence() const;
  // The ps (and other tasks) the step involves, in order.
  std::vector<std::string> CalledTasks() const;
};

StatusOr<StepModel> BuildStepModel(const StepPlan& step, const Calibration& calibration);

}  // namespace clab::sim
