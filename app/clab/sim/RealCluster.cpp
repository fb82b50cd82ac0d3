#include "sim/RealCluster.h"

#include "launch/process/ChildProcess.h"
#include "network/LoopbackPorts.h"

#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace clab::cli {
using launch::ChildProcess;
namespace {

using Clock = std::chrono::steady_clock;
using Samples = std::vector<std::pair<double, double>>;  // (time, value), in time order

constexpr int kTrainLogEvery = 10;
constexpr int kParts = 5;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// utime + stime of a process (all its threads), in seconds; -1 when it is gone.
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string text;
  if (!std::getline(stat, text)) return -1;
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 && !absl::SimpleAtod(field, &utime)) return -1;
    if (i == 15 && !absl::SimpleAtod(field, &stime)) return -1;
  }
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The value at `t`, on the straight line between the samples around it.
double At(const Samples& samples, double t) {
  if (samples.empty()) return 0;
  if (t <= samples.front().first) return samples.front().second;
  if (t >= samples.back().first) return samples.back().second;
  const auto after = std::lower_bound(samples.begin(), samples.end(), std::make_pair(t, -1e300));
  const auto before = after - 1;
  const double span = after->first - before->first;
  return span > 0 ? before->second + (after->second - before->second) * (t - before->first) / span : after->second;
}

// Busy CPU seconds of the whole machine (all but idle and iowait in /proc/stat).
double MachineBusySeconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double value = 0, busy = 0;
  stat >> cpu;
  for (int i = 0; i < 8 && stat >> value; ++i)
    if (i != 3 && i != 4) busy += value;
  return busy / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

struct Task {
  std::string job;
  int index = 0;
  std::unique_ptr<ChildProcess> process;
  std::mutex mu;
  Samples steps;  // (arrival time, steps done)
  Samples cpu;    // (time, CPU seconds)
};

}  // namespace

