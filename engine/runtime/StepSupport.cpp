#include "runtime/StepSupport.h"

#include "clab/core/ExceptionStatus.h"
#include "core/WallClock.h"

#include <absl/strings/match.h>

#include <atomic>
#include <chrono>
#include <mutex>

namespace clab::step_support {
namespace {

Status UninitializedValue(const std::string* variable, const std::string& fallback) {
  return errors::FailedPrecondition("Attempting to use uninitialized value ",
                                    variable && !variable->empty() ? *variable : fallback);
}

// The value a reference points at, shared with the variable (taken under its lock so a
// concurrent Assign never hands out a half-replaced tensor).
Status ReadVariable(Variable& var, const std::string* name, const std::string& fallback, Tensor* value) {
  std::lock_guard<std::mutex> lock(var.mu());
  if (!var.initialized()) return UninitializedValue(name, fallback);
  *value = var.value();
  return OkStatus();
}

}  // namespace

uint32_t CurrentThreadNumber() {
  static std::atomic<uint32_t> next{1};
  thread_local const uint32_t number = next.fetch_add(1);
  return number;
}

Status WithNodeName(const Status& status, const std::string& node) {
  if (absl::StrContains(status.message(), "[[{{node ")) return status;
  return Status(status.code(), absl::StrCat(status.message(), "\n\t [[{{node ", node, "}}]]"));
}

Status GatherInputs(const ExecutorNode& item, EdgeValue* slots, const char* dead, std::vector<EdgeValue>* inputs) {
  inputs->resize(static_cast<size_t>(item.num_inputs));
  for (int in = 0; in < item.num_inputs; ++in) {
    EdgeValue& slot = slots[in];
    EdgeValue& value = (*inputs)[static_cast<size_t>(in)];
    if (dead[in]) continue;  // stays empty
    if (!slot.ref) {
      value.tensor = std::move(slot.tensor);
      continue;
    }
    const std::string* variable = item.input_variable[static_cast<size_t>(in)];
    if (item.input_is_ref[static_cast<size_t>(in)]) {
      // Writers (Assign) get the variable; its current value rides along when it has one.
      std::lock_guard<std::mutex> lock(slot.ref->mu());
      if (slot.ref->initialized()) value.tensor = slot.ref->value();
      value.ref = std::move(slot.ref);
      continue;
    }
    CLAB_RETURN_IF_ERROR(ReadVariable(*slot.ref, variable, item.node->name(), &value.tensor));
    slot.ref.reset();
  }
  return OkStatus();
}

Status OverrideFedAndCheck(const ExecutorNode& item, const std::vector<Tensor>& feeds, std::vector<EdgeValue>& outputs,
                           const std::vector<char>& out_dead) {
  for (size_t out = 0; out < outputs.size(); ++out) {
    if (item.feed_of_output[out] >= 0) {
      outputs[out].tensor = feeds[static_cast<size_t>(item.feed_of_output[out])];
      outputs[out].ref.reset();
      continue;
    }
    if (!item.output_needed[out] || outputs[out].ref || out_dead[out]) continue;
    const Tensor& value = outputs[out].tensor;
    const DataType expected = BaseType(item.node->output_types()[out]);
    if (!value.IsInitialized())
      return errors::Internal("Node '", item.node->name(), "' (", item.node->type_string(),
                              ") did not produce its output ", out);
    if (value.dtype() != expected)
      return errors::Internal("Node '", item.node->name(), "' (", item.node->type_string(), ") produced ",
                              DataTypeName(value.dtype()), " for output ", out, ", which is declared ",
                              DataTypeName(expected));
  }
  return OkStatus();
}

Status CollectFetches(const ExecutorNode& item, const std::vector<EdgeValue>& outputs,
                      const std::vector<char>& out_dead, std::vector<Tensor>& fetches) {
  for (const ExecutorNode::FetchOut& fetch : item.fetch_out) {
    const EdgeValue& value = outputs[static_cast<size_t>(fetch.src_output)];
    if (out_dead[static_cast<size_t>(fetch.src_output)])
      return errors::InvalidArgument("Fetched output ", fetch.src_output, " of node '", item.node->name(),
                                     "' is dead: it lies on the branch of a tf.cond or Switch not taken");
    Tensor& result = fetches[static_cast<size_t>(fetch.fetch_index)];
    if (!value.ref) {
      result = value.tensor;
      continue;
    }
    CLAB_RETURN_IF_ERROR(ReadVariable(*value.ref, &item.output_variable[static_cast<size_t>(fetch.src_output)],
                                      item.node->name(), &result));
  }
  return OkStatus();
}

Status RunSyncKernel(const ExecutorPlan& plan, int id, const StepInfo& info, std::vector<EdgeValue> inputs,
                     std::vector<EdgeValue>* outputs) {
  const ExecutorNode& item = plan.nodes[static_cast<size_t>(id)];
  Status status;
  // Inputs are released with the context, before the step can be seen to finish.
  OpKernelContext ctx(item.node->def(), plan.device, info, std::move(inputs), item.node->num_outputs());
  try {
    if (item.is_expensive) {
      const auto begin = std::chrono::steady_clock::now();
      item.kernel->Compute(&ctx);
      plan.RecordNanos(
          id, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - begin).count());
    } else {
      item.kernel->Compute(&ctx);
    }
    status = ctx.status();
  } catch (...) {
    // A kernel that cannot have its memory (or fails in a library) fails this step only;
    // the task keeps serving.
    status = CurrentExceptionStatus(StrCat(item.node->def().op(), " kernel"));
  }
  *outputs = std::move(ctx.outputs());
  return status;
}

void AddNodeStats(tensorflow::DeviceStepStats& stats, const ExecutorNode& item, const NodeTiming& timing,
                  int64_t op_end_micros) {
  const int64_t end = NowMicros();
  tensorflow::NodeExecStats* node = stats.add_node_stats();
  node->set_node_name(item.node->name());
  node->set_all_start_micros(timing.start_micros);
  node->set_op_start_rel_micros(timing.op_start_micros - timing.start_micros);
  node->set_op_end_rel_micros(op_end_micros - timing.start_micros);
  node->set_all_end_rel_micros(end - timing.start_micros);
  node->set_timeline_label(item.timeline_label);
  node->set_thread_id(CurrentThreadNumber());
}

}  // namespace clab::step_support
