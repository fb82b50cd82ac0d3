#include "bench/TrainBenchmark.h"

#include "bench/ClusterTrainRun.h"
#include "bench/CostMeter.h"
#include "bench/Median.h"
#include "bench/TorchPeer.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "exampledata/ExampleDataPath.h"
#include "models/Classifier.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <chrono>
#include <map>

namespace clab::cli {
namespace {

// Targets: 2 workers at 2.5x the peer's rate; 1 worker at most 0.3 ms CPU and 8 context
// switches per global step.
constexpr double kTwoWorkerTargetRatio = 2.5;
constexpr double kOneWorkerCpuTargetUs = 300;
constexpr double kOneWorkerSwitchesTarget = 8;

// The same model and steps in this process, without any RPC: the floor.
StatusOr<TrainRun> TrainLocally(const examples::ClassificationData& data, const TrainBenchmarkOptions& options) {
  GraphBuilder g;
  CLAB_ASSIGN_OR_RETURN(const tools::ClassifierGraph model,
                        tools::BuildClassifier(g, data.num_features, {options.hidden}, data.num_classes, 0.1, 7));
  const Output init = ops::GlobalVariablesInitializer(g);
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  CLAB_RETURN_IF_ERROR(session->Create(g.graph_def()));
  std::vector<Tensor> unused;
  CLAB_RETURN_IF_ERROR(session->Run({}, {}, {init.node()}, &unused));
  CostMeter meter;
  CLAB_RETURN_IF_ERROR(examples::Train(*session, model, data.train, options.steps, 32, 107).status());
  CLAB_ASSIGN_OR_RETURN(const StepCost cost, meter.PerStep(options.steps));
  TrainRun run;
  run.steps = options.steps;
  run.seconds = cost.wall_us * static_cast<double>(options.steps) / 1e6;
  run.cpu_us = cost.cpu_us;
  run.context_switches = cost.context_switches;
  CLAB_ASSIGN_OR_RETURN(run.accuracy, examples::Accuracy(*session, model, data.held_out));
  return run;
}

TrainRun MedianRun(const std::vector<TrainRun>& runs) {
  std::vector<double> seconds, cpu, switches, accuracy;
  for (const TrainRun& run : runs) {
    seconds.push_back(run.seconds);
    cpu.push_back(run.cpu_us);
    switches.push_back(run.context_switches);
    accuracy.push_back(run.accuracy);
  }
  TrainRun median;
  median.steps = runs.empty() ? 0 : runs.front().steps;
  median.seconds = Median(seconds);
  median.cpu_us = Median(cpu);
  median.context_switches = Median(switches);
  median.accuracy = Median(accuracy);
  return median;
}

std::string Rate(const TrainRun& run) { return absl::StrFormat("%.0f", run.steps_per_second()); }

}  // namespace

StatusOr<TrainBenchmarkResult> RunTrainBenchmark(const TrainBenchmarkOptions& options) {
  if (options.rounds < 1 || options.steps < 1 || options.hidden < 1)
    return errors::InvalidArgument("rounds, steps and hidden units must be at least 1");
  auto tell = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  const std::string data_path = tools::ExampleDataPath("digits.csv.gz");
  CLAB_ASSIGN_OR_RETURN(const examples::ClassificationData data, examples::LoadClassificationCsv(data_path));

  TrainBenchmarkResult result;
  std::unique_ptr<TorchPeer> peer;
  if (options.peer) {
    StatusOr<std::unique_ptr<TorchPeer>> found = TorchPeer::Find(options.python, options.torch_script);
    if (found.ok()) {
      peer = std::move(*found);
      result.peer_note = absl::StrCat("PyTorch peer: torch ", peer->torch_version(), " (", peer->python(), ")");
    } else {
      result.peer_note = std::string(found.status().message());
    }
  } else {
    result.peer_note = "PyTorch peer: not run (--peer none)";
  }
  tell(result.peer_note);

  std::vector<TrainRun> local_runs;
  std::map<int, std::vector<TrainRun>> clab_runs, peer_runs;
  for (int round = 0; round < options.rounds; ++round) {
    CLAB_ASSIGN_OR_RETURN(const TrainRun local, TrainLocally(data, options));
    local_runs.push_back(local);
    tell(
        absl::StrFormat("round %d/%d, in one process without RPC: %s steps/s", round + 1, options.rounds, Rate(local)));
    for (int workers : options.worker_counts) {
      ClusterTrainOptions cluster;
      cluster.clab_program = options.clab_program;
      cluster.workers = workers;
      cluster.steps = options.steps;
      cluster.hidden = options.hidden;
      cluster.progress = [&](const std::string& line) { tell("  " + line); };
      // ClusterLab and the peer one after the other; which goes first swaps every round.
      for (int side = 0; side < 2; ++side) {
        if ((side + round) % 2 == 0) {
          CLAB_ASSIGN_OR_RETURN(const TrainRun run, RunClusterTraining(cluster));
          clab_runs[workers].push_back(run);
          tell(absl::StrFormat("round %d/%d, %d worker(s), ClusterLab: %s steps/s, accuracy %.3f", round + 1,
                               options.rounds, workers, Rate(run), run.accuracy));
        } else if (peer) {
          CLAB_ASSIGN_OR_RETURN(const TrainRun run, peer->Run(workers, options.steps, options.hidden, data_path));
          peer_runs[workers].push_back(run);
          tell(absl::StrFormat("round %d/%d, %d worker(s), PyTorch: %s steps/s, accuracy %.3f", round + 1,
                               options.rounds, workers, Rate(run), run.accuracy));
        }
      }
    }
  }
  result.rows.push_back(TrainRow{0, MedianRun(local_runs), false, {}});
  for (int workers : options.worker_counts) {
    TrainRow row{workers, MedianRun(clab_runs[workers]), peer != nullptr, {}};
    if (peer) row.peer = MedianRun(peer_runs[workers]);
    result.rows.push_back(row);
  }
  return result;
}

std::string FormatTrainTable(const TrainBenchmarkResult& result) {
  std::string table =
      absl::StrFormat("%-8s %9s %8s %7s %8s %8s   %9s %8s %7s %8s %7s  %s\n", "workers", "steps/s", "cpu us", "cs",
                      "accuracy", "compute", "PyTorch", "cpu us", "cs", "accuracy", "ratio", "target");
  double local_seconds = 0;
  for (const TrainRow& row : result.rows) {
    const bool local = row.workers == 0;
    if (local) local_seconds = row.clab.seconds;
    // The share of the run that the same steps take without RPC; the rest is transfer and
    // coordination between the tasks.
    const std::string compute =
        row.clab.seconds > 0 ? absl::StrFormat("%.0f%%", 100.0 * local_seconds / row.clab.seconds) : "-";
    std::string peer = absl::StrFormat("%9s %8s %7s %8s %7s", "-", "-", "-", "-", "-");
    double ratio = 0;
    if (row.has_peer && row.peer.steps_per_second() > 0) {
      ratio = row.clab.steps_per_second() / row.peer.steps_per_second();
      peer = absl::StrFormat("%9.0f %8.0f %7.1f %8.3f %6.2fx", row.peer.steps_per_second(), row.peer.cpu_us,
                             row.peer.context_switches, row.peer.accuracy, ratio);
    }
    std::string target = "-";
    if (row.workers == 1) {
      const bool met =
          row.clab.cpu_us <= kOneWorkerCpuTargetUs && row.clab.context_switches <= kOneWorkerSwitchesTarget;
      target = absl::StrFormat("cpu <= %.0f us, cs <= %.0f %s", kOneWorkerCpuTargetUs, kOneWorkerSwitchesTarget,
                               met ? "met" : "MISSED");
    } else if (row.workers == 2) {
      target = absl::StrFormat(">= %.1fx %s", kTwoWorkerTargetRatio,
                               !row.has_peer                    ? "(no peer)"
                               : ratio >= kTwoWorkerTargetRatio ? "met"
                                                                : "MISSED");
    }
    table += absl::StrFormat("%-8s %9.0f %8.0f %7.1f %8.3f %8s   %s  %s\n",
                             local ? std::string("local") : std::to_string(row.workers), row.clab.steps_per_second(),
                             row.clab.cpu_us, row.clab.context_switches, row.clab.accuracy, compute, peer, target);
  }
  table +=
      "steps/s: global steps per second of the whole cluster; cpu us, cs: CPU time and context switches\n"
      "per global step of all its processes; compute: the local run's time as a share of the run's;\n"
      "ratio: ClusterLab's steps/s over PyTorch's. Medians over rounds.\n";
  table += result.peer_note + "\n";
  return table;
}

}  // namespace clab::cli
