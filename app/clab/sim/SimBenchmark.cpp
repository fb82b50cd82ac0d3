#include "sim/SimBenchmark.h"

#include "bench/Median.h"

#include "cli/TextTable.h"
#include "project/SimProject.h"
#include "run/Simulator.h"
#include "sim/RealCluster.h"
#include "sim/ShapedNetwork.h"
#include "sim/SimCalibration.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace clab::cli {
namespace {

// TCP payload per byte a tbf-limited Ethernet link carries: 1448 of every 1514 (timestamps on).
constexpr double kEthernetPayload = 1448.0 / 1514.0;
// htb's bucket at the benchmark's rates (tc's default: a frame and a bit more).
constexpr double kHtbBurst = 1600;
// Times a failed real run is run again before the benchmark gives up.
constexpr int kRetries = 2;

std::string ProjectPath(const SimBenchmarkOptions& options, const std::string& name) {
  return (std::filesystem::path(options.project_dir) / (name + ".clab")).string();
}

}  // namespace

sim::PlatformSpec SettingPlatform(const SimBenchmarkSetting& setting, int cores) {
  sim::PlatformSpec spec;
  spec.machines.push_back({"this machine", cores, 1.0});
  if (setting.rate_bits <= 0) {
    // Every task is a process on this machine: one host, its loopback between them.
    sim::HostSpec host;
    host.name = "localhost";
    host.cores = cores;
    host.machine = "this machine";
    spec.hosts.push_back(host);
    spec.tasks.push_back({"*", {"localhost"}});
    return spec;
  }
  // Every task a host of its own (its namespace) with a NIC of the shaped rate; all of them
  // compute on this machine's cores.
  spec.host.machine = "this machine";
  spec.host.link.bandwidth = setting.rate_bits / 8;
  spec.host.link.latency = 0;
  spec.host.link.burst = kHtbBurst;
  spec.payload_fraction = kEthernetPayload;
  return spec;
}

