#include "commands/BenchStepCommand.h"

#include "bench/StepBenchmark.h"
#include "cli/CliStatus.h"
#include "cli/CpuPinning.h"
#include "cli/FlagParser.h"
#include "launch/process/ChildProcess.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>

#include <cstdio>
#include <fstream>
#include <ostream>

namespace clab::cli {

using launch::ChildProcess;
namespace {

// Writes next to the target and renames, so an interrupted run leaves the old file whole.
Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) return errors::PermissionDenied("cannot write '", temporary, "'");
    file << text;
    file.flush();
    if (!file) return errors::DataLoss("writing '", temporary, "' failed (disk full?)");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return errors::PermissionDenied("cannot replace '", path, "'");
  }
  return OkStatus();
}

}  // namespace

std::string BenchStepCommand::description() const {
  return "Starts a ps task as its own process ('clab server') and runs the worker's server and a\n"
         "session in this process, on free 127.0.0.1 ports, then measures:\n"
         "  seed step        one run of the seed program's MatMul (x and w live on the ps)\n"
         "  pull N floats    fetching a float32 variable of N elements from the ps\n"
         "each beside the floor measured in the same run against the same ps process: a bare\n"
         "gRPC Echo of 16 bytes for the step, a bare gRPC Fetch of the same bytes for a pull.\n"
         "Both processes are pinned per mode: one-core (both on CPU 0) and two-cores (CPU 0\n"
         "and CPU 1); small-message latency differs a lot between the two. Medians of\n"
         "--iterations calls, then the median over --repeats repeats; floor and runtime\n"
         "alternate within each repeat.";
}

void BenchStepCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("repeats", "N", "repeats per measurement (the median over them is reported)", &repeats_, 1);
  flags.AddInt("iterations", "N", "calls per repeat for the step (fewer for big pulls)", &iterations_, 1);
  flags.AddStringList("mode", "MODE", "one-core, two-cores or unpinned (default: one-core and two-cores)", &modes_);
  flags.AddStringList("size", "N", "a pull size in float32 elements (default: 1000, 100000, 1000000)", &sizes_);
  flags.AddString("json", "FILE", "also write the rows as JSON to FILE", &json_path_);
}

Status BenchStepCommand::Run(std::ostream& out) {
  StepBenchmarkOptions options;
  options.clab_program = ChildProcess::SelfPath();
  options.repeats = static_cast<int>(repeats_);
  options.iterations = static_cast<int>(iterations_);
  options.modes = modes_;
  if (options.modes.empty()) {
    options.modes = {"one-core"};
    if (OnlineCpuCount() >= 2) options.modes.push_back("two-cores");
  }
  if (!sizes_.empty()) {
    options.pull_sizes.clear();
    for (const std::string& text : sizes_) {
      int64_t size = 0;
      if (!absl::SimpleAtoi(text, &size) || size < 1 || size > (int64_t{16} << 20))
        return UsageError(absl::StrCat("--size '", text, "': want a number of elements from 1 to 16777216"));
      options.pull_sizes.push_back(size);
    }
  }
  options.progress = [&out](const std::string& line) { out << "  " << line << std::endl; };

  out << "Seed step and variable pulls: ps in its own process, worker and session in this one, " << OnlineCpuCount()
      << " CPUs online.\n"
      << "Each runtime figure is beside a bare gRPC call of the same payload to the same ps (the floor).\n"
      << std::endl;
  CLAB_ASSIGN_OR_RETURN(const std::vector<BenchmarkRow> rows, RunStepBenchmark(options));
  out << "\n" << FormatBenchmarkTable(rows);
  if (!json_path_.empty()) {
    CLAB_RETURN_IF_ERROR(WriteFileAtomically(json_path_, BenchmarkRowsToJson(rows)));
    out << "\nWrote " << json_path_ << std::endl;
  }
  return OkStatus();
}

}  // namespace clab::cli
