// The global step: an int64 scalar variable named "global_step", created once per graph,
// placed like any variable (on a ps under replica_device_setter), read by hooks through
// "global_step/read:0".
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"

#include <optional>

namespace clab {

// Returns the existing global step or creates it (zero-initialised, collections "variables"
// and "global_step"; not trainable).
Output GetOrCreateGlobalStep(GraphBuilder& graph);
std::optional<Output> GetGlobalStep(const GraphBuilder& graph);
// "global_step/read:0" for the graph's global step.
std::string GlobalStepReadTensor(const Output& global_step);
// An AssignAdd of 1 to the global step (what an optimizer's minimize adds).
Output IncrementGlobalStep(GraphBuilder& graph, const Output& global_step,
                           std::string_view name = "global_step_increment");

}  // namespace clab
