#include "commands/SimulateCommand.h"

#include "calibration/Calibration.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/TextTable.h"
#include "launch/process/ChildProcess.h"
#include "platform/PlatformSpec.h"
#include "platform/Quantity.h"
#include "project/SimProject.h"
#include "report/Bottleneck.h"
#include "report/SimulationFiles.h"
#include "run/Simulator.h"
#include "sim/CountList.h"
#include "sim/SimCalibration.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>

#include <chrono>
#include <ostream>

namespace clab::cli {
using launch::ChildProcess;
namespace {

std::string Percent(double part, double whole) {
  return whole > 0 ? absl::StrFormat("%.0f%%", 100 * part / whole) : "-";
}

}  // namespace

std::string SimulateCommand::description() const {
  return "Predicts the training of PROJECT on clusters this machine cannot hold. Its step (the\n"
         "program's graph, or the studio's edited one) is compiled as the master compiles it (prune,\n"
         "place, pack, partition) for each number of ps, and SimGrid actors play the workers (their\n"
         "clients and masters), the ps and, with --sync, SyncReplicas' aggregation, step by step, on\n"
         "the platform of --platform (a JSON platform or a SimGrid XML file; default: the project's\n"
         "\"platform\" section, else a star of 8-core hosts on 10 Gbps links). Op times, call costs\n"
         "and latencies come from --calibration (made by 'clab simulate --calibrate PROJECT -o FILE',\n"
         "which traces real steps on this machine); without it, from a FLOP-count model.\n\n"
         "Prints one row per (workers, ps): steps/s per worker and in total, the step's time, the\n"
         "shares of compute, transfer and waiting, the busiest link or CPU, and what limits it.\n"
         "--workers and --ps take lists: \"1,2,4,...,1000\" continues the doubling up to 1000.\n"
         "--trace writes a Chrome trace of the first steps of the last configuration, --csv one CSV\n"
         "per task of each configuration. The same configuration and --seed give the same numbers.";
}

void SimulateCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PROJECT", "the .clab project to simulate", &project_);
  flags.AddString("platform", "FILE", "the platform: JSON or SimGrid XML", &platform_);
  flags.AddString("workers", "LIST", "worker counts, e.g. 1,2,4,...,1000", &workers_);
  flags.AddString("ps", "LIST", "ps counts, e.g. 1,2,4", &ps_);
  flags.AddBool("sync", "synchronous replicas (default: the project's run setting)", &sync_);
  flags.AddBool("async", "asynchronous training even if the project says sync", &async_);
  flags.AddInt("steps", "N", "simulated steps per worker", &steps_, 1);
  flags.AddInt("seed", "N", "seed of the compute jitter", &seed_, 0);
  flags.AddInt("parallel", "N", "simulations at a time (default: one per CPU)", &parallel_, 0);
  flags.AddInt("actors", "N", "past N identical workers, simulate them as N groups (0: never)", &actors_, 0);
  flags.AddString("calibration", "FILE", "op times and call costs measured by --calibrate", &calibration_);
  flags.AddString("trace", "FILE", "write a Chrome trace of the first simulated steps", &trace_);
  flags.AddInt("trace_steps", "N", "steps of each worker the trace shows", &trace_steps_, 1);
  flags.AddString("csv", "DIR", "write a CSV per task of each configuration", &csv_);
  flags.AddBool("explain", "print the step the simulation plays: its calls, their bytes and CPU", &explain_);
  flags.AddBool("calibrate", "measure this machine: trace real steps of PROJECT, write -o FILE", &calibrate_);
  flags.AddString("o", "FILE", "with --calibrate: where the calibration goes", &output_);
  flags.AddInt("calibrate_seconds", "S", "with --calibrate: how long each real run lasts", &calibrate_seconds_, 1);
}

