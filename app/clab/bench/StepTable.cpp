#include "bench/StepTable.h"

#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

namespace clab::cli {

std::string FormatBenchmarkTable(const std::vector<BenchmarkRow>& rows) {
  std::string table = absl::StrFormat("%-10s %-14s %10s %9s %7s   %10s %9s %7s %8s  %s\n", "mode", "measurement",
                                      "clab us", "cpu us", "cs", "floor us", "cpu us", "cs", "ratio", "target");
  for (const BenchmarkRow& row : rows) {
    std::string target = "-";
    if (row.target_ratio > 0)
      target = absl::StrFormat("<= %.1fx %s", row.target_ratio, row.ratio <= row.target_ratio ? "met" : "MISSED");
    table += absl::StrFormat("%-10s %-14s %10.1f %9.1f %7.2f   %10.1f %9.1f %7.2f %7.2fx  %s\n", row.mode, row.name,
                             row.median_us, row.cost.cpu_us, row.cost.context_switches, row.floor_us,
                             row.floor_cost.cpu_us, row.floor_cost.context_switches, row.ratio, target);
  }
  table +=
      "clab us / floor us: median latency per call; ratio: clab / floor (1.00x: as fast as plain gRPC).\n"
      "cpu us, cs: CPU time and context switches per call of this process and the server called\n"
      "(the ps for ClusterLab, the floor server for the floor).\n";
  return table;
}

std::string BenchmarkRowsToJson(const std::vector<BenchmarkRow>& rows) {
  nlohmann::json json = nlohmann::json::array();
  for (const BenchmarkRow& row : rows) {
    json.push_back({{"mode", row.mode},
                    {"measurement", row.name},
                    {"payload_bytes", row.payload_bytes},
                    {"median_us", row.median_us},
                    {"per_second", row.per_second},
                    {"cpu_us_per_call", row.cost.cpu_us},
                    {"context_switches_per_call", row.cost.context_switches},
                    {"grpc_floor_us", row.floor_us},
                    {"floor_cpu_us_per_call", row.floor_cost.cpu_us},
                    {"floor_context_switches_per_call", row.floor_cost.context_switches},
                    {"ratio", row.ratio},
                    {"target_ratio", row.target_ratio}});
  }
  return json.dump(2) + "\n";
}

}  // namespace clab::cli
