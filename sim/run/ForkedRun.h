// Runs work in child processes made by fork(), each returning text through a pipe: SimGrid's
// engine lives once per process and cannot be restarted, and a platform file it cannot read
// ends its process, so every simulation gets a process of its own. The child shares the
// parent's memory as it was at the fork (the compiled step, the platform), computes, writes
// its answer and exits without running the parent's atexit handlers or flushing its streams.
#pragma once

#include "clab/core/Status.h"

#include <functional>
#include <string>
#include <vector>

namespace clab::sim {

using ForkedWork = std::function<StatusOr<std::string>()>;

// Runs each piece of work in a child of its own, at most `parallel` at a time, and returns
// their answers in order. A child that dies gives INTERNAL with what it wrote on stderr.
std::vector<StatusOr<std::string>> RunForked(const std::vector<ForkedWork>& work, int parallel);

}  // namespace clab::sim
