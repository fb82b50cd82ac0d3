#include "report/SimulationFiles.h"

#include "platform/PlatformSpec.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace clab::sim {
namespace {

Status WriteFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return errors::PermissionDenied(path, ": cannot write");
    out << text;
    if (!out.flush()) return errors::DataLoss(path, ": writing failed");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return errors::PermissionDenied(path, ": cannot write");
  return OkStatus();
}

std::string FileName(std::string text) {
  for (char& c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) c = '-';
  return text;
}

}  // namespace

std::string SimulationChromeTrace(const SimulationResult& result) {
  using nlohmann::json;
  json events = json::array();
  std::map<std::string, int> pid_of;
  std::map<std::pair<int, std::string>, int> tid_of;
  auto pid = [&](const std::string& task) {
    auto [it, inserted] = pid_of.try_emplace(task, static_cast<int>(pid_of.size()) + 1);
    if (inserted)
      events.push_back(
          json{{"ph", "M"}, {"name", "process_name"}, {"pid", it->second}, {"args", {{"name", TaskLabel(task)}}}});
    return it->second;
  };
  auto tid = [&](int process, const std::string& lane) {
    auto [it, inserted] = tid_of.try_emplace({process, lane}, static_cast<int>(tid_of.size()) + 1);
    if (inserted)
      events.push_back(json{
          {"ph", "M"}, {"name", "thread_name"}, {"pid", process}, {"tid", it->second}, {"args", {{"name", lane}}}});
    return it->second;
  };
  double traced_end = 0;
  for (const TraceSpan& span : result.trace) {
    const int process = pid(span.task);
    events.push_back(json{{"ph", "X"},
                          {"name", span.name},
                          {"pid", process},
                          {"tid", tid(process, span.lane)},
                          {"ts", span.start * 1e6},
                          {"dur", span.duration * 1e6}});
    traced_end = std::max(traced_end, span.start + span.duration);
  }
  // The load of the ps and the shared links while the traced steps ran.
  for (const ResourceLoad& resource : result.resources) {
    if (resource.timeline.empty() || resource.owner.rfind("worker", 0) == 0) continue;
    const int process = pid(resource.owner.empty() ? "network" : resource.owner);
    for (size_t bin = 0; bin < resource.timeline.size(); ++bin) {
      const double t = static_cast<double>(bin) * result.timeline_bin_seconds;
      if (t > traced_end && bin > 0) break;
      events.push_back(json{{"ph", "C"},
                            {"name", resource.name + " %"},
                            {"pid", process},
                            {"ts", t * 1e6},
                            {"args", {{"busy", 100 * resource.timeline[bin]}}}});
    }
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
}

Status WriteChromeTrace(const SimulationResult& result, const std::string& path) {
  return WriteFile(path, SimulationChromeTrace(result));
}

Status WriteTaskCsvs(const SimulationResult& result, const std::string& dir, const std::string& prefix) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return errors::PermissionDenied(dir, ": cannot make the folder: ", error.message());
  std::string summary = "task,host,steps,steps_per_second,compute_s,transfer_s,waiting_s\n";
  for (const WorkerSteps& w : result.workers)
    summary += absl::StrFormat("%s,%s,%d,%.6g,%.6g,%.6g,%.6g\n", TaskLabel(w.task), w.host, w.steps, w.steps_per_second,
                               w.compute, w.transfer, w.waiting);
  CLAB_RETURN_IF_ERROR(WriteFile((std::filesystem::path(dir) / (prefix + "workers.csv")).string(), summary));
  // One file per owner (a ps, a host's tasks, the shared network), a column per resource.
  std::map<std::string, std::vector<const ResourceLoad*>> by_owner;
  for (const ResourceLoad& resource : result.resources)
    if (!resource.timeline.empty()) by_owner[resource.owner.empty() ? "network" : resource.owner].push_back(&resource);
  for (const auto& [owner, resources] : by_owner) {
    std::string text = "time_s";
    size_t bins = 0;
    for (const ResourceLoad* r : resources) {
      text += absl::StrCat(",", FileName(r->name), "_busy");
      bins = std::max(bins, r->timeline.size());
    }
    text += "\n";
    for (size_t bin = 0; bin < bins; ++bin) {
      text += absl::StrFormat("%.6g", static_cast<double>(bin) * result.timeline_bin_seconds);
      for (const ResourceLoad* r : resources)
        text += absl::StrFormat(",%.4f", bin < r->timeline.size() ? r->timeline[bin] : 0.0);
      text += "\n";
    }
    CLAB_RETURN_IF_ERROR(WriteFile((std::filesystem::path(dir) / (prefix + FileName(owner) + ".csv")).string(), text));
  }
  return OkStatus();
}

}  // namespace clab::sim
