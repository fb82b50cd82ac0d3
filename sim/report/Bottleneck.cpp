#include "report/Bottleneck.h"

#include "platform/PlatformSpec.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <algorithm>
#include <map>

namespace clab::sim {
namespace {

constexpr double kBusy = 0.7;

std::string Percent(double fraction) { return absl::StrFormat("%.0f%%", 100 * fraction); }

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The biggest message to or from `ps` (a task label, "ps 0") in a step, and its first
// tensor's variable ("hidden1/weights" for "hidden1/weights/read:0").
void BiggestTensor(const StepModel& model, const std::string& ps, std::string* tensor, int64_t* bytes) {
  for (const StepActivity& a : model.activities) {
    if (a.kind != StepActivity::Kind::kMessage || a.tensors.empty()) continue;
    if (TaskLabel(a.task) != ps && TaskLabel(a.to) != ps) continue;
    if (a.bytes <= *bytes) continue;
    *bytes = a.bytes;
    *tensor = a.tensors.front();
    if (tensor->find(':') != std::string::npos) tensor->erase(tensor->find(':'));
    if (EndsWith(*tensor, "/read")) tensor->erase(tensor->size() - 5);
  }
}

}  // namespace

std::string FormatBytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return absl::StrFormat("%.3g GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return absl::StrFormat("%.3g MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0) return absl::StrFormat("%.3g KiB", bytes / 1024.0);
  return absl::StrFormat("%.0f B", bytes);
}

Bottleneck FindBottleneck(const SimulationResult& result, const StepModel& model) {
  Bottleneck b;
  b.workers = static_cast<int>(result.workers.size());
  b.calls = result.calls_per_step;
  // The busiest resource, and each ps's share of the bytes its NICs carry.
  const ResourceLoad* busiest = nullptr;
  double ps_bytes = 0;
  std::map<std::string, double> bytes_of_owner;
  for (const ResourceLoad& r : result.resources) {
    if (!busiest || r.mean > busiest->mean) busiest = &r;
    if (r.kind == "link" && r.owner.rfind("ps", 0) == 0 && r.name.find(" NIC ") != std::string::npos) {
      ps_bytes += r.amount;
      bytes_of_owner[r.owner] += r.amount;
    }
  }
  const double step = result.MeanStepSeconds();
  const double compute_share = step > 0 ? result.MeanCompute() / step : 0;
  // Synchronous steps: how much slower is the slowest worker's compute than the median?
  std::vector<double> computes;
  for (const WorkerSteps& w : result.workers) computes.push_back(w.compute);
  std::sort(computes.begin(), computes.end());
  const double median_compute = computes.empty() ? 0 : computes[computes.size() / 2];
  const WorkerSteps* slowest = nullptr;
  for (const WorkerSteps& w : result.workers)
    if (!slowest || w.compute > slowest->compute) slowest = &w;

  if (busiest && busiest->mean >= kBusy) {
    b.resource = busiest->name;
    b.owner = busiest->owner;
    b.utilisation = busiest->mean;
    const bool ps = busiest->owner.rfind("ps", 0) == 0 && busiest->owner.find(',') == std::string::npos;
    const bool nic = busiest->name.find(" NIC ") != std::string::npos;
    b.direction = EndsWith(busiest->name, " out") ? "out" : EndsWith(busiest->name, " in") ? "in" : "";
    if (busiest->kind == "link" && ps && nic) {
      b.kind = Bottleneck::Kind::kPsNic;
      b.share = ps_bytes > 0 ? bytes_of_owner[busiest->owner] / ps_bytes : 1;
      BiggestTensor(model, busiest->owner, &b.tensor, &b.tensor_bytes);
      b.text = absl::StrCat(busiest->owner, "'s NIC (", b.direction, ") is ", Percent(b.utilisation),
                            " busy and carries ", Percent(b.share), " of the step's bytes: add a ps",
                            b.tensor.empty() ? ""
                                             : absl::StrCat(" or partition ", b.tensor, " (",
                                                            FormatBytes(static_cast<double>(b.tensor_bytes)), ")"));
    } else if (busiest->kind == "cpu" && ps) {
      b.kind = Bottleneck::Kind::kPsCpu;
      b.text = absl::StrCat(busiest->owner, "'s CPU is ", Percent(b.utilisation), " busy serving ", b.workers,
                            " workers' calls: add a ps or give it more or faster cores");
    } else if (busiest->kind == "cpu") {
      b.kind = Bottleneck::Kind::kSharedCpu;
      b.text = absl::StrCat("the CPU of ", busiest->name.substr(0, busiest->name.size() - 4), " (shared by ",
                            busiest->owner, ") is ", Percent(b.utilisation),
                            " busy: the tasks wait for cores; more cores or fewer tasks per host");
    } else if (busiest->owner.rfind("worker", 0) == 0) {
      b.kind = Bottleneck::Kind::kWorkerNic;
      b.text = absl::StrCat("the workers' NICs are ", Percent(b.utilisation),
                            " busy moving weights and gradients: faster worker links");
    } else {
      b.kind = Bottleneck::Kind::kSharedLink;
      b.text = absl::StrCat(busiest->name, " is ", Percent(b.utilisation),
                            " busy: every step's bytes cross it; a faster switch or uplink");
    }
    return b;
  }
  if (result.config.sync && slowest && median_compute > 0 && slowest->compute > 1.3 * median_compute) {
    b.kind = Bottleneck::Kind::kSlowestWorker;
    b.owner = TaskLabel(slowest->task);
    b.share = slowest->compute / median_compute;
    b.text = absl::StrCat("synchronous steps wait for the slowest worker: ", b.owner, "'s compute takes ",
                          absl::StrFormat("%.1f", b.share), "x the others': replace it, or train asynchronously");
    return b;
  }
  if (compute_share >= 0.5) {
    b.kind = Bottleneck::Kind::kCompute;
    b.share = compute_share;
    b.text = absl::StrCat("the workers' own compute is ", Percent(compute_share),
                          " of a step: more workers add throughput, faster ones shorten the step");
    return b;
  }
  b.kind = Bottleneck::Kind::kLatency;
  b.share = step > 0 ? 1 - compute_share : 0;
  b.text = absl::StrCat("no resource is busy: a step waits on its ", b.calls,
                        " calls' round trips (latency and serving); fewer calls or shorter latency help");
  return b;
}

}  // namespace clab::sim
