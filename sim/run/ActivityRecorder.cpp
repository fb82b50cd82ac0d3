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

std::vector<ResourceLoad> ActivityRecorder::Loads(double from, double to, double* bin_width,
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
    const std::vector<double> bins = load_[r].Rebinned(width);
    double in_window = 0;
    for (size_t bin = 0; bin < bins.size(); ++bin) {
      const double utilisation = resource.capacity > 0 ? bins[bin] / (resource.capacity * width) : 0;
      load.peak = std::max(load.peak, utilisation);
      load.timeline.push_back(utilisation);
      // The share of the bin inside the window.
      const double start = static_cast<double>(bin) * width;
      const double overlap = std::max(0.0, std::min(to, start + width) - std::max(from, start));
      in_window += bins[bin] * overlap / width;
    }
    load.mean = to > from && resource.capacity > 0 ? in_window / (resource.capacity * (to - from)) : 0;
    if (!keep_timeline(resource)) load.timeline.clear();
    loads.push_back(std::move(load));
  }
  return loads;
}

}  // namespace clab::sim
