// What one simulated configuration predicts: steps per second per worker and in total, where
// a step's time goes, how loaded each link and CPU was over time, the first steps as trace
// spans, and the bottleneck in plain words. Travels from the simulation's process as JSON.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab::sim {

struct SimulationConfig {
  int workers = 1;
  int ps = 1;
  bool sync = false;
  int steps = 100;        // per worker
  uint64_t seed = 1;      // the compute jitter's random numbers
  int trace_steps = 3;    // steps of each traced worker kept as trace spans
  int trace_workers = 8;  // workers traced
  // Past this many identical workers, they are simulated in this many groups that step
  // together (platform/WorkerGroups.h); 0: every worker on its own.
  int max_simulated_workers = 64;
  // Runs averaged, each with the next seed: a few workers keep the phase they start with
  // (who reads the weights while another sends gradients), so one run is one draw of it.
  // 0: 4 runs up to 16 workers, else 1.
  int replicas = 0;
  int Replicas() const { return replicas > 0 ? replicas : (workers <= 16 ? 4 : 1); }
};

struct WorkerSteps {
  std::string task;  // "/job:worker/replica:0/task:3"
  std::string host;
  int64_t steps = 0;
  double steps_per_second = 0;
  // Mean seconds per step: the worker's own CPU work; moving bytes (messages in flight on
  // the step's slowest call); waiting (the ps serving, queues, other workers).
  double compute = 0;
  double transfer = 0;
  double waiting = 0;
};

struct ResourceLoad {
  std::string name;              // "ps-0 NIC out"
  std::string kind;              // "link" or "cpu"
  std::string owner;             // "ps 0", or "" for shared parts of the network
  double capacity = 0;           // bytes or FLOPs per second
  double amount = 0;             // bytes or FLOPs over the run
  double mean = 0;               // utilisation 0..1 over the run
  double peak = 0;               // of the timeline's bins
  std::vector<double> timeline;  // utilisation per bin (kept for the shared parts and the ps)
};

struct TraceSpan {
  std::string task;
  std::string lane;  // "step", "calls", "serves"
  std::string name;
  double start = 0;  // seconds
  double duration = 0;
};

struct SimulationResult {
  SimulationConfig config;
  double simulated_seconds = 0;
  double wall_seconds = 0;  // what the simulation took to run
  double total_steps_per_second = 0;
  std::vector<WorkerSteps> workers;
  std::vector<ResourceLoad> resources;
  double timeline_bin_seconds = 0;
  std::vector<TraceSpan> trace;
  int64_t bytes_per_step = 0;  // one worker's step, both ways
  int calls_per_step = 0;
  // CPU the ps (the tasks that are not workers) spent per step of any worker, in seconds of
  // a calibrated core, and the share of the calls they served that found them at work.
  double served_cpu_per_step = 0;
  double awake_call_share = 0;
  std::string bottleneck;           // in plain words
  std::string bottleneck_resource;  // a resources[].name, or ""
  // The same in parts, for saying it in another language (report/Bottleneck.h's Kind, the
  // task or tasks, the resource's load, its share of the bytes or the slowest's slowdown,
  // the biggest tensor through it).
  int bottleneck_kind = 0;
  std::string bottleneck_owner;
  double bottleneck_utilisation = 0;
  double bottleneck_share = 0;
  std::string bottleneck_tensor;

  double MeanStepSeconds() const;
  // Mean over the workers of their per-step breakdown.
  double MeanCompute() const;
  double MeanTransfer() const;
  double MeanWaiting() const;
  const ResourceLoad* FindResource(const std::string& name) const;

  // The mean of several runs of one configuration (their rates, breakdowns and loads); the
  // first run's timelines and trace.
  static SimulationResult Mean(const std::vector<SimulationResult>& runs);

  std::string ToJsonText() const;
  static StatusOr<SimulationResult> FromJsonText(const std::string& text);
};

}  // namespace clab::sim
