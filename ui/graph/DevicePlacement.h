// Where the graph's nodes will run, before running it: a device function applied to the
// whole graph (tf.train.replica_device_setter, through the engine's ReplicaDeviceSetter) and
// the engine's Placer run over the project's tasks.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

namespace clab::ui {

// replica_device_setter's choices: how many of the cluster's ps tasks to use (0: all), the
// greedy strategy (each variable to the ps with the fewest bytes so far) instead of round
// robin, and the worker device that every other op gets.
struct SetterChoice {
  int ps_tasks = 0;
  bool greedy = false;
  std::string worker_device = "/job:worker/task:0";
};

class DevicePlacement {
 public:
  using Cluster = std::map<std::string, std::vector<std::string>>;  // job -> addresses

  // Every node as if built inside `with tf.device(replica_device_setter(cluster=...,
  // worker_device=...))`, in GraphDef order (so round robin deals variables to ps tasks in
  // the order they were built). The job and task a node asked for before are dropped (its
  // device type is kept); nodes colocated with another ("loc:@x") take x's device, as
  // tf.colocate_with does.
  static StatusOr<tensorflow::GraphDef> applyReplicaDeviceSetter(const tensorflow::GraphDef& graph,
                                                                 const Cluster& cluster,
                                                                 const SetterChoice& choice = {});

  // The engine's placement of the graph on one CPU per task of `tasks` (full task names
  // "/job:ps/replica:0/task:0"): node -> assigned device. Soft placement is on; unplaced
  // nodes go to `default_device`. `log` receives the Placer's lines.
  static StatusOr<QHash<QString, QString>> place(const tensorflow::GraphDef& graph, const QStringList& tasks,
                                                 const QString& default_device = "/job:worker/task:0",
                                                 QStringList* log = nullptr);
};

}  // namespace clab::ui
