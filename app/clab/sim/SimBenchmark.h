// `clab bench simulate`: the simulator's predictions against measurements on this machine.
// For each project it calibrates (SimCalibration), then, in each network setting, predicts
// and measures the same configurations (ps x workers):
//
//   loopback   every task a process on this machine, talking over 127.0.0.1; the platform is
//              one host with this machine's cores
//   shaped     every task in a network namespace of its own with a tbf-limited veth NIC
//              (ShapedNetwork); the platform gives each task a host with a NIC of that rate,
//              all computing on this machine's cores
//
// Measurements are taken `repeats` times, interleaved (repeat, setting, configuration), and
// their median is compared with the prediction. A run whose training fails (a task exits
// with an error) is run again, up to twice; the failures are counted and their errors kept.
#pragma once

#include "clab/core/Status.h"
#include "platform/PlatformSpec.h"

#include <functional>
#include <string>
#include <vector>

namespace clab::cli {

struct SimBenchmarkSetting {
  std::string name;      // "loopback", "100Mbit/s"
  double rate_bits = 0;  // 0: loopback
  double target = 0.25;  // the largest error accepted
};

struct SimBenchmarkOptions {
  std::string clab;
  std::string project_dir;  // examples/projects
  std::vector<std::string> projects = {"seed", "digits-mlp", "digits-cnn"};
  std::vector<SimBenchmarkSetting> settings;
  std::vector<std::pair<int, int>> configs = {{1, 1}, {1, 2}, {1, 4}, {2, 2}};  // (ps, workers)
  int repeats = 3;
  double seconds = 5;   // each measured run
  std::string out_dir;  // calibrations and platforms are written here when set
  std::function<void(const std::string&)> progress;
};

struct SimBenchmarkRow {
  std::string project;
  std::string setting;
  int ps = 1;
  int workers = 1;
  double predicted = 0;          // steps/s, all workers
  std::vector<double> measured;  // per repeat
  double measured_median = 0;
  double error = 0;  // (predicted - measured) / measured
  double target = 0;
  std::string bottleneck;
  std::vector<std::string> failures;  // runs that failed and were run again: their errors
};

// The platform a setting simulates: this machine's `cores` shared by every task.
sim::PlatformSpec SettingPlatform(const SimBenchmarkSetting& setting, int cores);

StatusOr<std::vector<SimBenchmarkRow>> RunSimBenchmark(const SimBenchmarkOptions& options);
std::string FormatSimBenchmark(const std::vector<SimBenchmarkRow>& rows);
std::string SimBenchmarkJson(const std::vector<SimBenchmarkRow>& rows);

}  // namespace clab::cli
