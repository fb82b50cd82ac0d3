// The seed program as the tutorial runs it: one process per task.
//
//   ./bin/seed_distributed --job_name=ps --task_index=0 &
//   ./bin/seed_distributed --job_name=worker --task_index=0
//
// The worker prints the placement log (x and w on /job:ps/replica:0/task:0, MatMul on the
// worker) and [[20]] per step until StopAtStepHook(last_step=200); the ps serves until
// Ctrl-C. Flags:
//   --job_name=ps|worker   --task_index=N   --last_step=N   --checkpoint_dir=DIR
//   --faithful             (no global step increment, exactly as the tutorial: never stops
//                           by itself; --max_seconds=S ends it, 10 s by default)
//   --cluster=SPEC         (default "ps=127.0.0.1:2223;worker=127.0.0.1:2222"; also a JSON
//                           file or JSON text; TF_CONFIG's cluster when --cluster is absent
//                           and TF_CONFIG is set)
// The program itself is examples/seed/SeedProgram.cpp.

#include "seed/SeedProgram.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

namespace {

int Usage(const std::string& problem) {
  std::cerr << "seed_distributed: " << problem << "\n"
            << "usage: seed_distributed --job_name=ps|worker [--task_index=N] [--last_step=N] [--faithful]\n"
            << "                        [--max_seconds=S] [--checkpoint_dir=DIR] [--cluster=SPEC]\n";
  return 2;
}

bool ParseInt(std::string_view text, int64_t* value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size() && *value >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  clab::examples::SeedProgramOptions options;
  std::string cluster_text;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, 2) != "--") return Usage("expected --name=value, got '" + std::string(arg) + "'");
    const size_t eq = arg.find('=');
    // A bare "--faithful" is "--faithful=true".
    const std::string_view name = eq == std::string_view::npos ? arg.substr(2) : arg.substr(2, eq - 2);
    const std::string_view value = eq == std::string_view::npos ? std::string_view("true") : arg.substr(eq + 1);
    int64_t number = 0;
    if (name == "job_name") {
      options.job_name = value;
    } else if (name == "task_index" || name == "last_step" || name == "max_seconds") {
      if (!ParseInt(value, &number)) return Usage("--" + std::string(name) + " needs a number >= 0");
      if (name == "last_step") options.last_step = number;
      else if (name == "max_seconds") options.max_seconds = static_cast<double>(number);
      else options.task_index = static_cast<int>(number);
    } else if (name == "faithful") {
      options.faithful = value != "false" && value != "0";
    } else if (name == "checkpoint_dir") {
      options.checkpoint_dir = value;
    } else if (name == "cluster") {
      cluster_text = value;
    } else {
      return Usage("unknown flag --" + std::string(name));
    }
  }
  if (options.job_name != "ps" && options.job_name != "worker")
    return Usage("--job_name must be ps or worker (as in the tutorial)");

  const char* tf_config = std::getenv("TF_CONFIG");
  clab::StatusOr<clab::ClusterSpec> cluster = !cluster_text.empty() ? clab::ClusterSpec::Parse(cluster_text)
                                              : (tf_config && *tf_config)
                                                  ? clab::ClusterSpec::FromJson(tf_config)
                                                  : clab::ClusterSpec::Parse(clab::examples::kSeedDefaultCluster);
  if (!cluster.ok()) return Usage(std::string(cluster.status().message()));
  options.cluster = *cluster;

  const clab::Status status = clab::examples::RunSeedProgram(options, std::cout);
  if (!status.ok()) std::cerr << "seed_distributed: " << clab::FormatStatus(status) << "\n";
  // Everything the program says is written out, then it ends without running the exit
  // handlers: a thread of gRPC's completion queues can still be winding down when they run,
  // and it aborted the process there (rarely, under load), after the work was done and
  // before its buffered output was flushed.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status.ok() ? 0 : 1);
}
