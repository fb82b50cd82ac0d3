// SLURM's count of tasks on each node of a step or job (SLURM_STEP_TASKS_PER_NODE,
// SLURM_TASKS_PER_NODE), expanded in node order as TensorFlow's SlurmClusterResolver
// (expand_tasks_per_node) does: "N(xR)" is N tasks on each of R nodes.
//
//   "2"             -> 2
//   "2(x3),1"       -> 2 2 2 1
//   "3(x2),2,11(x4)" -> 3 3 2 11 11 11 11
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <vector>

namespace clab::launch {

// INVALID_ARGUMENT naming the text and the part that is not "N" or "N(xR)".
StatusOr<std::vector<int>> ExpandTasksPerNode(const std::string& tasks_per_node);

}  // namespace clab::launch
