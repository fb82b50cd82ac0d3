#include "bench/CostMeter.h"

#include "bench/Median.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace clab::cli {
namespace {

double Micros(const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_usec); }

StatusOr<std::string> ReadProcFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return errors::NotFound("cannot read ", path, " (has the process ended?)");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// utime + stime of the whole process (fields 14 and 15 of /proc/PID/stat), in microseconds.
StatusOr<double> CpuMicros(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  CLAB_ASSIGN_OR_RETURN(const std::string stat, ReadProcFile(path));
  // The command name (field 2) may hold spaces and parentheses: fields 3.. follow the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return errors::DataLoss(path, ": no ')' after the command name");
  const std::vector<std::string> fields = absl::StrSplit(stat.substr(close + 1), ' ', absl::SkipEmpty());
  int64_t utime = 0, stime = 0;
  if (fields.size() < 13 || !absl::SimpleAtoi(fields[11], &utime) || !absl::SimpleAtoi(fields[12], &stime))
    return errors::DataLoss(path, ": fields 14 and 15 (utime, stime) are not numbers");
  static const double kTicksPerSecond = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(utime + stime) * 1e6 / kTicksPerSecond;
}

// voluntary + nonvoluntary context switches of one thread's /proc/PID/task/TID/status; 0 for
// a thread that ended meanwhile.
double ThreadSwitches(const std::string& status_path) {
  std::ifstream file(status_path);
  std::string line;
  double switches = 0;
  while (std::getline(file, line)) {
    absl::string_view rest = line;
    if (absl::ConsumePrefix(&rest, "voluntary_ctxt_switches:") ||
        absl::ConsumePrefix(&rest, "nonvoluntary_ctxt_switches:")) {
      int64_t count = 0;
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &count)) switches += static_cast<double>(count);
    }
  }
  return switches;
}

}  // namespace

CostMeter::CostMeter(std::vector<pid_t> others)
    : others_(std::move(others)), start_(std::chrono::steady_clock::now()), start_usage_(Sample()) {}

ProcessUsage CostMeter::Self() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  ProcessUsage self;
  self.cpu_us = Micros(usage.ru_utime) + Micros(usage.ru_stime);
  self.context_switches = static_cast<double>(usage.ru_nvcsw + usage.ru_nivcsw);
  return self;
}

StatusOr<ProcessUsage> CostMeter::Of(pid_t pid) {
  ProcessUsage usage;
  CLAB_ASSIGN_OR_RETURN(usage.cpu_us, CpuMicros(pid));
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return errors::NotFound("cannot list ", tasks, " (has the process ended?)");
  while (const dirent* entry = ::readdir(dir)) {
    pid_t tid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &tid)) continue;
    const double switches = ThreadSwitches(tasks + "/" + entry->d_name + "/status");
    usage.thread_switches[tid] = switches;
    usage.context_switches += switches;
  }
  ::closedir(dir);
  return usage;
}

ProcessUsage ProcessUsage::Since(const ProcessUsage& start) const {
  ProcessUsage delta;
  delta.cpu_us = cpu_us - start.cpu_us;
  if (thread_switches.empty() && start.thread_switches.empty()) {
    delta.context_switches = context_switches - start.context_switches;
    return delta;
  }
  for (const auto& [tid, switches] : thread_switches) {
    const auto before = start.thread_switches.find(tid);
    // A thread started during the stretch counts whole; a reused id never counts negative.
    const double since = switches - (before == start.thread_switches.end() ? 0.0 : before->second);
    delta.thread_switches[tid] = std::max(since, 0.0);
    delta.context_switches += std::max(since, 0.0);
  }
  return delta;
}

StatusOr<std::vector<ProcessUsage>> CostMeter::Sample() const {
  std::vector<ProcessUsage> usages = {Self()};
  for (pid_t pid : others_) {
    CLAB_ASSIGN_OR_RETURN(ProcessUsage usage, Of(pid));
    usages.push_back(std::move(usage));
  }
  return usages;
}

StatusOr<StepCost> CostMeter::PerStep(int64_t steps) const {
  const auto end = std::chrono::steady_clock::now();
  CLAB_RETURN_IF_ERROR(start_usage_.status());
  CLAB_ASSIGN_OR_RETURN(const std::vector<ProcessUsage> usages, Sample());
  const double n = static_cast<double>(steps > 0 ? steps : 1);
  StepCost cost;
  cost.wall_us = std::chrono::duration<double, std::micro>(end - start_).count() / n;
  for (size_t i = 0; i < usages.size(); ++i) {
    const ProcessUsage delta = usages[i].Since((*start_usage_)[i]);
    cost.cpu_us += delta.cpu_us / n;
    cost.context_switches += delta.context_switches / n;
  }
  return cost;
}

StepCost MedianCost(const std::vector<StepCost>& costs) {
  std::vector<double> wall, cpu, switches;
  for (const StepCost& cost : costs) {
    wall.push_back(cost.wall_us);
    cpu.push_back(cost.cpu_us);
    switches.push_back(cost.context_switches);
  }
  return StepCost{Median(wall), Median(cpu), Median(switches)};
}

}  // namespace clab::cli
