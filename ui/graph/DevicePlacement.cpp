#include "graph/DevicePlacement.h"

#include "clab/compile/Placer.h"
#include "clab/core/DeviceName.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"

namespace clab::ui {

StatusOr<tensorflow::GraphDef> DevicePlacement::applyReplicaDeviceSetter(const tensorflow::GraphDef& graph,
                                                                         const Cluster& cluster,
                                                                         const SetterChoice& choice) {
  ReplicaDeviceSetterOptions options;
  Cluster used = cluster;
  auto ps = used.find("ps");
  const int available = ps == used.end() ? 0 : static_cast<int>(ps->second.size());
  if (choice.ps_tasks < 0 || choice.ps_tasks > available)
    return errors::InvalidArgument("cannot spread variables over ", choice.ps_tasks, " ps tasks: the cluster has ",
                                   available);
  if (choice.ps_tasks > 0) ps->second.resize(static_cast<size_t>(choice.ps_tasks));
  options.cluster = used;
  options.worker_device = choice.worker_device;
  const int ps_tasks = choice.ps_tasks > 0 ? choice.ps_tasks : available;
  if (choice.greedy && ps_tasks > 0) options.ps_strategy = GreedyLoadBalancingStrategy(ps_tasks, ByteSizeLoadFn);
  CLAB_ASSIGN_OR_RETURN(const DeviceFunction setter, ReplicaDeviceSetter(options));
  tensorflow::GraphDef placed = graph;
  std::map<std::string, std::string> devices;
  for (tensorflow::NodeDef& node : *placed.mutable_node()) {
    // Keep what says which kind of device, not where.
    auto requested = DeviceName::Parse(node.device());
    DeviceName kept;
    if (requested.ok()) {
      kept.has_type = requested->has_type;
      kept.type = requested->type;
      kept.has_id = requested->has_id;
      kept.id = requested->id;
    }
    node.set_device(kept.ToString());
    if (setter) node.set_device(setter(node));
    devices[node.name()] = node.device();
  }
  for (tensorflow::NodeDef& node : *placed.mutable_node()) {
    std::vector<std::string> classes;
    if (!GetNodeAttr(node, "_class", &classes).ok()) continue;
    for (const std::string& group : classes) {
      if (group.rfind("loc:@", 0) != 0) continue;
      auto target = devices.find(group.substr(5));
      if (target != devices.end()) node.set_device(target->second);
      break;
    }
  }
  return placed;
}

StatusOr<QHash<QString, QString>> DevicePlacement::place(const tensorflow::GraphDef& graph, const QStringList& tasks,
                                                         const QString& default_device, QStringList* log) {
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<Graph> built, Graph::FromGraphDef(graph));
  std::vector<AvailableDevice> devices;
  for (const QString& task : tasks) devices.push_back({(task + "/device:CPU:0").toStdString(), "CPU"});
  PlacerOptions options;
  options.allow_soft_placement = true;
  options.log_device_placement = log != nullptr;
  options.default_device = default_device.toStdString();
  options.log = [log](const std::string& line) {
    if (log) *log << QString::fromStdString(line);
  };
  CLAB_RETURN_IF_ERROR(PlaceGraph(built.get(), devices, options));
  QHash<QString, QString> assigned;
  for (const Node* node : built->nodes())
    assigned.insert(QString::fromStdString(node->name()), QString::fromStdString(node->assigned_device()));
  return assigned;
}

}  // namespace clab::ui
