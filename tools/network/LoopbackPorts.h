// Free TCP ports on 127.0.0.1 for the tasks a command starts on this machine: the OS picks
// them (bind to port 0), all held at once so they are distinct, then released for the
// tasks to take. Another program could take one in between; the task then fails to start
// with an error naming the port.
#pragma once

#include "clab/core/Status.h"

#include <vector>

namespace clab::tools {

StatusOr<std::vector<int>> PickFreeLoopbackPorts(int count);

}  // namespace clab::tools
