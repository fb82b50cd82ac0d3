#include "sim/SessionPriority.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace clab::cli {
namespace {

constexpr const char* kAutogroup = "/proc/self/autogroup";

// The group's niceness from "/autogroup-10 nice 0"; false without autogroups.
bool ReadAutogroupNice(int* nice) {
  std::ifstream in(kAutogroup);
  std::string group, word;
  if (!(in >> group >> word >> *nice) || word != "nice") return false;
  std::ifstream enabled("/proc/sys/kernel/sched_autogroup_enabled");
  int on = 0;
  return (enabled >> on) && on == 1;
}

bool WriteAutogroupNice(int nice) {
  std::ofstream out(kAutogroup);
  out << nice << std::endl;
  return static_cast<bool>(out);
}

}  // namespace

StatusOr<std::unique_ptr<SessionPriority>> SessionPriority::Set(int nice) {
  int previous = 0;
  if (ReadAutogroupNice(&previous)) {
    if (!WriteAutogroupNice(nice))
      return errors::PermissionDenied("cannot set this session's niceness to ", nice, " (", kAutogroup,
                                      "): below 0 needs root");
    return std::unique_ptr<SessionPriority>(new SessionPriority(true, previous));
  }
  errno = 0;
  previous = ::getpriority(PRIO_PROCESS, 0);
  if (::setpriority(PRIO_PROCESS, 0, nice) != 0)
    return errors::PermissionDenied("cannot set this process's niceness to ", nice, ": ", std::strerror(errno));
  return std::unique_ptr<SessionPriority>(new SessionPriority(false, previous));
}

SessionPriority::~SessionPriority() {
  if (autogroup_) {
    WriteAutogroupNice(previous_);
  } else {
    ::setpriority(PRIO_PROCESS, 0, previous_);
  }
}

}  // namespace clab::cli
