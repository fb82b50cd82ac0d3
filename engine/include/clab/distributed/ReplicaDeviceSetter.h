// tf.train.replica_device_setter: a device function that puts variables (and other ops
// that hold state for every replica) on parameter-server tasks and everything else on the
// worker. Used as GraphBuilder::WithDevice(ReplicaDeviceSetter(...)).
//
//   auto setter = clab::ReplicaDeviceSetter({.worker_device = "/job:worker/task:0",
//                                            .cluster = cluster});
//   auto scope = g.WithDevice(*setter);
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "tensorflow/graph.pb.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clab {

// Picks the ps task (0 .. num_tasks-1) for a node that goes to a parameter server.
using PsStrategy = std::function<int(const tensorflow::NodeDef&)>;
// The load a node adds to the ps it is put on (for GreedyLoadBalancingStrategy).
using PsLoadFn = std::function<int64_t(const tensorflow::NodeDef&)>;

// Variable, VariableV2, AutoReloadVariable, the MutableHashTable family and VarHandleOp:
// TensorFlow's STANDARD_PS_OPS.
const std::vector<std::string>& StandardPsOps();

// TensorFlow's default: task 0, 1, ..., num_tasks-1, 0, ... in the order ps ops are built.
PsStrategy RoundRobinStrategy(int num_tasks);
// Puts each node on the ps with the least load so far (the lowest task on ties), then adds
// the node's load to it. Fixes round robin's habit of piling big variables on one ps.
PsStrategy GreedyLoadBalancingStrategy(int num_tasks, PsLoadFn load_fn);
// The bytes of a variable: elements of its "shape" attr times the size of its "dtype".
// A shape that is not fully known counts 0.
int64_t ByteSizeLoadFn(const tensorflow::NodeDef& node);

struct ReplicaDeviceSetterOptions {
  // Ignored when `cluster` is given (its ps job's size counts instead).
  int ps_tasks = 0;
  std::string ps_device = "/job:ps";
  std::string worker_device = "/job:worker";
  // false: a node that already has a device keeps it unchanged (deprecated in TensorFlow).
  bool merge_devices = true;
  // Job name -> task addresses, as tf.train.ClusterSpec({"ps": [...], "worker": [...]}).
  std::optional<std::map<std::string, std::vector<std::string>>> cluster;
  // Empty: StandardPsOps().
  std::vector<std::string> ps_ops;
  // Unset: RoundRobinStrategy(ps_tasks).
  PsStrategy ps_strategy;
};

// An empty DeviceFunction when there are no ps tasks (ps_tasks 0, or the cluster has no job
// named as in ps_device); GraphBuilder::WithDevice treats it as "no scope". INVALID_ARGUMENT
// for a malformed ps_device or worker_device.
StatusOr<DeviceFunction> ReplicaDeviceSetter(const ReplicaDeviceSetterOptions& options);

}  // namespace clab
