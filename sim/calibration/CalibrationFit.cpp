#include "calibration/CalibrationFit.h"

#include "model/OpCosts.h"
#include "model/StepModel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

namespace clab::sim {
namespace {

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The worker's and the other tasks' CPU per step of `step` under `c` with the calls' and the
// client's costs replaced (the model is linear in them).
std::pair<double, double> CpuOf(const StepPlan& step, Calibration c, double client, double server, double fixed) {
  c.rpc.client_seconds = client;
  c.rpc.server_seconds = server;
  c.rpc.server_background_seconds = 0;
  c.step_client_seconds = fixed;
  c.step_background_seconds = 0;
  StatusOr<StepModel> model = BuildStepModel(step, c);
  if (!model.ok()) return {0, 0};
  return {model->WorkerSeconds(), model->OtherSeconds()};
}

// Least squares for (client, server, fixed) >= 0 from the worker's and the ps's CPU in the
// runs on one and on two ps; false when the system says nothing sensible.
bool FitCallCosts(const CalibrationMeasurements& m, const StepPlan& one, const StepPlan& two, const Calibration& c,
                  double* client, double* server, double* fixed) {
  // Rows: (base, d/d client, d/d server, d/d fixed, measured).
  std::vector<std::array<double, 5>> rows;
  for (const auto& [step, worker, ps] : {std::tuple{&one, m.worker_cpu_per_step, m.ps_cpu_per_step},
                                         std::tuple{&two, m.two_ps_worker_cpu_per_step, m.two_ps_ps_cpu_per_step}}) {
    const auto base = CpuOf(*step, c, 0, 0, 0);
    const auto dc = CpuOf(*step, c, 1, 0, 0), ds = CpuOf(*step, c, 0, 1, 0), df = CpuOf(*step, c, 0, 0, 1);
    rows.push_back({base.first, dc.first - base.first, ds.first - base.first, df.first - base.first, worker});
    rows.push_back({base.second, dc.second - base.second, ds.second - base.second, df.second - base.second, ps});
  }
  double a[3][3] = {}, b[3] = {};
  for (const auto& r : rows)
    for (int i = 0; i < 3; ++i) {
      b[i] += r[1 + i] * (r[4] - r[0]);
      for (int j = 0; j < 3; ++j) a[i][j] += r[1 + i] * r[1 + j];
    }
  // Gauss-Jordan on the 3x3 normal equations.
  for (int col = 0; col < 3; ++col) {
    int pivot = col;
    for (int row = col + 1; row < 3; ++row)
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    if (std::fabs(a[pivot][col]) < 1e-12) return false;
    std::swap(a[pivot], a[col]);
    std::swap(b[pivot], b[col]);
    for (int row = 0; row < 3; ++row) {
      if (row == col) continue;
      const double f = a[row][col] / a[col][col];
      for (int k = 0; k < 3; ++k) a[row][k] -= f * a[col][k];
      b[row] -= f * b[col];
    }
  }
  *client = b[0] / a[0][0];
  *server = b[1] / a[1][1];
  *fixed = b[2] / a[2][2];
  return *client >= 0 && *server > 0 && *fixed >= 0;
}

}  // namespace

StatusOr<Calibration> FitCalibration(const CalibrationMeasurements& m, const StepPlan& step, const StepPlan* two_ps) {
  if (!(m.steps_per_second > 0)) return errors::InvalidArgument("the real run made no steps to calibrate on");
  if (!(m.small_echo.wall > 0)) return errors::InvalidArgument("the gRPC echo was not measured");
  Calibration c;
  c.calibrated = true;
  c.project = m.project;
  c.machine = m.machine;
  for (const auto& [name, times] : m.node_seconds) c.node_seconds[name] = Median(times);

  // The FLOP-count model, for nodes a simulated graph has that the trace did not time: the
  // time of small ops, and the rate of the big ones beyond it.
  std::vector<double> small;
  double flops = 0, flop_seconds = 0;
  for (const PlanNode& node : step.nodes) {
    const auto it = c.node_seconds.find(node.name);
    if (node.IsTransfer() || it == c.node_seconds.end()) continue;
    const double node_flops = OpCosts::Flops(node);
    if (node_flops <= 1024) small.push_back(it->second);
  }
  if (!small.empty()) c.op_seconds = Median(small);
  for (const PlanNode& node : step.nodes) {
    const auto it = c.node_seconds.find(node.name);
    if (node.IsTransfer() || it == c.node_seconds.end()) continue;
    const double node_flops = OpCosts::Flops(node);
    if (node_flops < 1e4) continue;
    flops += node_flops;
    flop_seconds += std::max(it->second - c.op_seconds, 1e-7);
  }
  if (flops > 0 && flop_seconds > 0) c.flops_per_second = flops / flop_seconds;

  // A call: CPU at each end per call and per byte (an echo moves its bytes both ways, and each
  // end both writes and reads them), and the rest of its round trip as latency.
  const EchoMeasurement& s = m.small_echo;
  const EchoMeasurement& l = m.large_echo;
  c.rpc.client_seconds = s.client_cpu;
  c.rpc.server_seconds = s.server_cpu;
  if (l.bytes > s.bytes)
    c.rpc.seconds_per_byte = std::max(0.0, (l.client_cpu + l.server_cpu - s.client_cpu - s.server_cpu) /
                                               (4.0 * static_cast<double>(l.bytes - s.bytes)));
  c.rpc.latency = std::max(0.0, (s.wall - s.client_cpu - s.server_cpu) / 2);

  // The real run's CPU: the worker's beyond its nodes and calls is its client's (session,
  // hooks, master); the ps's beyond its nodes, its calls' (executor, gRPC).
  c.step_client_seconds = 0;
  CLAB_ASSIGN_OR_RETURN(StepModel model, BuildStepModel(step, c));
  c.step_client_seconds = std::max(0.0, m.worker_cpu_per_step - model.WorkerSeconds());
  const int served = std::max(1, model.server_calls);
  c.rpc.server_seconds =
      std::max(0.25 * s.server_cpu, c.rpc.server_seconds + (m.ps_cpu_per_step - model.OtherSeconds()) / served);
  double client = 0, server = 0, fixed = 0;
  if (two_ps && m.two_ps_worker_cpu_per_step > 0 && FitCallCosts(m, step, *two_ps, c, &client, &server, &fixed)) {
    c.rpc.client_seconds = client;
    c.rpc.server_seconds = server;
    c.step_client_seconds = fixed;
  }
  CLAB_ASSIGN_OR_RETURN(model, BuildStepModel(step, c));

  // One worker's step is one chain (client, call, ps, reply, compute, call, ps, reply): its
  // period is that CPU, the messages' latency and idle time. When the period is shorter than
  // the CPU the two processes spent, part of that CPU ran beside the step (polling threads):
  // it becomes background CPU, at each end in proportion to its CPU. (When even half the CPU
  // and the echoes' latency do not fit, the latency shrinks.)
  const double period = 1.0 / m.steps_per_second;
  const int messages = std::max(1, model.MessagesInSequence());
  const double worker_cpu = model.WorkerSeconds(), other_cpu = model.OtherSeconds();
  const double cpu = worker_cpu + other_cpu;
  if (period - messages * c.rpc.latency < 0.5 * cpu) c.rpc.latency = std::max(0.0, (period - 0.5 * cpu) / messages);
  const double critical = std::min(cpu, period - messages * c.rpc.latency);
  const double background = cpu - critical;
  if (background > 0 && cpu > 0) {
    const double worker_background = std::min(c.step_client_seconds, background * worker_cpu / cpu);
    c.step_client_seconds -= worker_background;
    c.step_background_seconds = worker_background;
    const double per_call = (background - worker_background) / served;
    c.rpc.server_background_seconds = std::min(per_call, 0.75 * c.rpc.server_seconds);
    c.rpc.server_seconds -= c.rpc.server_background_seconds;
  }
  c.step_idle_seconds = std::max(0.0, period - critical - messages * c.rpc.latency);

  // The spread of the worker's compute, from the middle half of the traced steps (a loaded
  // machine's outliers would otherwise read as jitter): sigma ~ IQR / 1.349.
  if (m.worker_step_seconds.size() >= 4) {
    std::vector<double> sorted = m.worker_step_seconds;
    std::sort(sorted.begin(), sorted.end());
    const double q1 = sorted[sorted.size() / 4], q3 = sorted[(3 * sorted.size()) / 4];
    const double median = Median(sorted);
    if (median > 0) c.jitter = std::clamp((q3 - q1) / 1.349 / median, 0.01, 0.5);
  }
  c.measured_steps_per_second = m.steps_per_second;
  c.measured_worker_cpu_per_step = m.worker_cpu_per_step;
  c.measured_ps_cpu_per_step = m.ps_cpu_per_step;
  return c;
}

}  // namespace clab::sim
