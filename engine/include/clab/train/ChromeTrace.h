// Timelines: StepStats as Chrome trace JSON ("traceEvents"), which Perfetto and
// chrome://tracing open. One process per device ("<device> Compute"), lanes so that events
// in one lane never overlap.
#pragma once

#include "tensorflow/step_stats.pb.h"

#include <string>

namespace clab {

std::string StepStatsToChromeTrace(const tensorflow::StepStats& stats);

}  // namespace clab
