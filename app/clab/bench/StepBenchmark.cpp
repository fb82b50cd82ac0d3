#include "bench/StepBenchmark.h"

#include "bench/Median.h"

#include "clab/distributed/LinkProbe.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "cli/CpuPinning.h"
#include "examplegraphs/SeedGraph.h"
#include "launch/process/ChildProcess.h"
#include "network/LoopbackPorts.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>

namespace clab::cli {

using launch::ChildProcess;
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kSeedStepTargetRatio = 3.0;
constexpr double kLargestPullTargetRatio = 1.5;

// Median latency in microseconds of `count` calls of `call`.
template <typename Call>
StatusOr<double> MedianMicros(int count, Call&& call) {
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const auto start = Clock::now();
    CLAB_RETURN_IF_ERROR(call());
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return Median(std::move(samples));
}

// The seed graph and one float32 variable per pull size, placed by replica_device_setter:
// variables on the ps, MatMul and the pulls' Identity on the worker.
struct BenchGraph {
  tensorflow::GraphDef graph;
  std::string init;
  std::string seed_product;
  std::map<int64_t, std::string> pulls;  // elements -> fetch name
};

StatusOr<BenchGraph> BuildBenchGraph(const std::map<std::string, std::vector<std::string>>& cluster,
                                     const std::vector<int64_t>& sizes) {
  GraphBuilder g;
  ReplicaDeviceSetterOptions setter_options;
  setter_options.worker_device = "/job:worker/task:0";
  setter_options.cluster = cluster;
  CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
  BenchGraph built;
  {
    auto scope = g.WithDevice(setter);
    const tools::SeedGraph seed = tools::BuildSeedGraph(g);
    built.seed_product = seed.product.name();
    for (int64_t size : sizes) {
      const std::string name = absl::StrCat("params_", size);
      Tensor initial(DT_FLOAT, TensorShape{size});
      std::fill_n(initial.data<float>(), size, 0.5f);
      ops::Variable v = ops::MakeVariable(g, ops::Const(g, initial, name + "/initial_value"), name);
      built.pulls[size] = ops::Identity(g, v.read, absl::StrCat("pull_", size)).name();
    }
    built.init = ops::GlobalVariablesInitializer(g).node();
  }
  CLAB_RETURN_IF_ERROR(g.status());
  built.graph = g.graph_def();
  return built;
}

std::string PullName(int64_t elements) {
  if (elements >= 1000000 && elements % 1000000 == 0) return absl::StrCat("pull ", elements / 1000000, "M floats");
  if (elements >= 1000 && elements % 1000 == 0) return absl::StrCat("pull ", elements / 1000, "k floats");
  return absl::StrCat("pull ", elements, " floats");
}

Status PinMode(const std::string& mode, pid_t ps) {
  const pid_t self = ::getpid();
  if (mode == "unpinned") {
    CLAB_RETURN_IF_ERROR(PinProcessToCpu(self, -1));
    return PinProcessToCpu(ps, -1);
  }
  if (mode == "one-core") {
    CLAB_RETURN_IF_ERROR(PinProcessToCpu(self, 0));
    return PinProcessToCpu(ps, 0);
  }
  if (mode == "two-cores") {
    if (OnlineCpuCount() < 2) return errors::FailedPrecondition("mode two-cores needs 2 CPUs; this machine has 1");
    CLAB_RETURN_IF_ERROR(PinProcessToCpu(self, 0));
    return PinProcessToCpu(ps, 1);
  }
  return errors::InvalidArgument("unknown mode '", mode, "' (modes: one-core, two-cores, unpinned)");
}

}  // namespace