StatusOr<RealRunResult> RunRealCluster(const RealRunOptions& options) {
  const int total = options.ps + options.workers;
  std::vector<std::string> addresses;
  if (options.network) {
    for (int t = 0; t < total; ++t) addresses.push_back(options.network->Address(t) + ":2222");
  } else {
    CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(total));
    for (int port : ports) addresses.push_back(absl::StrCat("127.0.0.1:", port));
  }
  const std::string cluster =
      absl::StrCat("ps=", absl::StrJoin(addresses.begin(), addresses.begin() + options.ps, ","),
                   ";worker=", absl::StrJoin(addresses.begin() + options.ps, addresses.end(), ","));
  const bool seed = options.program == "seed";
  const Clock::time_point start = Clock::now();
  std::vector<std::unique_ptr<Task>> tasks;
  for (int t = 0; t < total; ++t) {
    auto task = std::make_unique<Task>();
    task->job = t < options.ps ? "ps" : "worker";
    task->index = t < options.ps ? t : t - options.ps;
    std::vector<std::string> args = seed ? std::vector<std::string>{"example", "seed"}
                                         : std::vector<std::string>{"example", "train", "--model", options.program};
    args.insert(args.end(),
                {"--cluster", cluster, "--job_name", task->job, "--task_index", std::to_string(task->index)});
    if (task->job == "worker") {
      // Stopped from here once the measurement is over; --max_seconds only in case this
      // process dies first.
      args.insert(args.end(), {"--max_seconds", std::to_string(static_cast<int>(std::ceil(options.seconds)) + 300),
                               "--last_step", "1000000000"});
      if (!seed) args.insert(args.end(), {"--log_every", std::to_string(kTrainLogEvery)});
      if (options.sync && !seed) args.push_back("--sync");
    }
    std::string program = options.clab;
    if (options.network) {
      // Each task listens on its namespace's own address, which only the measurement's
      // namespaces reach; without TLS and a token that takes an explicit flag.
      args.push_back("--insecure_listen_all");
      args.insert(args.begin(), {"netns", "exec", options.network->Namespace(t), options.clab});
      program = ShapedNetwork::IpProgram();
    }
    Task* raw = task.get();
    ChildProcess::LineFn on_line;
    if (task->job == "worker")
      on_line = [raw, seed, start](const std::string& line) {
        // The seed program prints its product each step; a training program logs its loss
        // after its first step and then every kTrainLogEvery steps.
        int steps = 0;
        if (seed && line == "[[20]]") steps = 1;
        if (!seed && absl::StrContains(line, "loss = ")) steps = absl::StrContains(line, "sec)") ? kTrainLogEvery : 1;
        if (steps == 0) return;
        std::lock_guard<std::mutex> lock(raw->mu);
        const double done = raw->steps.empty() ? 0 : raw->steps.back().second;
        raw->steps.emplace_back(SecondsSince(start), done + steps);
      };
    CLAB_ASSIGN_OR_RETURN(task->process, ChildProcess::Start(program, args, on_line));
    tasks.push_back(std::move(task));
  }
  // CPU time of every task, every 20 ms, until the workers are done.
  std::atomic<bool> sampling{true};
  Samples machine, self;
  std::thread sampler([&] {
    while (sampling) {
      machine.emplace_back(SecondsSince(start), MachineBusySeconds());
      self.emplace_back(SecondsSince(start), ProcessCpuSeconds(::getpid()));
      for (auto& task : tasks) {
        const double cpu = ProcessCpuSeconds(task->process->pid());
        if (cpu < 0) continue;
        std::lock_guard<std::mutex> lock(task->mu);
        task->cpu.emplace_back(SecondsSince(start), cpu);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  // Wait until every worker has made a few steps, measure for `seconds`, then stop them all.
  // A worker that ends before they all run fails the run; one that ends during the
  // measurement ends it there (the window must still be long enough).
  Status failed = OkStatus();
  std::string cut_short;
  const auto reported = [&](const Task& task) {
    std::lock_guard<std::mutex> lock(const_cast<Task&>(task).mu);
    return task.steps.size();
  };
  double begin = -1;
  const Clock::time_point give_up = Clock::now() + std::chrono::seconds(120);
  while (failed.ok()) {
    bool all_going = true;
    for (auto& task : tasks) {
      if (task->job != "worker") continue;
      if (reported(*task) < 3) all_going = false;
      if (const std::optional<int> status = task->process->Wait(std::chrono::milliseconds(0))) {
        std::vector<std::string> lines = task->process->lines();
        if (lines.size() > 3) lines.erase(lines.begin(), lines.end() - 3);
        cut_short = absl::StrCat("worker ", task->index, " of ", options.program, " exited with status ", *status, ": ",
                                 absl::StrJoin(lines, " | "));
        if (begin < 0) failed = errors::Internal(cut_short);
      }
    }
    if (!cut_short.empty()) break;
    if (begin < 0 && all_going) begin = SecondsSince(start);
    if (begin >= 0 && SecondsSince(start) >= begin + options.seconds) break;
    if (begin < 0 && Clock::now() > give_up)
      failed = errors::DeadlineExceeded(options.program, ": the workers did not all start within 120 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double measured_until = SecondsSince(start);
  sampling = false;
  sampler.join();
  for (auto& task : tasks) task->process->Stop(std::chrono::milliseconds(2000));
  CLAB_RETURN_IF_ERROR(failed);
  // The readers may have taken the last lines after the processes ended.
  for (auto& task : tasks) {
    std::lock_guard<std::mutex> lock(task->mu);
    task->steps = Samples(task->steps);
  }

  // The window: from when every worker had made a few steps, for `seconds`, each worker's
  // steps read on the line between its reports (up to its last one).
  double end = measured_until;
  for (const auto& task : tasks)
    if (task->job == "worker" && !task->steps.empty()) end = std::min(end, task->steps.back().first);
  if (end - begin < 0.5)
    return errors::Internal(options.program, ": the workers reported for only ", std::max(0.0, end - begin),
                            " s together", cut_short.empty() ? ": a longer --seconds helps" : " (" + cut_short + ")");
  RealRunResult result;
  result.note = cut_short;
  result.window_seconds = end - begin;
  std::vector<double> part_rates;
  for (int k = 0; k < kParts; ++k) {
    const double a = begin + (end - begin) * k / kParts, b = begin + (end - begin) * (k + 1) / kParts;
    double rate = 0;
    for (const auto& task : tasks)
      if (task->job == "worker") rate += (At(task->steps, b) - At(task->steps, a)) / (b - a);
    part_rates.push_back(rate);
  }
  std::sort(part_rates.begin(), part_rates.end());
  result.total_steps_per_second = part_rates[kParts / 2];
  double steps = 0, worker_cpu = 0, ps_cpu = 0;
  for (const auto& task : tasks) {
    const double cpu = At(task->cpu, end) - At(task->cpu, begin);
    if (task->job == "ps") {
      ps_cpu += cpu;
      continue;
    }
    const double done = At(task->steps, end) - At(task->steps, begin);
    result.worker_steps_per_second.push_back(done / result.window_seconds);
    steps += done;
    worker_cpu += cpu;
  }
  result.tasks_cores = (worker_cpu + ps_cpu) / result.window_seconds;
  result.self_cores = (At(self, end) - At(self, begin)) / result.window_seconds;
  result.machine_cores = (At(machine, end) - At(machine, begin)) / result.window_seconds;
  result.worker_cpu_per_step = steps > 0 ? worker_cpu / steps : 0;
  result.ps_cpu_per_step = steps > 0 ? ps_cpu / steps : 0;
  return result;
}

}  // namespace clab::cli
