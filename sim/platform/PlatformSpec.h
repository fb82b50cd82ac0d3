// The platform a cluster is simulated on: hosts (cores, speed), the links that join them
// (bandwidth, latency) and their topology: a star through one switch, a two-level tree of
// racks, or a SimGrid platform XML file. Stored as JSON, in a file (`--platform FILE`) or in
// a project's "platform" section:
//
//   {"topology": "star",
//    "host": {"cores": 8, "speed": 1.0},                 every task's own host, unless "tasks"
//    "link": {"bandwidth": "10Gbps", "latency": "50us"}, says otherwise: each host's NIC
//                          (a rate limiter's link may add "burst": "1600B", its bucket)
//    "switch": {"bandwidth": "100Gbps", "latency": "1us"},          optional backplane (star)
//    "rack": {"hosts": 16, "uplink": {"bandwidth": "40Gbps", "latency": "2us"}},   tree only
//    "loopback": {"bandwidth": "100GBps", "latency": "0us"},  between tasks on one host
//    "payload_fraction": 0.97,           the share of a link's rate that carries payload
//    "hosts": [{"name": "big", "cores": 32, "speed": 2.0, "link": {...}, "machine": "box"}],
//    "machines": [{"name": "box", "cores": 2, "speed": 1.0}],
//    "tasks": {"/job:ps/task:0": "big", "/job:worker/*": ["a", "b"], "*": "big"}}
//
// A host's speed is relative to one core of the machine the calibration ran on (1.0: as
// fast). A host that names a "machine" computes on that machine's cores, shared with the
// other hosts on it (tasks in network namespaces of one computer), but has its own link.
// "tasks" maps task names, "/job:J/*" or "*" to a host or a list of hosts (taken in turn);
// a task it does not map gets a host of its own made from "host" and "link". A "topology":
// "xml" platform gives "xml": a SimGrid platform file (relative to the platform file), whose
// hosts "tasks" names (tasks it does not map go round the file's hosts in name order).
#pragma once

#include "clab/core/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace clab::sim {

struct LinkSpec {
  double bandwidth = 1.25e9;  // bytes per second (10 Gbps)
  double latency = 50e-6;     // seconds
  // A rate limiter's bucket (tc's tbf and htb): a message up to this size crosses an idle
  // limiter at once; 0 for a NIC, which sends at its rate.
  double burst = 0;
};

struct HostSpec {
  std::string name;
  int cores = 8;
  double speed = 1.0;
  LinkSpec link;
  std::string machine;  // "" : its own CPU
};

struct MachineSpec {
  std::string name;
  int cores = 2;
  double speed = 1.0;
};

struct TaskBinding {
  std::string pattern;             // "/job:ps/replica:0/task:0", "/job:worker/*" or "*"
  std::vector<std::string> hosts;  // taken in turn by the tasks the pattern matches
};

enum class Topology { kStar, kTree, kXml };

// Where every task of a cluster runs: the hosts to build (explicit ones and one per unmapped
// task) and, per task, its host's index. A task may stand for a group of identical workers
// (see WorkerGroups.h): its host is then the group's, and `members` lists the group.
struct BoundPlatform {
  std::vector<std::string> tasks;
  std::vector<HostSpec> hosts;  // for kXml: names only
  std::vector<int> host_of_task;
  std::vector<std::vector<std::string>> members;  // per task, the tasks it stands for (itself)
  const HostSpec& HostOf(size_t task) const { return hosts[static_cast<size_t>(host_of_task[task])]; }
  int Multiplicity(size_t task) const { return static_cast<int>(members[task].size()); }
};

struct PlatformSpec {
  Topology topology = Topology::kStar;
  HostSpec host;                      // the template of a task's own host (no name)
  std::optional<LinkSpec> backplane;  // star: the switch, shared by every route through it
  int rack_hosts = 16;                // tree: hosts per rack
  LinkSpec rack_uplink{5e9, 2e-6};    // tree: each rack's link to the core switch
  LinkSpec loopback{1e11, 0};
  double payload_fraction = 0.97;  // SimGrid's TCP model's own default
  std::string xml_path;            // kXml, resolved against the platform file's folder
  std::vector<HostSpec> hosts;
  std::vector<MachineSpec> machines;
  std::vector<TaskBinding> tasks;

  // `origin` names the source in errors ("cluster.json", "p.clab: platform"); `base_dir`
  // resolves a relative "xml" path. Errors name the element: "hosts[1] \"big\": cores: 0
  // is not a core count (at least 1)".
  static StatusOr<PlatformSpec> FromJson(const nlohmann::json& json, const std::string& origin,
                                         const std::string& base_dir = "");
  static StatusOr<PlatformSpec> FromJsonText(const std::string& text, const std::string& origin,
                                             const std::string& base_dir = "");
  // A .json platform, or a SimGrid .xml file (tasks then go round its hosts).
  static StatusOr<PlatformSpec> FromFile(const std::string& path);
  nlohmann::json ToJson() const;
  std::string ToJsonText() const;

  // Every task's host. Errors name the task and the host a binding gives that is not in
  // "hosts" (for an XML platform, the file's hosts are checked when it is loaded).
  StatusOr<BoundPlatform> Bind(const std::vector<std::string>& tasks) const;
  const MachineSpec* FindMachine(const std::string& name) const;

  // The studio's defaults: a star of 8-core hosts on 10 Gbps links with 50 us latency.
  static PlatformSpec Default() { return PlatformSpec(); }
};

// "/job:ps/replica:0/task:0" for "/job:ps/task:0", "/job:ps/replica:0/task:0" or "ps:0";
// the text itself when it is none of those ("/job:worker/*", "*").
std::string CanonicalTaskPattern(const std::string& text);
// "ps 0" for "/job:ps/replica:0/task:0": how results name a task in words.
std::string TaskLabel(const std::string& task);

}  // namespace clab::sim
