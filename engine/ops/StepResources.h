// Per-step resources (TensorArrays, stacks): TensorFlow makes them afresh in every step and
// drops them when the step ends. Here each step's live in a container of its own in the
// device's ResourceMgr, "_step_<id>/<kind>"; when a device has more than kStepsKept step
// containers, the one made longest ago is cleared. Steps that run at the same time on one
// device (at most kStepsKept of them) keep their resources.
#pragma once

#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"

#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace clab::step_resources {

inline constexpr size_t kStepsKept = 8;

// The container of the running step's resources of `kind`, clearing the oldest step's
// containers when this step is a new one.
inline std::string StepContainer(OpKernelContext* ctx, const std::string& kind) {
  static std::mutex mu;
  static std::map<const ResourceMgr*, std::deque<int64_t>> steps_of;
  const std::string step = "_step_" + std::to_string(ctx->step().step_id);
  ResourceMgr* mgr = ctx->resource_mgr();
  std::lock_guard<std::mutex> lock(mu);
  std::deque<int64_t>& steps = steps_of[mgr];
  bool known = false;
  for (int64_t id : steps) known = known || id == ctx->step().step_id;
  if (!known) {
    steps.push_back(ctx->step().step_id);
    while (steps.size() > kStepsKept) {
      const std::string old = "_step_" + std::to_string(steps.front()) + "/";
      for (const char* old_kind : {"tensor_array", "stack"}) {
        const std::string container = old + old_kind;
        mgr->Clear(&container);
      }
      steps.pop_front();
    }
  }
  return step + "/" + kind;
}

}  // namespace clab::step_resources
