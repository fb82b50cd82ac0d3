// Where the engine's progress lines go (a server starting, a master waiting for tasks, the
// placement log): to the caller's callback when it set one, else to stdout, a line at a
// time and flushed, so a process's output reads in order beside its other output.
#pragma once

#include <functional>
#include <string>

namespace clab {

using LogCallback = std::function<void(const std::string& line)>;

// `line` has no trailing newline.
void WriteLogLine(const LogCallback& log, const std::string& line);

}  // namespace clab
