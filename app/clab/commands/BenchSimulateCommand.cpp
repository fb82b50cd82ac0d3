#include "commands/BenchSimulateCommand.h"

#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "launch/process/ChildProcess.h"
#include "sim/SessionPriority.h"
#include "sim/SimBenchmark.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

namespace clab::cli {
using launch::ChildProcess;

std::string BenchSimulateCommand::description() const {
  return "Calibrates the simulator on each project (one ps and one worker, two ps, two workers\n"
         "on this machine), then predicts and measures the same configurations (--configs: ps x\n"
         "workers) on loopback and with every task in a network namespace of its own, joined\n"
         "through a bridge namespace by veth links that htb limits to each --rates (Mbit/s, both\n"
         "ways; one FIFO queue of 100 packets at each end, as a NIC and its switch port), so that\n"
         "the network dominates. Prints the predicted and the measured steps/s (all workers; the\n"
         "median of --repeats interleaved runs) and the error, against the targets: 25% on\n"
         "loopback, 15% shaped. Namespaces are named clab-sim-<pid>-..., use 198.18.0.0/24 and\n"
         "are deleted afterwards; the root namespace gets no address or route. Needs root for the\n"
         "shaped runs.";
}

void BenchSimulateCommand::DeclareFlags(FlagParser& flags) {
  flags.AddString("projects", "LIST", "projects of examples/projects to run", &projects_);
  flags.AddString("rates", "LIST", "shaped rates in Mbit/s, or none", &rates_);
  flags.AddString("configs", "LIST", "configurations as PSxWORKERS", &configs_);
  flags.AddBool("no_loopback", "skip the loopback setting", &no_loopback_);
  flags.AddInt("repeats", "N", "measurements of each configuration", &repeats_, 1);
  flags.AddInt("seconds", "S", "how long each measured run trains", &seconds_, 2);
  flags.AddString("out", "DIR", "write the calibrations and platforms here", &out_dir_);
  flags.AddBool("verbose", "print each measurement as it is taken", &verbose_);
  flags.AddInt("nice", "N", "this session's niceness while it runs (-20..19; below 0 needs root)", &nice_, -20);
}

Status BenchSimulateCommand::Run(std::ostream& out) {
  SimBenchmarkOptions options;
  options.clab = launch::ChildProcess::SelfPath();
  const char* source = std::getenv("CLAB_SOURCE_DIR");
  options.project_dir =
      (std::filesystem::path(source ? source : CLAB_SOURCE_DIR_FALLBACK) / "examples" / "projects").string();
  options.projects = absl::StrSplit(projects_, ',', absl::SkipWhitespace());
  options.configs.clear();
  for (absl::string_view item : absl::StrSplit(configs_, ',', absl::SkipWhitespace())) {
    const std::vector<std::string> parts = absl::StrSplit(item, 'x');
    int ps = 0, workers = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &ps) || !absl::SimpleAtoi(parts[1], &workers) || ps < 1 ||
        workers < 1 || ps + workers > 200)
      return UsageError(absl::StrCat("--configs: '", item, "' is not PSxWORKERS (e.g. 1x4)"));
    options.configs.emplace_back(ps, workers);
  }
  if (!no_loopback_) options.settings.push_back({"loopback", 0, 0.25});
  for (absl::string_view item : absl::StrSplit(rates_, ',', absl::SkipWhitespace())) {
    if (item == "none") continue;
    double mbit = 0;
    if (!absl::SimpleAtod(item, &mbit) || mbit <= 0)
      return UsageError(absl::StrCat("--rates: '", item, "' is not Mbit/s"));
    options.settings.push_back({absl::StrCat(item, "Mbit/s"), mbit * 1e6, 0.15});
  }
  const bool shaped = options.settings.size() > (no_loopback_ ? 0u : 1u);
  if (shaped && ::geteuid() != 0)
    return errors::PermissionDenied("the shaped runs make network namespaces: run as root, or pass --rates none");
  // Other sessions' work on this machine takes a share of the cores from the measured tasks
  // that varies with how busy they are: a higher priority for this session keeps the
  // measurement to this machine's cores (SessionPriority.h).
  std::unique_ptr<SessionPriority> priority;
  if (nice_ != 0) {
    CLAB_ASSIGN_OR_RETURN(priority, SessionPriority::Set(static_cast<int>(nice_)));
  }
  options.repeats = static_cast<int>(repeats_);
  options.seconds = static_cast<double>(seconds_);
  options.out_dir = out_dir_;
  options.progress = [&](const std::string& line) {
    if (verbose_) out << "  " << line << std::endl;
  };
  if (nice_ != 0) out << "At niceness " << nice_ << "." << std::endl;
  out << "Calibrating, predicting and measuring " << projects_ << " (" << configs_ << ", " << repeats_ << " repeats of "
      << seconds_ << " s)..." << std::endl;
  CLAB_ASSIGN_OR_RETURN(const std::vector<SimBenchmarkRow> rows, RunSimBenchmark(options));
  out << "\n" << FormatSimBenchmark(rows) << SimBenchmarkJson(rows) << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
