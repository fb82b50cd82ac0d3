// What a calibration run measured on this machine, which the simulator scales to other
// hosts: each op's time in a traced step, what a gRPC call costs each end (CPU per call and
// per byte) and how long a message waits besides (wake-ups), what the worker's client spends
// per step beyond ops and calls (session, hooks, master), and how much a step's compute
// varies. Without a calibration file the simulator uses Uncalibrated(): a FLOP-count model
// and typical gRPC costs.
//
//   {"format": "clusterlab-calibration", "version": 1, "project": "digits-mlp.clab",
//    "flops_per_second": 4e9, "op_seconds": 2e-6, "nodes": {"hidden1/MatMul": 1.2e-5, ...},
//    "rpc": {"client_seconds": 2e-5, "server_seconds": 3e-5, "seconds_per_byte": 5e-10,
//            "latency": 2e-5, "server_background_seconds": 0, "awake_saving_seconds": 4e-5,
//            "busy_wake_latency": 6e-5},
//    "step": {"client_seconds": 1e-4, "idle_seconds": 0, "background_seconds": 0,
//             "jitter": 0.05}, "measured": {...}}
#pragma once

#include "clab/core/Status.h"

#include <map>
#include <string>

namespace clab::sim {

struct RpcCosts {
  double client_seconds = 25e-6;     // CPU of the caller per call
  double server_seconds = 35e-6;     // CPU of the callee per call (gRPC and the step's executor)
  double seconds_per_byte = 0.6e-9;  // CPU per byte moved, at each end
  double latency = 25e-6;            // per message, besides CPU and the network: wake-ups
  // CPU the callee spends per call beside serving it (polling threads): it takes cores from
  // others but holds no step up.
  double server_background_seconds = 0;
  // What a call costs less at its callee when the callee is already at work (its threads
  // awake, serving another call): a busy ps spends less CPU per call than an idle one.
  double awake_saving_seconds = 0;
  // Per message, the wait for the receiving thread to get a core when the receiver's machine
  // is fully busy (scaled by the share of its cores at work when the message arrives).
  double busy_wake_latency = 0;
};

struct Calibration {
  bool calibrated = false;  // false: Uncalibrated()'s defaults
  std::string project;      // what it was measured on
  std::string machine;      // "2 cores, load 1.3"
  // The FLOP-count model for nodes the trace did not time: op_seconds + flops / rate.
  double flops_per_second = 4e9;
  double op_seconds = 3e-6;
  // Median time of each node in the traced steps, by node name.
  std::map<std::string, double> node_seconds;
  RpcCosts rpc;
  double step_client_seconds = 150e-6;  // worker CPU per step beyond ops and calls
  double step_idle_seconds = 0;         // per step, neither CPU nor messages
  double step_background_seconds = 0;   // worker CPU per step beside the step (polling threads)
  double jitter = 0.05;                 // relative spread of a step's compute
  // What the real run of one ps and one worker showed (for the record and the report).
  double measured_steps_per_second = 0;
  double measured_worker_cpu_per_step = 0;
  double measured_ps_cpu_per_step = 0;
  // The real run of one ps and two workers that awake_saving_seconds and busy_wake_latency
  // were fitted to (0: not measured).
  double measured_two_workers_steps_per_second = 0;
  double measured_two_workers_ps_cpu_per_step = 0;

  static Calibration Uncalibrated() { return Calibration(); }
  static StatusOr<Calibration> Load(const std::string& path);
  static StatusOr<Calibration> FromJsonText(const std::string& text, const std::string& origin);
  std::string ToJsonText() const;
  // Writes a temporary file and renames it over `path`.
  Status Save(const std::string& path) const;
};

}  // namespace clab::sim
