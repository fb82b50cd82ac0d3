#include "platform/SimPlatform.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>

namespace clab::sim {
namespace {

namespace sg4 = simgrid::s4u;

// "ps 0" or "worker 1, worker 2": the tasks a host runs, for naming its parts.
std::string Owners(const BoundPlatform& bound, int host) {
  std::vector<std::string> labels;
  for (size_t t = 0; t < bound.tasks.size(); ++t)
    if (bound.host_of_task[t] == host) labels.push_back(TaskLabel(bound.tasks[t]));
  return absl::StrJoin(labels, ", ");
}

int TasksOn(const BoundPlatform& bound, int host) {
  return static_cast<int>(std::count(bound.host_of_task.begin(), bound.host_of_task.end(), host));
}

}  // namespace

int SimPlatform::AddResource(SimResource resource) {
  resources_.push_back(std::move(resource));
  return static_cast<int>(resources_.size()) - 1;
}

void SimPlatform::AddLink(const sg4::Link* link, SimResource resource) {
  resource.kind = "link";
  resource.capacity = link->get_bandwidth() * payload_fraction_;
  link_resource_[link] = AddResource(std::move(resource));
}

StatusOr<SimPlatform> SimPlatform::Build(const PlatformSpec& spec, const BoundPlatform& bound,
                                         double software_latency) {
  SimPlatform platform;
  platform.payload_fraction_ = spec.payload_fraction;
  sg4::Engine* engine = sg4::Engine::get_instance();
  std::vector<sg4::Host*> hosts(bound.hosts.size(), nullptr);
  std::vector<sg4::Host*> burst_hosts(bound.hosts.size(), nullptr);

  if (spec.topology == Topology::kXml) {
    engine->load_platform(spec.xml_path);
    for (size_t h = 0; h < bound.hosts.size(); ++h) {
      hosts[h] = engine->host_by_name_or_null(bound.hosts[h].name);
      if (hosts[h] == nullptr)
        return errors::InvalidArgument(spec.xml_path, ": no host \"", bound.hosts[h].name, "\" for task(s) ",
                                       Owners(bound, static_cast<int>(h)));
    }
    for (const sg4::Link* link : engine->get_all_links()) platform.AddLink(link, {link->get_name(), "", "", "", 0});
  } else {
    sg4::NetZone* top = sg4::create_star_zone(spec.topology == Topology::kTree ? "core" : "cluster");
    sg4::Link* backplane = nullptr;
    if (spec.backplane) {
      backplane = top->create_link("switch", spec.backplane->bandwidth)->set_latency(spec.backplane->latency)->seal();
      platform.AddLink(backplane, {"switch", "", "", "", 0});
    }
    for (const MachineSpec& machine : spec.machines)
      top->create_host("machine " + machine.name, machine.speed * kReferenceFlops)->set_core_count(machine.cores);
    // Each rack is a star of its own behind a switch (a router), joined to the core by its
    // uplink; a star platform is one rack without an uplink.
    const int per_rack = spec.topology == Topology::kTree ? spec.rack_hosts : static_cast<int>(bound.hosts.size());
    sg4::NetZone* zone = top;
    for (size_t h = 0; h < bound.hosts.size(); ++h) {
      const int rack = per_rack > 0 ? static_cast<int>(h) / per_rack : 0;
      if (spec.topology == Topology::kTree && static_cast<int>(h) % per_rack == 0) {
        if (zone != top) zone->seal();
        zone = sg4::create_star_zone(absl::StrCat("rack ", rack));
        zone->set_parent(top);
        sg4::Link* uplink =
            top->create_split_duplex_link(absl::StrCat("rack-", rack, "-uplink"), spec.rack_uplink.bandwidth)
                ->set_latency(spec.rack_uplink.latency);
        uplink->seal();
        auto* split = static_cast<sg4::SplitDuplexLink*>(uplink);
        platform.AddLink(split->get_link_up(), {absl::StrCat("rack ", rack, " uplink up"), "", "", "", 0});
        platform.AddLink(split->get_link_down(), {absl::StrCat("rack ", rack, " uplink down"), "", "", "", 0});
        simgrid::kernel::routing::NetPoint* gateway = zone->create_router(absl::StrCat("rack ", rack, " switch"));
        std::vector<sg4::LinkInRoute> up = {{uplink, sg4::LinkInRoute::Direction::UP}};
        if (backplane) up.emplace_back(backplane);
        top->add_route(zone->get_netpoint(), nullptr, gateway, nullptr, up, true);
      }
      const HostSpec& spec_host = bound.hosts[h];
      const std::string owners = Owners(bound, static_cast<int>(h));
      sg4::Host* host = zone->create_host(spec_host.name, spec_host.speed * kReferenceFlops);
      host->set_core_count(spec_host.cores);
      hosts[h] = host;
      auto* nic = zone->create_split_duplex_link(spec_host.name + "-nic", spec_host.link.bandwidth);
      nic->set_latency(spec_host.link.latency + software_latency / 2);
      nic->seal();
      platform.AddLink(nic->get_link_up(), {spec_host.name + " NIC out", "", owners, spec_host.name, 0});
      platform.AddLink(nic->get_link_down(), {spec_host.name + " NIC in", "", owners, spec_host.name, 0});
      std::vector<sg4::LinkInRoute> route = {{nic, sg4::LinkInRoute::Direction::UP}};
      if (backplane && spec.topology == Topology::kStar) route.emplace_back(backplane);
      zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, route, true);
      if (spec_host.link.burst > 0) {
        // Messages that fit the limiter's bucket cross at the line rate, on a twin host's NIC.
        sg4::Host* twin = zone->create_host(spec_host.name + " bursts", spec_host.speed * kReferenceFlops);
        auto* line = zone->create_split_duplex_link(spec_host.name + "-line", kLineRate);
        line->set_latency(spec_host.link.latency + software_latency / 2);
        line->seal();
        zone->add_route(twin->get_netpoint(), nullptr, nullptr, nullptr, {{line, sg4::LinkInRoute::Direction::UP}},
                        true);
        burst_hosts[h] = twin;
      }
      if (TasksOn(bound, static_cast<int>(h)) > 1) {
        sg4::Link* loopback = zone->create_link(spec_host.name + "-loopback", spec.loopback.bandwidth)
                                  ->set_latency(spec.loopback.latency + software_latency)
                                  ->seal();
        platform.AddLink(loopback, {spec_host.name + " loopback", "", owners, spec_host.name, 0});
        zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(loopback)},
                        false);
      }
    }
    if (zone != top) zone->seal();
    top->seal();
  }

  // Hosts of an XML platform that no binding names take the remaining tasks in turn.
  std::vector<sg4::Host*> xml_hosts;
  if (spec.topology == Topology::kXml) {
    xml_hosts = engine->get_all_hosts();
    std::sort(xml_hosts.begin(), xml_hosts.end(),
              [](const sg4::Host* a, const sg4::Host* b) { return a->get_name() < b->get_name(); });
    if (xml_hosts.empty()) return errors::InvalidArgument(spec.xml_path, ": the platform has no hosts");
  }
  size_t next_xml = 0;
  for (size_t t = 0; t < bound.tasks.size(); ++t) {
    const int h = bound.host_of_task[t];
    sg4::Host* net = h >= 0 ? hosts[static_cast<size_t>(h)] : xml_hosts[next_xml++ % xml_hosts.size()];
    sg4::Host* cpu = net;
    if (h >= 0 && !bound.hosts[static_cast<size_t>(h)].machine.empty())
      cpu = engine->host_by_name("machine " + bound.hosts[static_cast<size_t>(h)].machine);
    platform.net_hosts_.push_back(net);
    platform.cpu_hosts_.push_back(cpu);
    platform.burst_hosts_.push_back(h >= 0 ? burst_hosts[static_cast<size_t>(h)] : nullptr);
    platform.bursts_.push_back(h >= 0 ? bound.hosts[static_cast<size_t>(h)].link.burst : 0);
    if (!platform.cpu_resource_.count(cpu)) {
      std::vector<std::string> owners;
      for (size_t other = 0; other < bound.tasks.size(); ++other) {
        const int oh = bound.host_of_task[other];
        const bool same = oh >= 0 && (hosts[static_cast<size_t>(oh)] == cpu ||
                                      (!bound.hosts[static_cast<size_t>(oh)].machine.empty() &&
                                       "machine " + bound.hosts[static_cast<size_t>(oh)].machine == cpu->get_name()));
        if (same || other == t) owners.push_back(TaskLabel(bound.tasks[other]));
      }
      SimResource resource{cpu->get_name() + " CPU", "cpu", absl::StrJoin(owners, ", "), cpu->get_name(),
                           cpu->get_speed() * cpu->get_core_count()};
      platform.cpu_resource_[cpu] = platform.AddResource(std::move(resource));
    }
  }
  return platform;
}

const std::vector<int>& SimPlatform::RouteResources(sg4::Host* from, sg4::Host* to) {
  auto [it, inserted] = routes_.try_emplace({from, to});
  if (inserted) {
    std::vector<sg4::Link*> links;
    double latency = 0;
    from->route_to(to, links, &latency);
    for (const sg4::Link* link : links) {
      const auto found = link_resource_.find(link);
      if (found != link_resource_.end()) it->second.push_back(found->second);
    }
  }
  return it->second;
}

int SimPlatform::CpuResource(sg4::Host* host) const {
  const auto it = cpu_resource_.find(host);
  return it == cpu_resource_.end() ? -1 : it->second;
}

}  // namespace clab::sim
