#include "run/ActivityRecorder.h"

#include <algorithm>

namespace clab::sim {

void ActivityRecorder::Message(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes, double start,
                               double end) {
  for (int resource : platform_->RouteResources(from, to)) load_[static_cast<size_t>(resource)].Add(start, end, bytes);
}

void ActivityRecorder::Work(simgrid::s4u::Host* cpu, double flops, double start, double end) {
  const int resource = platform_->CpuResource(cpu);
  if (resource >= 0) load_[static_cast<size_t>(resource)].Add(start, end, flops);
}

void ActivityRecorder::Span(const std::string& task, const std::string& lane, const std::string& name, double start,
                            double end) {
  spans_.push_back(TraceSpan{task, lane, name, start, end - start});
}

std::vector<ResourceLoad> ActivityRecorder::Loads(double end, double* bin_width,
                                                  const std::function<bool(const SimResource&)>& keep_timeline) const {
  double width = 1e-5;
  for (const TimeHistogram& h : load_) width = std::max(width, h.bin_width());
  *bin_width = width;
  std::vector<ResourceLoad> loads;
  const auto& resources = platform_->resources();
  for (size_t r = 0; r < resources.size(); ++r) {
    const SimResource& resource = resources[r];
    ResourceLoad load;
    load.name = resource.name;
    load.kind = resource.kind;
    load.owner = resource.owner;
    load.capacity = resource.capacity;
    load.amount = load_[r].total();
    load.mean = end > 0 && resource.capacity > 0 ? load.amount / (resource.capacity * end) : 0;
    for (double amount : load_[r].Rebinned(width)) {
      const double utilisation = resource.capacity > 0 ? amount / (resource.capacity * width) : 0;
      load.peak = std::max(load.peak, utilisation);
      load.timeline.push_back(utilisation);
    }
    if (!keep_timeline(resource)) load.timeline.clear();
    loads.push_back(std::move(load));
  }
  return loads;
}

}  // namespace clab::sim