Status SimulateCommand::Run(std::ostream& out) {
  if (calibrate_) return Calibrate(out);
  if (sync_ && async_) return UsageError("--sync and --async: pick one");
  CLAB_ASSIGN_OR_RETURN(sim::SimProject project, sim::SimProject::Load(project_));
  sim::PlatformSpec platform = project.platform.value_or(sim::PlatformSpec::Default());
  if (!platform_.empty()) {
    CLAB_ASSIGN_OR_RETURN(platform, sim::PlatformSpec::FromFile(platform_));
  }
  sim::Calibration calibration = sim::Calibration::Uncalibrated();
  if (!calibration_.empty()) {
    CLAB_ASSIGN_OR_RETURN(calibration, sim::Calibration::Load(calibration_));
  }
  StatusOr<std::vector<int>> workers = ParseCountList("workers", workers_, 1, 100000);
  if (!workers.ok()) return UsageError(std::string(workers.status().message()));
  StatusOr<std::vector<int>> ps = ParseCountList("ps", ps_, 1, 10000);
  if (!ps.ok()) return UsageError(std::string(ps.status().message()));
  const bool sync = sync_ || (project.sync && !async_);

  std::vector<sim::SimulationConfig> configs;
  for (int p : *ps)
    for (int w : *workers) {
      sim::SimulationConfig config;
      config.workers = w;
      config.ps = p;
      config.sync = sync;
      config.steps = static_cast<int>(steps_);
      config.seed = static_cast<uint64_t>(seed_);
      config.max_simulated_workers = static_cast<int>(actors_);
      config.trace_steps = static_cast<int>(trace_steps_);
      configs.push_back(config);
    }
  sim::Simulator simulator(project, platform, calibration);
  if (explain_)
    for (int p : *ps) CLAB_RETURN_IF_ERROR(Explain(simulator, workers->front(), p, out));
  out << "Simulating " << (project.name.empty() ? project_ : project.name) << " (" << project.program << ", "
      << (sync ? "synchronous" : "asynchronous") << "), " << steps_ << " steps per worker, "
      << (calibration.calibrated ? "calibrated by " + calibration_ : std::string("uncalibrated (FLOP-count model)"))
      << "." << std::endl;
  const auto start = std::chrono::steady_clock::now();
  std::vector<StatusOr<sim::SimulationResult>> results = simulator.RunAll(configs, static_cast<int>(parallel_));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  TextTable table(
      {"workers", "ps", "steps/s/worker", "steps/s", "step ms", "compute", "transfer", "waiting", "busiest", "sim s"});
  std::vector<std::string> notes;
  for (size_t i = 0; i < results.size(); ++i) {
    const sim::SimulationConfig& config = configs[i];
    if (!results[i].ok())
      return Status(results[i].status().code(),
                    absl::StrCat(config.workers, " workers, ", config.ps, " ps: ", results[i].status().message()));
    const sim::SimulationResult& r = *results[i];
    const double step = r.MeanStepSeconds();
    const sim::ResourceLoad* busiest = nullptr;
    for (const sim::ResourceLoad& resource : r.resources)
      if (!busiest || resource.mean > busiest->mean) busiest = &resource;
    table.AddRow({std::to_string(config.workers), std::to_string(config.ps),
                  absl::StrFormat("%.1f", r.total_steps_per_second / config.workers),
                  absl::StrFormat("%.1f", r.total_steps_per_second), absl::StrFormat("%.3f", step * 1e3),
                  Percent(r.MeanCompute(), step), Percent(r.MeanTransfer(), step), Percent(r.MeanWaiting(), step),
                  busiest ? absl::StrFormat("%s %.0f%%", busiest->name, 100 * busiest->mean) : "-",
                  absl::StrFormat("%.2f", r.wall_seconds)});
    notes.push_back(absl::StrCat(config.workers, " workers, ", config.ps, " ps: ", r.bottleneck));
    if (!csv_.empty())
      CLAB_RETURN_IF_ERROR(sim::WriteTaskCsvs(r, csv_, absl::StrCat("w", config.workers, "-ps", config.ps, "-")));
  }
  table.Print(out);
  out << "\nWhat limits each configuration:\n";
  for (const std::string& note : notes) out << "  " << note << "\n";
  if (!trace_.empty() && !results.empty()) {
    CLAB_RETURN_IF_ERROR(sim::WriteChromeTrace(*results.back(), trace_));
    out << "Chrome trace of the last configuration's first steps: " << trace_ << "\n";
  }
  if (!csv_.empty()) out << "CSV files: " << csv_ << "\n";
  out << absl::StrFormat("%zu simulation(s) in %.2f s.\n", results.size(), seconds);
  return OkStatus();
}