StatusOr<std::vector<BenchmarkRow>> RunStepBenchmark(const StepBenchmarkOptions& options) {
  for (const std::string& mode : options.modes)
    if (mode != "one-core" && mode != "two-cores" && mode != "unpinned")
      return errors::InvalidArgument("unknown mode '", mode, "' (modes: one-core, two-cores, unpinned)");
  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(2));
  const std::string ps_address = absl::StrCat("127.0.0.1:", ports[0]);
  const std::map<std::string, std::vector<std::string>> jobs = {{"ps", {ps_address}},
                                                                {"worker", {absl::StrCat("127.0.0.1:", ports[1])}}};
  CLAB_ASSIGN_OR_RETURN(ClusterSpec cluster, ClusterSpec::FromDict(jobs));

  CLAB_ASSIGN_OR_RETURN(
      std::unique_ptr<ChildProcess> ps,
      ChildProcess::Start(options.clab_program, {"server", "--cluster", cluster.ToInline(), "--job_name", "ps"}, {}));
  if (!ps->WaitForLine("Serving /job:", std::chrono::seconds(20))) {
    std::string said;
    for (const std::string& line : ps->lines()) said += line + " ";
    return errors::Unavailable("the ps process did not start: ", said);
  }

  ServerOptions server_options;
  server_options.cluster = cluster;
  server_options.job_name = "worker";
  server_options.log = [](const std::string&) {};
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> worker, Server::Create(server_options));
  CLAB_ASSIGN_OR_RETURN(const BenchGraph graph, BuildBenchGraph(jobs, options.pull_sizes));
  SessionOptions session_options;
  session_options.target = worker->target();
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
  CLAB_RETURN_IF_ERROR(session->Create(graph.graph));
  std::vector<Tensor> outputs;
  CLAB_RETURN_IF_ERROR(session->Run({}, {}, {graph.init}, &outputs));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<LinkProbe> probe, LinkProbe::Connect(ps_address));

  auto step = [&]() -> Status { return session->Run({}, {graph.seed_product}, {}, &outputs); };
  auto pull = [&](int64_t size) {
    return [&, size]() -> Status { return session->Run({}, {graph.pulls.at(size)}, {}, &outputs); };
  };
  constexpr int64_t kSeedPayloadBytes = 16;  // w: 4 int32

  std::vector<BenchmarkRow> rows;
  for (const std::string& mode : options.modes) {
    CLAB_RETURN_IF_ERROR(PinMode(mode, ps->pid()));
    // Warm-up in this pinning: connections, registered partitions, allocator caches.
    for (int i = 0; i < 50; ++i) {
      CLAB_RETURN_IF_ERROR(probe->Echo(kSeedPayloadBytes));
      CLAB_RETURN_IF_ERROR(step());
    }
    for (int64_t size : options.pull_sizes) CLAB_RETURN_IF_ERROR(pull(size)());

    struct Series {
      std::string name;
      int64_t payload = 0;
      int iterations = 0;
      std::function<Status()> runtime;
      std::function<Status()> floor;
      double target = 0;
      std::vector<double> runtime_medians;
      std::vector<double> floor_medians;
    };
    std::vector<Series> series;
    series.push_back({"seed step",
                      kSeedPayloadBytes,
                      options.iterations,
                      step,
                      [&] { return probe->Echo(kSeedPayloadBytes); },
                      kSeedStepTargetRatio,
                      {},
                      {}});
    const int64_t largest = options.pull_sizes.empty() ? 0 : options.pull_sizes.back();
    for (int64_t size : options.pull_sizes) {
      const int64_t bytes = size * 4;
      // About the same time per series: fewer calls for bigger pulls, never under 20.
      const int iterations =
          static_cast<int>(std::max<int64_t>(20, options.iterations * 4000 / std::max<int64_t>(bytes, 4000)));
      series.push_back({PullName(size),
                        bytes,
                        iterations,
                        pull(size),
                        [&probe, bytes] { return probe->Fetch(bytes); },
                        size == largest ? kLargestPullTargetRatio : 0.0,
                        {},
                        {}});
    }
    for (int repeat = 0; repeat < options.repeats; ++repeat) {
      for (Series& s : series) {
        // Floor and runtime alternate so that a slow patch of the machine hits both.
        CLAB_ASSIGN_OR_RETURN(double floor_us, MedianMicros(s.iterations, s.floor));
        CLAB_ASSIGN_OR_RETURN(double runtime_us, MedianMicros(s.iterations, s.runtime));
        s.floor_medians.push_back(floor_us);
        s.runtime_medians.push_back(runtime_us);
      }
    }
    for (Series& s : series) {
      BenchmarkRow row;
      row.mode = mode;
      row.name = s.name;
      row.payload_bytes = s.payload;
      row.median_us = Median(s.runtime_medians);
      row.floor_us = Median(s.floor_medians);
      row.ratio = row.floor_us > 0 ? row.median_us / row.floor_us : 0;
      row.target_ratio = s.target;
      row.per_second = row.median_us > 0 ? 1e6 / row.median_us : 0;
      if (options.progress)
        options.progress(
            absl::StrFormat("%s: %s %.1f us (floor %.1f us)", mode, row.name, row.median_us, row.floor_us));
      rows.push_back(row);
    }
  }
  PinMode("unpinned", ps->pid()).IgnoreError();
  CLAB_RETURN_IF_ERROR(session->Close());
  CLAB_RETURN_IF_ERROR(worker->Stop());
  ps->Stop();
  return rows;
}

std::string FormatBenchmarkTable(const std::vector<BenchmarkRow>& rows) {
  std::string table = absl::StrFormat("%-10s %-18s %12s %10s %14s %8s %s\n", "mode", "measurement", "clab median",
                                      "per sec", "gRPC floor", "ratio", "target");
  for (const BenchmarkRow& row : rows) {
    std::string target = "-";
    if (row.target_ratio > 0)
      target = absl::StrFormat("<= %.1fx %s", row.target_ratio, row.ratio <= row.target_ratio ? "met" : "MISSED");
    table += absl::StrFormat("%-10s %-18s %9.1f us %10.0f %11.1f us %7.2fx %s\n", row.mode, row.name, row.median_us,
                             row.per_second, row.floor_us, row.ratio, target);
  }
  return table;
}

std::string BenchmarkRowsToJson(const std::vector<BenchmarkRow>& rows) {
  nlohmann::json json = nlohmann::json::array();
  for (const BenchmarkRow& row : rows) {
    json.push_back({{"mode", row.mode},
                    {"measurement", row.name},
                    {"payload_bytes", row.payload_bytes},
                    {"median_us", row.median_us},
                    {"per_second", row.per_second},
                    {"grpc_floor_us", row.floor_us},
                    {"ratio", row.ratio},
                    {"target_ratio", row.target_ratio}});
  }
  return json.dump(2) + "\n";
}

}  // namespace clab::cli