StatusOr<std::vector<SimBenchmarkRow>> RunSimBenchmark(const SimBenchmarkOptions& options) {
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ShapedNetwork::RemoveStale();
  if (!options.out_dir.empty()) std::filesystem::create_directories(options.out_dir);
  std::vector<SimBenchmarkRow> rows;
  std::map<std::string, size_t> row_of;  // project|setting|ps|workers
  auto key = [](const std::string& project, const std::string& setting, int ps, int workers) {
    return absl::StrCat(project, "|", setting, "|", ps, "|", workers);
  };
  // Calibrate, then predict every setting and configuration.
  for (const std::string& name : options.projects) {
    SimCalibrationOptions calibrate;
    calibrate.clab = options.clab;
    calibrate.project_path = ProjectPath(options, name);
    calibrate.seconds = options.seconds;
    calibrate.progress = [&](const std::string& line) { say(absl::StrCat(name, ": ", line)); };
    CLAB_ASSIGN_OR_RETURN(const sim::Calibration calibration, CalibrateProject(calibrate));
    if (!options.out_dir.empty())
      CLAB_RETURN_IF_ERROR(
          calibration.Save((std::filesystem::path(options.out_dir) / (name + ".calibration.json")).string()));
    CLAB_ASSIGN_OR_RETURN(const sim::SimProject project, sim::SimProject::Load(calibrate.project_path));
    for (const SimBenchmarkSetting& setting : options.settings) {
      const sim::PlatformSpec platform = SettingPlatform(setting, cores);
      if (!options.out_dir.empty()) {
        std::ofstream file(std::filesystem::path(options.out_dir) /
                           absl::StrCat("platform-",
                                        setting.rate_bits > 0
                                            ? absl::StrCat(static_cast<int64_t>(setting.rate_bits / 1e6), "mbit")
                                            : "loopback",
                                        ".json"));
        file << platform.ToJsonText() << "\n";
      }
      sim::Simulator simulator(project, platform, calibration);
      std::vector<sim::SimulationConfig> configs;
      for (const auto& [ps, workers] : options.configs) {
        sim::SimulationConfig config;
        config.ps = ps;
        config.workers = workers;
        config.steps = 200;
        configs.push_back(config);
      }
      std::vector<StatusOr<sim::SimulationResult>> results = simulator.RunAll(configs, 0);
      for (size_t i = 0; i < configs.size(); ++i) {
        if (!results[i].ok()) return results[i].status();
        SimBenchmarkRow row;
        row.project = name;
        row.setting = setting.name;
        row.ps = configs[i].ps;
        row.workers = configs[i].workers;
        row.predicted = results[i]->total_steps_per_second;
        row.target = setting.target;
        row.bottleneck = results[i]->bottleneck;
        row_of[key(name, setting.name, row.ps, row.workers)] = rows.size();
        rows.push_back(row);
      }
    }
  }
  // Measure, interleaved: each repeat goes through every setting and configuration.
  const int most_tasks = [&] {
    int most = 0;
    for (const auto& [ps, workers] : options.configs) most = std::max(most, ps + workers);
    return most;
  }();
  for (int repeat = 0; repeat < options.repeats; ++repeat) {
    for (const SimBenchmarkSetting& setting : options.settings) {
      std::unique_ptr<ShapedNetwork> network;
      if (setting.rate_bits > 0) {
        CLAB_ASSIGN_OR_RETURN(network, ShapedNetwork::Create(most_tasks, setting.rate_bits));
      }
      for (const std::string& name : options.projects)
        for (const auto& [ps, workers] : options.configs) {
          RealRunOptions real;
          real.clab = options.clab;
          real.program = name;
          real.ps = ps;
          real.workers = workers;
          real.seconds = options.seconds;
          real.network = network.get();
          SimBenchmarkRow& row = rows[row_of.at(key(name, setting.name, ps, workers))];
          StatusOr<RealRunResult> attempt = RunRealCluster(real);
          for (int retry = 0; !attempt.ok() && retry < kRetries; ++retry) {
            say(absl::StrCat("repeat ", repeat + 1, ", ", setting.name, ", ", name, ", ", ps, " ps, ", workers,
                             " workers failed, running it again: ", attempt.status().message()));
            row.failures.push_back(std::string(attempt.status().message()));
            attempt = RunRealCluster(real);
          }
          CLAB_RETURN_IF_ERROR(attempt.status());
          const RealRunResult& run = *attempt;
          row.measured.push_back(run.total_steps_per_second);
          say(absl::StrFormat(
              "repeat %d, %s, %s, %d ps, %d workers: %.1f steps/s (predicted %.1f); CPU per step: worker %.0f us, "
              "ps %.0f us; cores: tasks %.2f, this %.2f, machine %.2f",
              repeat + 1, setting.name, name, ps, workers, run.total_steps_per_second, row.predicted,
              run.worker_cpu_per_step * 1e6, run.ps_cpu_per_step * 1e6, run.tasks_cores, run.self_cores,
              run.machine_cores));
          if (!run.note.empty()) say("    (measured until " + run.note + ")");
        }
    }
  }
  for (SimBenchmarkRow& row : rows) {
    row.measured_median = Median(row.measured);
    row.error = row.measured_median > 0 ? (row.predicted - row.measured_median) / row.measured_median : 0;
  }
  return rows;
}

std::string FormatSimBenchmark(const std::vector<SimBenchmarkRow>& rows) {
  TextTable table({"project", "network", "ps", "workers", "predicted", "measured", "error", "target", "ok"});
  int passed = 0;
  for (const SimBenchmarkRow& row : rows) {
    const bool ok = std::fabs(row.error) <= row.target;
    passed += ok ? 1 : 0;
    table.AddRow({row.project, row.setting, std::to_string(row.ps), std::to_string(row.workers),
                  absl::StrFormat("%.1f", row.predicted), absl::StrFormat("%.1f", row.measured_median),
                  absl::StrFormat("%+.1f%%", 100 * row.error), absl::StrFormat("%.0f%%", 100 * row.target),
                  ok ? "yes" : "NO"});
  }
  std::ostringstream out;
  table.Print(out);
  out << absl::StrFormat("%d of %zu within target. Steps/s of all workers; measured: median of the repeats.\n", passed,
                         rows.size());
  for (const SimBenchmarkRow& row : rows)
    if (!row.failures.empty())
      out << absl::StrFormat("%s, %s, %d ps, %d workers: %zu run(s) failed and were run again; first: %s\n",
                             row.project, row.setting, row.ps, row.workers, row.failures.size(), row.failures.front());
  return out.str();
}

std::string SimBenchmarkJson(const std::vector<SimBenchmarkRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const SimBenchmarkRow& row : rows)
    list.push_back({{"project", row.project},
                    {"network", row.setting},
                    {"ps", row.ps},
                    {"workers", row.workers},
                    {"predicted", row.predicted},
                    {"measured", row.measured},
                    {"measured_median", row.measured_median},
                    {"error", row.error},
                    {"target", row.target},
                    {"failed_runs", row.failures.size()}});
  return nlohmann::json{{"benchmark", "simulate"}, {"rows", list}}.dump();
}

}  // namespace clab::cli
