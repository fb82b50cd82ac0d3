#include "platform/WorkerGroups.h"

#include <absl/strings/str_cat.h>

namespace clab::sim {
namespace {

bool IsWorker(const std::string& task) { return task.rfind("/job:worker/", 0) == 0; }

}  // namespace

BoundPlatform GroupIdenticalWorkers(const BoundPlatform& bound, const PlatformSpec& spec, int max_workers) {
  // Workers on a host of their own made from the template (not a named host, not shared).
  std::vector<size_t> alike;
  std::vector<int> tasks_on_host(bound.hosts.size(), 0);
  for (int h : bound.host_of_task)
    if (h >= 0) ++tasks_on_host[static_cast<size_t>(h)];
  for (size_t t = 0; t < bound.tasks.size(); ++t) {
    const int h = bound.host_of_task[t];
    if (!IsWorker(bound.tasks[t]) || h < 0 || tasks_on_host[static_cast<size_t>(h)] != 1) continue;
    bool named = false;
    for (const HostSpec& host : spec.hosts) named = named || host.name == bound.hosts[static_cast<size_t>(h)].name;
    if (!named && bound.hosts[static_cast<size_t>(h)].machine.empty()) alike.push_back(t);
  }
  if (max_workers < 1 || static_cast<int>(alike.size()) <= max_workers) return bound;

  BoundPlatform grouped;
  std::vector<bool> in_group(bound.tasks.size(), false);
  for (size_t t : alike) in_group[t] = true;
  // Everything else stays as it is.
  std::vector<int> new_host(bound.hosts.size(), -1);
  for (size_t t = 0; t < bound.tasks.size(); ++t) {
    if (in_group[t]) continue;
    grouped.tasks.push_back(bound.tasks[t]);
    grouped.members.push_back(bound.members[t]);
    const int h = bound.host_of_task[t];
    if (h >= 0 && new_host[static_cast<size_t>(h)] < 0) {
      new_host[static_cast<size_t>(h)] = static_cast<int>(grouped.hosts.size());
      grouped.hosts.push_back(bound.hosts[static_cast<size_t>(h)]);
    }
    grouped.host_of_task.push_back(h < 0 ? -1 : new_host[static_cast<size_t>(h)]);
  }
  const size_t groups = static_cast<size_t>(max_workers);
  size_t next = 0;
  for (size_t g = 0; g < groups; ++g) {
    const size_t size = alike.size() / groups + (g < alike.size() % groups ? 1 : 0);
    std::vector<std::string> members;
    for (size_t i = 0; i < size; ++i) members.push_back(bound.tasks[alike[next + i]]);
    const HostSpec& first = bound.hosts[static_cast<size_t>(bound.host_of_task[alike[next]])];
    HostSpec host = first;
    const int m = static_cast<int>(size);
    host.name = absl::StrCat(first.name, m > 1 ? absl::StrCat("+", m - 1) : "");
    host.cores = first.cores * m;
    host.link.bandwidth = first.link.bandwidth * m;
    grouped.tasks.push_back(members.front());
    grouped.members.push_back(std::move(members));
    grouped.host_of_task.push_back(static_cast<int>(grouped.hosts.size()));
    grouped.hosts.push_back(host);
    next += size;
  }
  return grouped;
}

}  // namespace clab::sim
