#include "sim/ShapedNetwork.h"

#include "launch/process/ChildProcess.h"

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>

namespace clab::cli {
using launch::ChildProcess;
namespace {

constexpr const char* kPrefix = "clab-sim-";

std::atomic<int> next_network{0};

// A program on PATH, or in the system folders root's PATH has and others' may not.
std::string FindProgram(const std::string& name) {
  std::vector<std::string> folders =
      absl::StrSplit(std::getenv("PATH") ? std::getenv("PATH") : "", ':', absl::SkipEmpty());
  folders.insert(folders.end(), {"/usr/sbin", "/sbin", "/usr/bin", "/bin"});
  for (const std::string& folder : folders) {
    const std::string path = folder + "/" + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return name;
}

// Runs a command to its end; its output names what went wrong.
Status RunTool(const std::vector<std::string>& args) {
  CLAB_ASSIGN_OR_RETURN(
      std::unique_ptr<ChildProcess> tool,
      ChildProcess::Start(FindProgram(args.front()), std::vector<std::string>(args.begin() + 1, args.end()), {}));
  const std::optional<int> status = tool->Wait(std::chrono::seconds(30));
  if (status && *status == 0) return OkStatus();
  return errors::FailedPrecondition("'", absl::StrJoin(args, " "), "' failed",
                                    status ? absl::StrCat(" (status ", *status, ")") : " (timed out)", ": ",
                                    absl::StrJoin(tool->lines(), " "));
}

}  // namespace

// The NIC of a task, one direction: one htb class at the full rate, its packets in one FIFO
// queue of kQueuePackets, whatever peer they go to or come from, as a NIC and a switch port
// queue them; the flows through it share it as TCP shares a bottleneck.
Status ShapedNetwork::Shape(const std::string& ns, const std::string& device) {
  const std::string rate = absl::StrCat(static_cast<int64_t>(std::llround(rate_)), "bit");
  CLAB_RETURN_IF_ERROR(
      Run({"tc", "-n", ns, "qdisc", "add", "dev", device, "root", "handle", "1:", "htb", "default", "1"}));
  CLAB_RETURN_IF_ERROR(Run({"tc", "-n", ns, "class", "add", "dev", device, "parent", "1:", "classid", "1:1", "htb",
                            "rate", rate, "ceil", rate, "quantum", "1514"}));
  return Run({"tc", "-n", ns, "qdisc", "add", "dev", device, "parent", "1:1", "handle", "10:", "pfifo", "limit",
              std::to_string(kQueuePackets)});
}

std::string ShapedNetwork::IpProgram() { return FindProgram("ip"); }

std::string ShapedNetwork::Address(int task) const { return absl::StrCat("198.18.0.", task + 2); }

Status ShapedNetwork::Run(const std::vector<std::string>& args) { return RunTool(args); }

void ShapedNetwork::RemoveStale() {
  StatusOr<std::unique_ptr<ChildProcess>> list = ChildProcess::Start(IpProgram(), {"netns", "list"}, {});
  if (!list.ok()) return;
  (*list)->Wait(std::chrono::seconds(10));
  for (const std::string& line : (*list)->lines()) {
    const std::string name =
        std::string(absl::StripAsciiWhitespace(std::vector<std::string>(absl::StrSplit(line, ' ')).front()));
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::vector<std::string> parts = absl::StrSplit(name.substr(std::string(kPrefix).size()), '-');
    int pid = 0;
    if (parts.empty() || !absl::SimpleAtoi(parts[0], &pid) || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno == EPERM) continue;  // its maker still runs
    RunTool({"ip", "netns", "del", name}).IgnoreError();
  }
}

StatusOr<std::unique_ptr<ShapedNetwork>> ShapedNetwork::Create(int tasks, double rate_bits_per_second) {
  std::unique_ptr<ShapedNetwork> network(new ShapedNetwork());
  network->rate_ = rate_bits_per_second;
  const std::string base = absl::StrCat(kPrefix, ::getpid(), "-", next_network++);
  network->bridge_ = base + "-br";
  CLAB_RETURN_IF_ERROR(network->Run({"ip", "netns", "add", network->bridge_}));
  const std::string& br = network->bridge_;
  CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", br, "link", "set", "lo", "up"}));
  CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", br, "link", "add", "simbr", "type", "bridge"}));
  CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", br, "link", "set", "simbr", "up"}));
  for (int t = 0; t < tasks; ++t) {
    const std::string ns = absl::StrCat(base, "-t", t);
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "netns", "add", ns}));
    network->namespaces_.push_back(ns);
    const std::string peer = absl::StrCat("simb", t);
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", ns, "link", "set", "lo", "up"}));
    CLAB_RETURN_IF_ERROR(
        network->Run({"ip", "-n", ns, "link", "add", "simv", "type", "veth", "peer", "name", peer, "netns", br}));
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", ns, "addr", "add", network->Address(t) + "/24", "dev", "simv"}));
    // One frame per packet at the qdiscs: a segmentation-offload packet of 64 KiB would pass
    // a rate limiter at once on credit, and a message would cross an idle link unlimited.
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", ns, "link", "set", "simv", "gso_max_segs", "1"}));
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", br, "link", "set", peer, "gso_max_segs", "1"}));
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", ns, "link", "set", "simv", "up"}));
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", br, "link", "set", peer, "master", "simbr"}));
    CLAB_RETURN_IF_ERROR(network->Run({"ip", "-n", br, "link", "set", peer, "up"}));
  }
  if (rate_bits_per_second > 0)
    for (int t = 0; t < tasks; ++t) {
      CLAB_RETURN_IF_ERROR(network->Shape(network->namespaces_[static_cast<size_t>(t)], "simv"));
      CLAB_RETURN_IF_ERROR(network->Shape(br, absl::StrCat("simb", t)));
    }
  return network;
}

ShapedNetwork::~ShapedNetwork() {
  // Deleting a namespace deletes its end of each veth pair, and so the pair.
  for (const std::string& ns : namespaces_) RunTool({"ip", "netns", "del", ns}).IgnoreError();
  if (!bridge_.empty()) RunTool({"ip", "netns", "del", bridge_}).IgnoreError();
}

}  // namespace clab::cli
