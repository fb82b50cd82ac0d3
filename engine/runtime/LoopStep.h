// The step of a plan whose graph has while loops: nodes run tagged with the execution frame
// and iteration they belong to (see FrameState.h and ExecutorFrames.h). A plan without
// loops runs the executor's plain step instead, which keeps no frames.
#pragma once

#include "clab/runtime/Executor.h"

namespace clab {

struct ExecutorPlan;

// Runs one step of `plan` (which must have frames) and calls `done` once, maybe on another
// thread.
void StartLoopStep(const ExecutorPlan& plan, Executor::RunArgs args, Executor::DoneCallback done);

}  // namespace clab
