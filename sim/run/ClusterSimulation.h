// One configuration (workers, ps, sync or not) of a project's step played by SimGrid actors
// on a platform, step by step:
//
//   each worker   its client and master: calls every ps for the weights, computes, calls
//                 every ps with the gradients; each call is a message to the ps, the ps's
//                 CPU serving it (shared with every other call it serves), and the reply
//   the chief     (synchronous replicas) SyncReplicas' aggregation: once every worker's
//                 gradients are in, it has each ps apply their mean, then the token queue
//   the ps        holding the tokens hands one to every worker, which may then go on
//
// Messages are SimGrid flows on the platform's links (its TCP model shares them); CPU work
// runs on the task's host (or the machine it shares), scaled by its speed. A worker's compute
// varies from step to step by the calibrated jitter, drawn from the configuration's seed, so
// the same configuration gives the same numbers.
//
// SimGrid's engine exists once per process and cannot be restarted: call this in a process
// of its own (ForkedRun), as Simulator does.
#pragma once

#include "clab/core/Status.h"
#include "model/StepModel.h"
#include "platform/PlatformSpec.h"
#include "run/SimulationResult.h"

namespace clab::sim {

struct SimulationInput {
  const StepModel* model = nullptr;
  const PlatformSpec* platform = nullptr;
  const BoundPlatform* bound = nullptr;  // its tasks: the ps, then the workers
  SimulationConfig config;
};

StatusOr<SimulationResult> RunClusterSimulation(const SimulationInput& input);

}  // namespace clab::sim
