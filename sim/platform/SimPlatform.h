// A platform description made real in SimGrid's engine (inside the simulation's process):
// the hosts, their NICs (split duplex: what a host sends and what it receives do not share),
// the switch, the racks of a tree or the hosts of a SimGrid XML file, and each host's
// loopback. Besides, what the simulation measures: every link and CPU with its capacity.
#pragma once

#include "clab/core/Status.h"
#include "platform/PlatformSpec.h"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <map>
#include <string>
#include <vector>

namespace clab::sim {

// SimGrid speeds are FLOP/s: one core of the calibrated machine does this many, so a cost in
// seconds there is seconds x kReferenceFlops of work.
inline constexpr double kReferenceFlops = 1e9;
// The line rate under a rate limiter (a veth's, or a NIC's): what a burst crosses at.
inline constexpr double kLineRate = 12.5e9;

struct SimResource {
  std::string name;     // "ps 0 NIC out", "switch", "rack 1 uplink up", "ps 0 CPU"
  std::string kind;     // "link" or "cpu"
  std::string owner;    // the task it belongs to ("ps 0"), or "" for shared network parts
  std::string host;     // the host it belongs to, or ""
  double capacity = 0;  // payload bytes per second, or FLOP/s over all cores
};

class SimPlatform {
 public:
  // `software_latency` (per message, from the calibration) is added to the generated
  // platform's NICs (half each end) and loopbacks; an XML platform is taken as it is.
  static StatusOr<SimPlatform> Build(const PlatformSpec& spec, const BoundPlatform& bound, double software_latency);

  simgrid::s4u::Host* net_host(size_t task) const { return net_hosts_[task]; }
  simgrid::s4u::Host* cpu_host(size_t task) const { return cpu_hosts_[task]; }
  // Where a task's messages that fit its link's burst go: a twin of its host whose NIC runs at
  // the line rate under the limiter (null without a burst), and that burst in bytes.
  simgrid::s4u::Host* burst_host(size_t task) const { return burst_hosts_[task]; }
  double burst(size_t task) const { return bursts_[task]; }
  const std::vector<SimResource>& resources() const { return resources_; }
  // Indexes into resources() of the links a message from `from` to `to` crosses.
  const std::vector<int>& RouteResources(simgrid::s4u::Host* from, simgrid::s4u::Host* to);
  // Index into resources() of a host's CPU.
  int CpuResource(simgrid::s4u::Host* host) const;

 private:
  int AddResource(SimResource resource);
  void AddLink(const simgrid::s4u::Link* link, SimResource resource);

  std::vector<simgrid::s4u::Host*> net_hosts_;
  std::vector<simgrid::s4u::Host*> cpu_hosts_;
  std::vector<simgrid::s4u::Host*> burst_hosts_;
  std::vector<double> bursts_;
  std::vector<SimResource> resources_;
  std::map<const simgrid::s4u::Link*, int> link_resource_;
  std::map<const simgrid::s4u::Host*, int> cpu_resource_;
  std::map<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>, std::vector<int>> routes_;
  double payload_fraction_ = 1;
};

}  // namespace clab::sim
