#include "clab/distributed/ReplicaDeviceSetter.h"

#include "clab/core/DataType.h"
#include "clab/core/DeviceName.h"
#include "clab/graph/AttrValues.h"

#include <algorithm>
#include <iostream>
#include <set>

namespace clab {

const std::vector<std::string>& StandardPsOps() {
  static const std::vector<std::string> ops = {"Variable",
                                               "VariableV2",
                                               "AutoReloadVariable",
                                               "MutableHashTable",
                                               "MutableHashTableV2",
                                               "MutableHashTableOfTensors",
                                               "MutableHashTableOfTensorsV2",
                                               "MutableDenseHashTable",
                                               "MutableDenseHashTableV2",
                                               "VarHandleOp"};
  return ops;
}

PsStrategy RoundRobinStrategy(int num_tasks) {
  // Shared by copies of the returned function: std::function copies its target, and the
  // builder may copy the device function while the counter must stay one.
  auto next = std::make_shared<int>(0);
  return [next, num_tasks](const tensorflow::NodeDef&) {
    const int task = *next;
    *next = (*next + 1) % std::max(1, num_tasks);
    return task;
  };
}

PsStrategy GreedyLoadBalancingStrategy(int num_tasks, PsLoadFn load_fn) {
  auto loads = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(std::max(1, num_tasks)), 0);
  return [loads, load_fn = std::move(load_fn)](const tensorflow::NodeDef& node) {
    auto lightest = std::min_element(loads->begin(), loads->end());
    *lightest += load_fn ? load_fn(node) : 0;
    return static_cast<int>(lightest - loads->begin());
  };
}

int64_t ByteSizeLoadFn(const tensorflow::NodeDef& node) {
  PartialShape shape;
  DataType dtype = DT_INVALID;
  if (!GetNodeAttr(node, "shape", &shape).ok() || !GetNodeAttr(node, "dtype", &dtype).ok()) return 0;
  if (!shape.IsFullyDefined()) return 0;
  return shape.num_elements() * static_cast<int64_t>(DataTypeSize(BaseType(dtype)));
}

StatusOr<DeviceFunction> ReplicaDeviceSetter(const ReplicaDeviceSetterOptions& options) {
  auto annotate = [](const Status& status, std::string_view which) {
    return errors::InvalidArgument("replica_device_setter: ", which, ": ", status.message());
  };
  auto ps_spec = DeviceName::Parse(options.ps_device);
  if (!ps_spec.ok()) return annotate(ps_spec.status(), "ps_device");
  auto worker_spec = DeviceName::Parse(options.worker_device);
  if (!worker_spec.ok()) return annotate(worker_spec.status(), "worker_device");

  int ps_tasks = options.ps_tasks;
  if (options.cluster) {
    auto job = options.cluster->find(ps_spec->job);
    if (!ps_spec->has_job || job == options.cluster->end()) return DeviceFunction{};
    ps_tasks = static_cast<int>(job->second.size());
  }
  if (ps_tasks <= 0) return DeviceFunction{};
  if (!options.merge_devices)
    std::cerr << "WARNING: replica_device_setter(merge_devices=false) is deprecated: ops that already "
                 "have a device keep it unchanged.\n";

  const std::vector<std::string>& op_list = options.ps_ops.empty() ? StandardPsOps() : options.ps_ops;
  auto ps_ops = std::make_shared<const std::set<std::string>>(op_list.begin(), op_list.end());
  PsStrategy strategy = options.ps_strategy ? options.ps_strategy : RoundRobinStrategy(ps_tasks);
  const bool merge = options.merge_devices;
  const bool use_ps = !options.ps_device.empty();

  return DeviceFunction([ps = *ps_spec, worker = *worker_spec, ps_ops, strategy, merge,
                         use_ps](const tensorflow::NodeDef& node) -> std::string {
    if (!merge && !node.device().empty()) return node.device();
    // The builder hands over canonical device strings; a bad one is reported by the builder.
    auto current = DeviceName::Parse(node.device());
    if (!current.ok()) return node.device();

    if (use_ps && ps_ops->count(node.op())) {
      DeviceName spec = ps;
      // Only a node bound for the ps job takes a task from the strategy: one pinned to
      // another job by an inner scope keeps its own placement and uses no ps slot.
      if (spec.has_job && (!current->has_job || current->job == spec.job)) {
        spec.has_task = true;
        spec.task = strategy(node);
      }
      spec.OverrideWith(*current);
      return spec.ToString();
    }
    DeviceName spec = worker;
    spec.OverrideWith(*current);
    return spec.ToString();
  });
}

}  // namespace clab
