// A measurement's claim on this machine's cores while it runs. With the kernel's autogroup
// scheduling, the cores are shared fairly between sessions (a shell, a terminal's job), not
// between processes, and a process's own niceness only orders its session's processes; so
// other sessions' work takes a share of the cores that varies with how many of them are busy,
// whatever this process's niceness. This raises (or lowers) the niceness of this session's
// group (/proc/self/autogroup) for as long as the object lives, and puts it back after;
// without autogroups, the process's own niceness.
#pragma once

#include "clab/core/Status.h"

#include <memory>

namespace clab::cli {

class SessionPriority {
 public:
  // PERMISSION_DENIED below 0 without root.
  static StatusOr<std::unique_ptr<SessionPriority>> Set(int nice);
  ~SessionPriority();
  SessionPriority(const SessionPriority&) = delete;
  SessionPriority& operator=(const SessionPriority&) = delete;

 private:
  SessionPriority(bool autogroup, int previous) : autogroup_(autogroup), previous_(previous) {}
  const bool autogroup_;
  const int previous_;
};

}  // namespace clab::cli
