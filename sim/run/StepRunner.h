// Plays one step's activity graph (model/StepModel.h) in SimGrid from the calling actor:
// every activity starts once those it waits for have ended, as a SimGrid flow (a message
// between two hosts) or execution (CPU work on a host), and the actor waits until all have
// ended. What each moved or computed goes to the recorder; the step's critical path says how
// its time divides into the worker's compute, messages in flight and waiting. A message that
// arrives at a busy machine wakes its receiver late (busy_wake_latency); a call that finds its
// callee at work costs it less CPU (SimActivity::saving); `tasks`, shared by every actor,
// knows who is at work.
#pragma once

#include "run/ActivityRecorder.h"
#include "run/TaskActivity.h"

#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

#include <string>
#include <vector>

namespace clab::sim {

struct SimActivity {
  bool message = false;
  simgrid::s4u::Host* from = nullptr;  // message
  simgrid::s4u::Host* to = nullptr;
  simgrid::s4u::Host* cpu = nullptr;  // compute
  // message: the CPU its receiver wakes on; when that machine's cores are busy, whatever
  // waits for the message starts busy_wake_latency later (in proportion to the busy share)
  simgrid::s4u::Host* wakes = nullptr;
  int task_index = -1;    // compute: whose work (TaskActivity's index)
  double saving = 0;      // compute serving a call: FLOPs per thread it saves if its task is at work
  double amount = 0;      // bytes, or FLOPs per thread
  int threads = 1;        // compute: cores it may use at once (a group's work)
  double background = 0;  // compute: FLOPs per thread run beside it, holding nothing up
  bool worker_compute = false;
  bool jitters = false;  // the worker's compute, which varies from step to step
  std::vector<int> after;
  std::string task;  // for the trace: whose work, or who sends
  std::string label;
};

struct StepOutcome {
  double seconds = 0;
  double compute = 0;   // the worker's compute on the critical path
  double transfer = 0;  // messages on the critical path
};

class StepRunner {
 public:
  StepRunner(ActivityRecorder* recorder, TaskActivity* tasks, double busy_wake_latency)
      : recorder_(recorder), tasks_(tasks), busy_wake_latency_(busy_wake_latency) {}
  ~StepRunner();  // waits for what still runs in the background

  // `factor` scales the jittering activities; with `trace_task` set, every activity's span
  // goes to the recorder (lanes: "step" for the worker's, "calls" for messages, "serves"
  // for the other tasks' work).
  StepOutcome Run(const std::vector<SimActivity>& plan, double factor, const std::string& trace_task);

 private:
  void StartBackground(const SimActivity& activity);
  // How long after `message` arrives its receiver starts on what waits for it.
  double WakeDelay(const SimActivity& message) const;

  ActivityRecorder* recorder_;
  TaskActivity* tasks_;
  double busy_wake_latency_;
  std::vector<simgrid::s4u::ExecPtr> background_;
};

}  // namespace clab::sim
