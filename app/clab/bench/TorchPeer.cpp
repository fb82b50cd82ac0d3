#include "bench/TorchPeer.h"

#include "launch/process/ChildProcess.h"

#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <vector>

namespace clab::cli {
namespace {

using launch::ChildProcess;

constexpr char kResult[] = "RESULT ";
constexpr char kVersion[] = "torch ";

// The torch version `python` imports with RPC support, or empty when it cannot.
std::string TorchVersion(const std::string& python) {
  StatusOr<std::unique_ptr<ChildProcess>> probe =
      ChildProcess::Start(python,
                          {"-c",
                           "import torch, torch.distributed.rpc as r; assert r.is_available(); print('torch', "
                           "torch.__version__)"},
                          {});
  if (!probe.ok()) return "";
  const std::optional<int> exit = (*probe)->Wait(std::chrono::seconds(120));
  if (!exit || *exit != 0) return "";
  for (const std::string& line : (*probe)->lines())
    if (line.rfind(kVersion, 0) == 0) return line.substr(sizeof(kVersion) - 1);
  return "";
}

}  // namespace

TorchPeer::TorchPeer(std::string python, std::string script, std::string torch_version)
    : python_(std::move(python)), script_(std::move(script)), torch_version_(std::move(torch_version)) {}

StatusOr<std::unique_ptr<TorchPeer>> TorchPeer::Find(const std::string& python, const std::string& script) {
  if (!std::filesystem::exists(script))
    return errors::FailedPrecondition("PyTorch peer: script not found at ", script, " (--torch_script)");
  std::vector<std::string> candidates;
  if (!python.empty()) {
    candidates.push_back(python);
  } else {
    if (StatusOr<std::string> on_path = ChildProcess::FindProgram("python3"); on_path.ok())
      candidates.push_back(*on_path);
    if (candidates.empty() || candidates.front() != "/usr/bin/python3") candidates.push_back("/usr/bin/python3");
  }
  for (const std::string& candidate : candidates) {
    const std::string version = TorchVersion(candidate);
    if (!version.empty()) return std::unique_ptr<TorchPeer>(new TorchPeer(candidate, script, version));
  }
  if (!python.empty())
    return errors::FailedPrecondition("PyTorch peer: ", python, " cannot import torch with RPC support");
  return errors::FailedPrecondition("PyTorch peer: not installed (apt install python3-torch)");
}

StatusOr<TrainRun> TorchPeer::Run(int workers, int64_t steps, int hidden, const std::string& data_path) const {
  CLAB_ASSIGN_OR_RETURN(
      std::unique_ptr<ChildProcess> process,
      ChildProcess::Start(python_,
                          {script_, "--workers", std::to_string(workers), "--steps", std::to_string(steps), "--hidden",
                           std::to_string(hidden), "--data", data_path},
                          {}));
  const std::optional<int> exit = process->Wait(std::chrono::minutes(30));
  if (!exit || *exit != 0) {
    const std::vector<std::string> lines = process->lines();
    const size_t tail = lines.size() > 8 ? lines.size() - 8 : 0;
    return errors::Internal("the PyTorch peer (", script_, ") ",
                            exit ? "exited with status " + std::to_string(*exit) : std::string("did not finish"), ": ",
                            absl::StrJoin(lines.begin() + static_cast<long>(tail), lines.end(), " / "));
  }
  for (const std::string& line : process->lines()) {
    if (line.rfind(kResult, 0) != 0) continue;
    const nlohmann::json result = nlohmann::json::parse(line.substr(sizeof(kResult) - 1), nullptr, false);
    if (result.is_discarded() || !result.contains("steps") || !result.contains("seconds"))
      return errors::DataLoss("the PyTorch peer reported an unreadable result: '", line, "'");
    TrainRun run;
    run.steps = result["steps"].get<int64_t>();
    run.seconds = result["seconds"].get<double>();
    run.cpu_us = result["cpu_us_per_step"].get<double>();
    run.context_switches = result["context_switches_per_step"].get<double>();
    if (result["accuracy"].is_number()) run.accuracy = result["accuracy"].get<double>();
    return run;
  }
  return errors::DataLoss("the PyTorch peer ended without a RESULT line");
}

}  // namespace clab::cli
