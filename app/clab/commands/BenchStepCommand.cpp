#include "commands/BenchStepCommand.h"

#include "bench/StepBenchmark.h"
#include "bench/StepTable.h"
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
  return "Starts a ps task ('clab server') and a minimal plain gRPC server ('clab bench\n"
         "floor-server', a synchronous service with Echo and Fetch) as processes of their own,\n"
         "runs the worker's server and a session in this process, on free 127.0.0.1 ports, then\n"
         "measures:\n"
         "  seed step        one run of the seed program's MatMul (x and w live on the ps),\n"
         "                   beside a plain gRPC Echo of 16 bytes\n"
         "  pull N           fetching a float32 variable of N bytes from the ps (1 KiB, 64 KiB\n"
         "                   and 4 MiB), beside a plain gRPC Fetch of the same bytes\n"
         "with the median latency, and the CPU time and context switches per call of this\n"
         "process and the server called. Targets: at most 1.3x the floor for the step and pulls\n"
         "up to 64 KiB, 1.5x for bigger pulls. The processes are pinned per mode: one-core (all\n"
         "on CPU 0) and two-cores (this process on CPU 0, the servers on CPU 1). Each round\n"
         "measures every row's runtime and floor one after the other, --steps calls each (fewer\n"
         "for big pulls); figures are medians over --rounds rounds. Both servers are stopped at\n"
         "the end.";
}

void BenchStepCommand::DeclareFlags(FlagParser& flags) {
  flags.AddInt("rounds", "N", "interleaved rounds (the median over them is reported)", &rounds_, 1);
  flags.AddInt("steps", "N", "calls per round for the step and small pulls (fewer for big pulls)", &steps_, 1, 1000000);
  flags.AddStringList("mode", "MODE", "one-core, two-cores or unpinned (default: one-core and two-cores)", &modes_);
  flags.AddStringList("size", "N", "a pull size in float32 elements (default: 256, 16384, 1048576)", &sizes_);
  flags.AddString("json", "FILE", "also write the rows as JSON to FILE", &json_path_);
}

Status BenchStepCommand::Run(std::ostream& out) {
  StepBenchmarkOptions options;
  options.clab_program = ChildProcess::SelfPath();
  options.rounds = static_cast<int>(rounds_);
  options.steps = static_cast<int>(steps_);
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
      << "Each runtime figure is beside a plain synchronous gRPC call of the same payload to a\n"
      << "minimal server process (the floor), measured in the same rounds.\n"
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
