// What the simulation's activities did, kept as they finish: the bytes each link carried and
// the work each CPU did over time, and the spans of the traced steps.
#pragma once

#include "platform/SimPlatform.h"
#include "run/SimulationResult.h"
#include "run/TimeHistogram.h"

#include <functional>
#include <string>
#include <vector>

namespace clab::sim {

class ActivityRecorder {
 public:
  explicit ActivityRecorder(SimPlatform* platform)
      : platform_(platform), load_(platform->resources().size(), TimeHistogram(1e-5)) {}

  void Message(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes, double start, double end);
  void Work(simgrid::s4u::Host* cpu, double flops, double start, double end);
  void Span(const std::string& task, const std::string& lane, const std::string& name, double start, double end);

  // Every resource's load: its mean over [from, to] (when every worker runs), its timeline
  // over the whole run (for those `keep_timeline` says).
  std::vector<ResourceLoad> Loads(double from, double to, double* bin_width,
                                  const std::function<bool(const SimResource&)>& keep_timeline) const;
  std::vector<TraceSpan> TakeSpans() { return std::move(spans_); }

 private:
  SimPlatform* platform_;
  std::vector<TimeHistogram> load_;
  std::vector<TraceSpan> spans_;
};

}  // namespace clab::sim
