#include "clab/train/ChromeTrace.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace clab {

std::string StepStatsToChromeTrace(const tensorflow::StepStats& stats) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", "Allocators"}}}});
  int pid = 1;
  for (const auto& device : stats.dev_stats()) {
    const int compute_pid = pid++;
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", compute_pid},
                      {"args", {{"name", device.device() + " Compute"}}}});
    // Greedy lanes: an op goes to the first lane whose last op has ended.
    std::vector<int64_t> lane_end;
    for (const auto& node : device.node_stats()) {
      const int64_t start = node.all_start_micros();
      const int64_t duration = std::max<int64_t>(node.all_end_rel_micros(), 1);
      size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > start) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(0);
      lane_end[lane] = start + duration;
      std::string op = node.timeline_label();
      const size_t eq = op.find(" = ");
      std::string op_type = node.node_name();
      if (eq != std::string::npos) {
        op_type = op.substr(eq + 3);
        op_type = op_type.substr(0, op_type.find('('));
      }
      const bool transfer = op_type == "_Send" || op_type == "_Recv";
      events.push_back({{"ph", "X"},
                        {"cat", transfer ? "Transfer" : "Op"},
                        {"name", op_type},
                        {"pid", compute_pid},
                        {"tid", static_cast<int>(lane)},
                        {"ts", start},
                        {"dur", duration},
                        {"args", {{"name", node.node_name()}, {"op", op_type}, {"label", node.timeline_label()}}}});
    }
  }
  nlohmann::ordered_json doc;
  doc["traceEvents"] = events;
  return doc.dump(4);
}

}  // namespace clab
