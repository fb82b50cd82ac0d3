#include "sim/SimCalibration.h"

#include "calibration/CalibrationFit.h"
#include "calibration/ContentionFit.h"
#include "clab/distributed/LinkProbe.h"
#include "clab/distributed/Server.h"
#include "clab/graph/GraphImport.h"
#include "clab/runtime/Session.h"
#include "exampledata/ExampleDataPath.h"
#include "launch/process/ChildProcess.h"
#include "model/StepGraph.h"
#include "network/LoopbackPorts.h"
#include "run/Simulator.h"
#include "sim/RealCluster.h"
#include "sim/SimBenchmark.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace clab::cli {
using launch::ChildProcess;
namespace {

using Clock = std::chrono::steady_clock;

double SelfCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double ProcessCpuSeconds(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string text;
  if (!std::getline(stat, text)) return 0;
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    double value = 0;
    if ((i == 14 || i == 15) && absl::SimpleAtod(field, &value)) ticks += value;
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

std::string MachineText() {
  double load[1] = {0};
  ::getloadavg(load, 1);
  return absl::StrFormat("%d cores, load %.1f", static_cast<int>(std::thread::hardware_concurrency()), load[0]);
}

StatusOr<sim::EchoMeasurement> MeasureEcho(LinkProbe& probe, pid_t server, int64_t bytes, int calls) {
  for (int i = 0; i < calls / 10; ++i) CLAB_RETURN_IF_ERROR(probe.Echo(bytes));
  const double cpu0 = SelfCpuSeconds(), server0 = ProcessCpuSeconds(server);
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) CLAB_RETURN_IF_ERROR(probe.Echo(bytes));
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  sim::EchoMeasurement echo;
  echo.bytes = bytes;
  echo.wall = wall / calls;
  echo.client_cpu = (SelfCpuSeconds() - cpu0) / calls;
  echo.server_cpu = (ProcessCpuSeconds(server) - server0) / calls;
  return echo;
}

// Where the example programs' data sets are: the step's dataset op names its file relative
// to it, and each task may read files only beneath its data directories.
std::string ExampleDataDir() {
  return std::filesystem::path(tools::ExampleDataPath("digits.csv.gz")).parent_path().string();
}

// Runs the step in this process's worker against the ps process, traced, and keeps each
// node's time per step and the worker partition's total per step.
Status TraceSteps(const sim::StepGraph& step, const std::string& cluster, int steps,
                  sim::CalibrationMeasurements* measured) {
  ServerOptions server_options;
  CLAB_ASSIGN_OR_RETURN(server_options.cluster, ClusterSpec::Parse(cluster));
  server_options.job_name = "worker";
  server_options.task_index = 0;
  server_options.data_dirs = {ExampleDataDir()};
  server_options.log = [](const std::string&) {};
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(server_options));
  SessionOptions session_options;
  session_options.target = server->target();
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(session_options));
  CLAB_RETURN_IF_ERROR(session->Create(step.graph));
  std::vector<Tensor> outputs;
  CLAB_RETURN_IF_ERROR(session->Run({}, {}, GuessInitializers(step.graph), &outputs));
  for (int i = 0; i < 30; ++i) CLAB_RETURN_IF_ERROR(session->Run({}, step.fetches, step.targets, &outputs));
  tensorflow::RunOptions options;
  options.set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  for (int i = 0; i < steps; ++i) {
    tensorflow::RunMetadata metadata;
    CLAB_RETURN_IF_ERROR(session->Run(options, {}, step.fetches, step.targets, &outputs, &metadata));
    double worker = 0;
    for (const auto& device : metadata.step_stats().dev_stats()) {
      const bool on_worker = device.device().rfind("/job:worker/", 0) == 0;
      for (const auto& node : device.node_stats()) {
        const double seconds = static_cast<double>(node.all_end_rel_micros()) * 1e-6;
        measured->node_seconds[node.node_name()].push_back(seconds);
        if (on_worker) worker += seconds;
      }
    }
    measured->worker_step_seconds.push_back(worker);
  }
  CLAB_RETURN_IF_ERROR(session->Close());
  return server->Stop();
}

}  // namespace

