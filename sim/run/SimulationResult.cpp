#include "run/SimulationResult.h"

#include "clab/core/JsonNesting.h"

#include <nlohmann/json.hpp>

namespace clab::sim {
namespace {

using nlohmann::json;

template <typename T, typename F>
double MeanOf(const std::vector<T>& items, F field) {
  if (items.empty()) return 0;
  double sum = 0;
  for (const T& item : items) sum += field(item);
  return sum / static_cast<double>(items.size());
}

}  // namespace

double SimulationResult::MeanStepSeconds() const {
  return MeanOf(workers, [](const WorkerSteps& w) { return w.steps_per_second > 0 ? 1 / w.steps_per_second : 0; });
}
double SimulationResult::MeanCompute() const {
  return MeanOf(workers, [](const WorkerSteps& w) { return w.compute; });
}
double SimulationResult::MeanTransfer() const {
  return MeanOf(workers, [](const WorkerSteps& w) { return w.transfer; });
}
double SimulationResult::MeanWaiting() const {
  return MeanOf(workers, [](const WorkerSteps& w) { return w.waiting; });
}

const ResourceLoad* SimulationResult::FindResource(const std::string& name) const {
  for (const ResourceLoad& resource : resources)
    if (resource.name == name) return &resource;
  return nullptr;
}

SimulationResult SimulationResult::Mean(const std::vector<SimulationResult>& runs) {
  if (runs.empty()) return SimulationResult();
  SimulationResult mean = runs.front();
  const double n = static_cast<double>(runs.size());
  mean.total_steps_per_second = 0;
  mean.simulated_seconds = 0;
  mean.wall_seconds = 0;
  mean.served_cpu_per_step = mean.awake_call_share = 0;
  for (WorkerSteps& w : mean.workers) w.steps_per_second = w.compute = w.transfer = w.waiting = 0;
  for (ResourceLoad& r : mean.resources) r.mean = r.peak = r.amount = 0;
  for (const SimulationResult& run : runs) {
    mean.total_steps_per_second += run.total_steps_per_second / n;
    mean.simulated_seconds += run.simulated_seconds / n;
    mean.wall_seconds += run.wall_seconds;
    mean.served_cpu_per_step += run.served_cpu_per_step / n;
    mean.awake_call_share += run.awake_call_share / n;
    for (size_t i = 0; i < mean.workers.size() && i < run.workers.size(); ++i) {
      mean.workers[i].steps_per_second += run.workers[i].steps_per_second / n;
      mean.workers[i].compute += run.workers[i].compute / n;
      mean.workers[i].transfer += run.workers[i].transfer / n;
      mean.workers[i].waiting += run.workers[i].waiting / n;
    }
    for (size_t i = 0; i < mean.resources.size() && i < run.resources.size(); ++i) {
      mean.resources[i].mean += run.resources[i].mean / n;
      mean.resources[i].peak += run.resources[i].peak / n;
      mean.resources[i].amount += run.resources[i].amount / n;
    }
  }
  return mean;
}

std::string SimulationResult::ToJsonText() const {
  json root;
  root["config"] = json{{"workers", config.workers},
                        {"ps", config.ps},
                        {"sync", config.sync},
                        {"steps", config.steps},
                        {"seed", config.seed},
                        {"trace_steps", config.trace_steps},
                        {"trace_workers", config.trace_workers},
                        {"max_simulated_workers", config.max_simulated_workers},
                        {"replicas", config.replicas}};
  root["simulated_seconds"] = simulated_seconds;
  root["wall_seconds"] = wall_seconds;
  root["total_steps_per_second"] = total_steps_per_second;
  root["timeline_bin_seconds"] = timeline_bin_seconds;
  root["bytes_per_step"] = bytes_per_step;
  root["calls_per_step"] = calls_per_step;
  root["served_cpu_per_step"] = served_cpu_per_step;
  root["awake_call_share"] = awake_call_share;
  root["bottleneck"] = bottleneck;
  root["bottleneck_resource"] = bottleneck_resource;
  json workers_json = json::array();
  for (const WorkerSteps& w : workers)
    workers_json.push_back(json{{"task", w.task},
                                {"host", w.host},
                                {"steps", w.steps},
                                {"steps_per_second", w.steps_per_second},
                                {"compute", w.compute},
                                {"transfer", w.transfer},
                                {"waiting", w.waiting}});
  root["workers"] = workers_json;
  json resources_json = json::array();
  for (const ResourceLoad& r : resources)
    resources_json.push_back(json{{"name", r.name},
                                  {"kind", r.kind},
                                  {"owner", r.owner},
                                  {"capacity", r.capacity},
                                  {"amount", r.amount},
                                  {"mean", r.mean},
                                  {"peak", r.peak},
                                  {"timeline", r.timeline}});
  root["resources"] = resources_json;
  json trace_json = json::array();
  for (const TraceSpan& s : trace)
    trace_json.push_back(
        json{{"task", s.task}, {"lane", s.lane}, {"name", s.name}, {"start", s.start}, {"duration", s.duration}});
  root["trace"] = trace_json;
  return root.dump();
}

StatusOr<SimulationResult> SimulationResult::FromJsonText(const std::string& text) {
  SimulationResult r;
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, "simulation result"));
  try {
    const json root = json::parse(text);
    const json& c = root.at("config");
    r.config.workers = c.at("workers");
    r.config.ps = c.at("ps");
    r.config.sync = c.at("sync");
    r.config.steps = c.at("steps");
    r.config.seed = c.at("seed");
    r.config.trace_steps = c.at("trace_steps");
    r.config.trace_workers = c.at("trace_workers");
    r.config.max_simulated_workers = c.at("max_simulated_workers");
    r.config.replicas = c.at("replicas");
    r.simulated_seconds = root.at("simulated_seconds");
    r.wall_seconds = root.at("wall_seconds");
    r.total_steps_per_second = root.at("total_steps_per_second");
    r.timeline_bin_seconds = root.at("timeline_bin_seconds");
    r.bytes_per_step = root.at("bytes_per_step");
    r.calls_per_step = root.at("calls_per_step");
    r.served_cpu_per_step = root.at("served_cpu_per_step");
    r.awake_call_share = root.at("awake_call_share");
    r.bottleneck = root.at("bottleneck");
    r.bottleneck_resource = root.at("bottleneck_resource");
    for (const json& w : root.at("workers"))
      r.workers.push_back(WorkerSteps{w.at("task"), w.at("host"), w.at("steps"), w.at("steps_per_second"),
                                      w.at("compute"), w.at("transfer"), w.at("waiting")});
    for (const json& x : root.at("resources"))
      r.resources.push_back(ResourceLoad{x.at("name"), x.at("kind"), x.at("owner"), x.at("capacity"), x.at("amount"),
                                         x.at("mean"), x.at("peak"), x.at("timeline").get<std::vector<double>>()});
    for (const json& s : root.at("trace"))
      r.trace.push_back(TraceSpan{s.at("task"), s.at("lane"), s.at("name"), s.at("start"), s.at("duration")});
  } catch (const json::exception& e) {
    return errors::Internal("the simulation's result does not read back: ", e.what());
  }
  return r;
}

}  // namespace clab::sim
