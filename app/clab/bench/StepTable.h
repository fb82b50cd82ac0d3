// How `clab bench step` shows its rows: a table for people (one line per row, the
// runtime's figures beside the floor's, the ratio and its target), and JSON for tools.
#pragma once

#include "bench/StepBenchmark.h"

#include <string>
#include <vector>

namespace clab::cli {

std::string FormatBenchmarkTable(const std::vector<BenchmarkRow>& rows);
std::string BenchmarkRowsToJson(const std::vector<BenchmarkRow>& rows);

}  // namespace clab::cli
