#include "bench/StepBenchmark.h"

#include "bench/FloorClient.h"
#include "bench/FloorServerProcess.h"
#include "bench/Median.h"
#include "bench/StepCluster.h"
#include "cli/CpuPinning.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace clab::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kSmallTargetRatio = 1.3;  // the seed step and pulls up to 64 KiB
constexpr double kLargeTargetRatio = 1.5;  // bigger pulls
constexpr int64_t kSmallPullBytes = 64 << 10;
constexpr int64_t kSeedPayloadBytes = 16;  // w: 4 int32

// One stretch of `count` calls: the median latency and what the stretch cost per call.
struct Stretch {
  double median_us = 0;
  StepCost cost;
};

template <typename Call>
StatusOr<Stretch> Measure(int count, pid_t server, Call&& call) {
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(count));
  CostMeter meter({server});
  for (int i = 0; i < count; ++i) {
    const auto start = Clock::now();
    CLAB_RETURN_IF_ERROR(call());
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  Stretch stretch;
  CLAB_ASSIGN_OR_RETURN(stretch.cost, meter.PerStep(count));
  stretch.median_us = Median(std::move(samples));
  return stretch;
}

std::string PullName(int64_t elements) {
  const int64_t bytes = elements * 4;
  if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return absl::StrCat("pull ", bytes >> 20, " MiB");
  if (bytes >= (1 << 10) && bytes % (1 << 10) == 0) return absl::StrCat("pull ", bytes >> 10, " KiB");
  return absl::StrCat("pull ", elements, " floats");
}

Status CheckMode(const std::string& mode) {
  if (mode != "one-core" && mode != "two-cores" && mode != "unpinned")
    return errors::InvalidArgument("unknown mode '", mode, "' (modes: one-core, two-cores, unpinned)");
  if (mode == "two-cores" && OnlineCpuCount() < 2)
    return errors::FailedPrecondition("mode two-cores needs 2 CPUs; this machine has ", OnlineCpuCount());
  return OkStatus();
}

// This process on CPU 0 and the servers on CPU 0 (one-core) or CPU 1 (two-cores), or all of
// them anywhere (unpinned).
Status PinMode(const std::string& mode, const std::vector<pid_t>& servers) {
  CLAB_RETURN_IF_ERROR(CheckMode(mode));
  const int self_cpu = mode == "unpinned" ? -1 : 0;
  const int server_cpu = mode == "unpinned" ? -1 : mode == "one-core" ? 0 : 1;
  CLAB_RETURN_IF_ERROR(PinProcessToCpu(::getpid(), self_cpu));
  for (pid_t server : servers) CLAB_RETURN_IF_ERROR(PinProcessToCpu(server, server_cpu));
  return OkStatus();
}

// One row's two sides and what every round measured of them.
struct Series {
  std::string name;
  int64_t payload = 0;
  int calls = 0;
  std::function<Status()> runtime;
  std::function<Status()> floor;
  double target = 0;
  std::vector<double> runtime_us, floor_us;
  std::vector<StepCost> runtime_costs, floor_costs;
};