Status SimulateCommand::Explain(sim::Simulator& simulator, int workers, int ps, std::ostream& out) {
  CLAB_ASSIGN_OR_RETURN(const sim::StepPlan* step, simulator.Plan(workers, ps));
  CLAB_ASSIGN_OR_RETURN(const sim::StepModel model, simulator.Model(workers, ps));
  out << "The step on " << ps << " ps, as worker 0 runs it. Tensors between tasks:\n";
  for (const sim::PlanTransfer& t : step->transfers)
    out << absl::StrFormat("  %s -> %s: %s (%s)\n", sim::TaskLabel(t.from_task), sim::TaskLabel(t.to_task),
                           sim::FormatBytes(static_cast<double>(t.bytes)), absl::StrJoin(t.tensors, ", "));
  out << "What the simulation plays, each after the activities in brackets:\n";
  for (size_t i = 0; i < model.activities.size(); ++i) {
    const sim::StepActivity& a = model.activities[i];
    const std::string what =
        a.kind == sim::StepActivity::Kind::kMessage
            ? absl::StrFormat("%s -> %s, %s", sim::TaskLabel(a.task), sim::TaskLabel(a.to),
                              sim::FormatBytes(static_cast<double>(a.bytes)))
            : absl::StrFormat("%.0f us of CPU%s", a.seconds * 1e6,
                              a.background > 0 ? absl::StrFormat(" (+%.0f us beside)", a.background * 1e6) : "");
    out << absl::StrFormat("  %2zu %s: %s [%s]\n", i, a.label, what, absl::StrJoin(a.after, ","));
  }
  out << absl::StrFormat(
      "  %d calls, %s per step; the worker's CPU %.0f us, the others' %.0f us; %d nodes timed, %d from "
      "the FLOP model\n",
      model.CallsPerStep(), sim::FormatBytes(static_cast<double>(model.BytesPerStep())), model.WorkerSeconds() * 1e6,
      model.OtherSeconds() * 1e6, model.traced_nodes, model.modelled_nodes);
  if (model.awake_saving_seconds > 0 || model.busy_wake_latency > 0)
    out << absl::StrFormat(
        "  a call that finds its callee at work costs it %.0f us less; a message to a machine whose cores are all "
        "busy waits %.0f us more for its receiver to wake (less on a machine partly busy)\n",
        model.awake_saving_seconds * 1e6, model.busy_wake_latency * 1e6);
  return OkStatus();
}

Status SimulateCommand::Calibrate(std::ostream& out) {
  if (output_.empty()) return UsageError("--calibrate needs -o FILE: where the calibration goes");
  SimCalibrationOptions options;
  options.clab = launch::ChildProcess::SelfPath();
  options.project_path = project_;
  options.seconds = static_cast<double>(calibrate_seconds_);
  options.progress = [&out](const std::string& line) { out << "  " << line << std::endl; };
  out << "Calibrating on " << project_ << ":" << std::endl;
  CLAB_ASSIGN_OR_RETURN(const sim::Calibration calibration, CalibrateProject(options));
  CLAB_RETURN_IF_ERROR(calibration.Save(output_));
  out << absl::StrFormat(
      "Wrote %s: %zu nodes timed; a call costs %.0f us at the caller and %.0f us at the ps, %.2f ns per "
      "byte, %.0f us latency; the client spends %.0f us per step; %.0f%% jitter.\n",
      output_, calibration.node_seconds.size(), calibration.rpc.client_seconds * 1e6,
      calibration.rpc.server_seconds * 1e6, calibration.rpc.seconds_per_byte * 1e9, calibration.rpc.latency * 1e6,
      calibration.step_client_seconds * 1e6, calibration.jitter * 100);
  return OkStatus();
}

}  // namespace clab::cli
