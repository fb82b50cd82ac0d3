#include "cli/CpuPinning.h"

#include <absl/strings/numbers.h>
#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace clab::cli {

int OnlineCpuCount() {
  const long count = ::sysconf(_SC_NPROCESSORS_ONLN);
  return count > 0 ? static_cast<int>(count) : 1;
}

Status PinProcessToCpu(pid_t pid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu < 0) {
    for (int i = 0; i < OnlineCpuCount(); ++i) CPU_SET(i, &set);
  } else {
    if (cpu >= OnlineCpuCount())
      return errors::InvalidArgument("cannot pin to CPU ", cpu, ": this machine has ", OnlineCpuCount(), " CPUs");
    CPU_SET(cpu, &set);
  }
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* tasks = ::opendir(dir.c_str());
  if (tasks == nullptr) return errors::NotFound("cannot list the threads of process ", pid, ": ", std::strerror(errno));
  Status status;
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    pid_t tid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &tid)) continue;
    // A thread that ended meanwhile (ESRCH) is no error.
    if (::sched_setaffinity(tid, sizeof(set), &set) != 0 && errno != ESRCH && status.ok())
      status = errors::PermissionDenied("cannot pin thread ", tid, " of process ", pid, ": ", std::strerror(errno));
  }
  ::closedir(tasks);
  return status;
}

}  // namespace clab::cli