StatusOr<std::vector<BenchmarkRow>> MeasureMode(const std::string& mode, const StepBenchmarkOptions& options,
                                                StepCluster& cluster, FloorServerProcess& floor_server,
                                                FloorClient& floor) {
  CLAB_RETURN_IF_ERROR(PinMode(mode, {cluster.ps_pid(), floor_server.pid()}));
  // Warm-up in this pinning: connections, registered partitions, allocator caches.
  for (int i = 0; i < 20; ++i) {
    CLAB_RETURN_IF_ERROR(floor.Echo(kSeedPayloadBytes));
    CLAB_RETURN_IF_ERROR(cluster.Step());
  }
  for (int64_t size : options.pull_sizes) {
    CLAB_RETURN_IF_ERROR(cluster.Pull(size));
    CLAB_RETURN_IF_ERROR(floor.Fetch(size * 4));
  }

  std::vector<Series> series;
  series.push_back({"seed step",
                    kSeedPayloadBytes,
                    options.steps,
                    [&] { return cluster.Step(); },
                    [&] { return floor.Echo(kSeedPayloadBytes); },
                    kSmallTargetRatio,
                    {},
                    {},
                    {},
                    {}});
  for (int64_t size : options.pull_sizes) {
    const int64_t bytes = size * 4;
    // About the same time per series: fewer calls for bigger pulls, never under 5.
    const int64_t calls = options.steps * int64_t{4096} / std::max<int64_t>(bytes, 4096);
    series.push_back({PullName(size),
                      bytes,
                      static_cast<int>(std::clamp<int64_t>(calls, 5, options.steps)),
                      [&cluster, size] { return cluster.Pull(size); },
                      [&floor, bytes] { return floor.Fetch(bytes); },
                      bytes <= kSmallPullBytes ? kSmallTargetRatio : kLargeTargetRatio,
                      {},
                      {},
                      {},
                      {}});
  }
  for (int round = 0; round < options.rounds; ++round) {
    for (Series& s : series) {
      // Floor and runtime alternate, and which goes first swaps every round, so that a slow
      // patch of the machine hits both.
      for (int side = 0; side < 2; ++side) {
        if ((side + round) % 2 == 0) {
          CLAB_ASSIGN_OR_RETURN(const Stretch stretch, Measure(s.calls, floor_server.pid(), s.floor));
          s.floor_us.push_back(stretch.median_us);
          s.floor_costs.push_back(stretch.cost);
        } else {
          CLAB_ASSIGN_OR_RETURN(const Stretch stretch, Measure(s.calls, cluster.ps_pid(), s.runtime));
          s.runtime_us.push_back(stretch.median_us);
          s.runtime_costs.push_back(stretch.cost);
        }
      }
    }
  }
  std::vector<BenchmarkRow> rows;
  for (const Series& s : series) {
    BenchmarkRow row;
    row.mode = mode;
    row.name = s.name;
    row.payload_bytes = s.payload;
    row.median_us = Median(s.runtime_us);
    row.floor_us = Median(s.floor_us);
    row.ratio = row.floor_us > 0 ? row.median_us / row.floor_us : 0;
    row.target_ratio = s.target;
    row.per_second = row.median_us > 0 ? 1e6 / row.median_us : 0;
    row.cost = MedianCost(s.runtime_costs);
    row.floor_cost = MedianCost(s.floor_costs);
    if (options.progress)
      options.progress(absl::StrFormat("%s: %s %.1f us (floor %.1f us)", mode, row.name, row.median_us, row.floor_us));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

StatusOr<std::vector<BenchmarkRow>> RunStepBenchmark(const StepBenchmarkOptions& options) {
  for (const std::string& mode : options.modes) CLAB_RETURN_IF_ERROR(CheckMode(mode));
  if (options.rounds < 1 || options.steps < 1) return errors::InvalidArgument("rounds and steps must be at least 1");
  auto tell = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<FloorServerProcess> floor_server,
                        FloorServerProcess::Start(options.clab_program));
  tell(absl::StrCat("floor server: pid ", floor_server->pid(), " on ", floor_server->address()));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<StepCluster> cluster,
                        StepCluster::Start(options.clab_program, options.pull_sizes));
  tell(absl::StrCat("ps: pid ", cluster->ps_pid(), " on ", cluster->ps_address()));
  FloorClient floor(floor_server->address());

  std::vector<BenchmarkRow> rows;
  Status status;
  for (const std::string& mode : options.modes) {
    StatusOr<std::vector<BenchmarkRow>> measured = MeasureMode(mode, options, *cluster, *floor_server, floor);
    if (!measured.ok()) {
      status = measured.status();
      break;
    }
    rows.insert(rows.end(), measured->begin(), measured->end());
  }
  PinProcessToCpu(::getpid(), -1).IgnoreError();
  // Both servers are stopped whatever happened, and say how they ended.
  const StatusOr<int> ps_exit = cluster->Stop();
  tell(absl::StrCat("ps (pid ", cluster->ps_pid(), ") stopped, exit status ", ps_exit.ok() ? *ps_exit : -1));
  const int floor_exit = floor_server->Stop();
  tell(absl::StrCat("floor server (pid ", floor_server->pid(), ") stopped, exit status ", floor_exit));
  CLAB_RETURN_IF_ERROR(status);
  CLAB_RETURN_IF_ERROR(ps_exit.status());
  return rows;
}

}  // namespace clab::cli