StatusOr<sim::Calibration> CalibrateProject(const SimCalibrationOptions& options) {
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  CLAB_ASSIGN_OR_RETURN(const sim::SimProject project, sim::SimProject::Load(options.project_path));
  sim::Simulator simulator(project, sim::PlatformSpec::Default(), sim::Calibration::Uncalibrated());
  CLAB_ASSIGN_OR_RETURN(const sim::StepPlan* compiled, simulator.Plan(1, 1));
  CLAB_ASSIGN_OR_RETURN(sim::StepGraph step, sim::BuildStepGraph(project, {{"ps", 1}, {"worker", 1}}));
  // The step names its data file as the simulator does (relative); the traced run reads it.
  for (tensorflow::NodeDef& node : *step.graph.mutable_node()) {
    auto path = node.mutable_attr()->find("path");
    if (node.op() == "MinibatchDataset" && path != node.mutable_attr()->end() && !path->second.s().empty())
      path->second.set_s(tools::ExampleDataPath(path->second.s()));
  }
  sim::CalibrationMeasurements measured;
  measured.project = options.project_path;
  measured.machine = MachineText();

  CLAB_ASSIGN_OR_RETURN(const std::vector<int> ports, tools::PickFreeLoopbackPorts(2));
  const std::string ps_address = absl::StrCat("127.0.0.1:", ports[0]);
  const std::string cluster = absl::StrCat("ps=", ps_address, ";worker=127.0.0.1:", ports[1]);
  {
    CLAB_ASSIGN_OR_RETURN(
        std::unique_ptr<ChildProcess> ps,
        ChildProcess::Start(options.clab,
                            {"server", "--cluster", cluster, "--job_name", "ps", "--data_dir", ExampleDataDir()}, {}));
    if (!ps->WaitForLine("Serving /job:", std::chrono::seconds(20)))
      return errors::Unavailable("the calibration's ps process (clab server) did not start");
    say(absl::StrCat("tracing ", options.traced_steps, " steps of ", project.program, " (1 ps, 1 worker)"));
    CLAB_RETURN_IF_ERROR(TraceSteps(step, cluster, options.traced_steps, &measured));
    say("timing bare gRPC calls to the ps");
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<LinkProbe> probe, LinkProbe::Connect(ps_address));
    CLAB_ASSIGN_OR_RETURN(measured.small_echo, MeasureEcho(*probe, ps->pid(), 16, 2000));
    CLAB_ASSIGN_OR_RETURN(measured.large_echo, MeasureEcho(*probe, ps->pid(), 64 * 1024, 400));
    ps->Stop();
  }
  // The real runs, on one ps and one worker, two ps and one worker, one ps and two workers,
  // three times each: the median run (by steps/s) of each is the one fitted.
  struct RealConfig {
    int ps, workers;
  };
  const RealConfig configs[] = {{1, 1}, {2, 1}, {1, 2}};
  RealRunResult runs_of[3];
  for (int c = 0; c < 3; ++c) {
    const RealConfig& config = configs[c];
    std::vector<RealRunResult> runs;
    for (int i = 0; i < 3; ++i) {
      say(absl::StrCat("running ", project.program, " for real (", config.ps, " ps, ", config.workers, " worker",
                       config.workers > 1 ? "s" : "", ") for ", options.seconds, " s, ", i + 1, " of 3"));
      RealRunOptions real;
      real.clab = options.clab;
      real.program = project.program;
      real.ps = config.ps;
      real.workers = config.workers;
      real.seconds = options.seconds;
      CLAB_ASSIGN_OR_RETURN(RealRunResult run, RunRealCluster(real));
      runs.push_back(std::move(run));
    }
    std::sort(runs.begin(), runs.end(), [](const RealRunResult& a, const RealRunResult& b) {
      return a.total_steps_per_second < b.total_steps_per_second;
    });
    runs_of[c] = runs[1];
    say(absl::StrFormat(
        "%d ps, %d worker(s): measured %.1f steps/s (of %.1f, %.1f, %.1f); CPU per step: worker %.0f us, ps %.0f us",
        config.ps, config.workers, runs[1].total_steps_per_second, runs[0].total_steps_per_second,
        runs[1].total_steps_per_second, runs[2].total_steps_per_second, runs[1].worker_cpu_per_step * 1e6,
        runs[1].ps_cpu_per_step * 1e6));
  }
  measured.steps_per_second = runs_of[0].total_steps_per_second;
  measured.worker_cpu_per_step = runs_of[0].worker_cpu_per_step;
  measured.ps_cpu_per_step = runs_of[0].ps_cpu_per_step;
  measured.two_ps_worker_cpu_per_step = runs_of[1].worker_cpu_per_step;
  measured.two_ps_ps_cpu_per_step = runs_of[1].ps_cpu_per_step;
  CLAB_ASSIGN_OR_RETURN(const sim::StepPlan* two_ps, simulator.Plan(1, 2));
  CLAB_ASSIGN_OR_RETURN(const sim::Calibration fitted, sim::FitCalibration(measured, *compiled, two_ps));
  // The costs of sharing this machine, from the run with two workers, simulated on this
  // machine as the benchmark's loopback setting describes it.
  sim::ContentionMeasurement shared;
  shared.workers = configs[2].workers;
  shared.steps_per_second = runs_of[2].total_steps_per_second;
  shared.ps_cpu_per_step = runs_of[2].ps_cpu_per_step;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  say("fitting what sharing this machine's cores costs");
  return sim::FitContention(fitted, project, SettingPlatform(SimBenchmarkSetting{}, cores), shared, say);
}

}  // namespace clab::cli
