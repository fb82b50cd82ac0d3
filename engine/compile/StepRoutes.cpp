#include "clab/compile/StepRoutes.h"

#include "clab/graph/Graph.h"

#include <map>

namespace clab {
namespace {

std::string NodeOfTarget(const std::string& target) {
  return !target.empty() && target[0] == '^' ? target.substr(1) : target;
}

}  // namespace

StatusOr<StepRoutes> RouteStep(const StepSignature& signature,
                               const std::vector<const tensorflow::GraphDef*>& partitions) {
  StepRoutes routes;
  routes.feeds.resize(partitions.size());
  routes.fetches.resize(partitions.size());
  routes.targets.resize(partitions.size());
  std::unordered_map<std::string_view, int> partition_of_node;
  for (size_t p = 0; p < partitions.size(); ++p)
    for (const tensorflow::NodeDef& node : partitions[p]->node())
      partition_of_node.try_emplace(node.name(), static_cast<int>(p));
  const auto partition_of = [&](std::string_view node) {
    auto it = partition_of_node.find(node);
    return it == partition_of_node.end() ? -1 : it->second;
  };

  for (const std::string& feed : signature.feeds) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(feed));
    StepRoutes::Route route{partition_of(id.node), 0};
    if (route.partition >= 0) {
      auto& feeds = routes.feeds[static_cast<size_t>(route.partition)];
      route.index = static_cast<int>(feeds.size());
      feeds.push_back(id.ToString());
    }
    routes.feed_routes[feed] = route;
  }
  // "x" and "x:0" are one tensor: it is fetched once and both names read it.
  std::map<std::string, StepRoutes::Route> route_of_tensor;
  for (const std::string& fetch : signature.fetches) {
    CLAB_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(fetch));
    const std::string name = id.ToString();
    auto [it, inserted] = route_of_tensor.try_emplace(name);
    if (inserted) {
      it->second.partition = partition_of(id.node);
      if (it->second.partition < 0) return errors::Internal("Fetch '", fetch, "' was pruned away");
      auto& fetches = routes.fetches[static_cast<size_t>(it->second.partition)];
      it->second.index = static_cast<int>(fetches.size());
      fetches.push_back(name);
    }
    routes.fetch_routes[fetch] = it->second;
  }
  for (const std::string& target : signature.targets) {
    const std::string node = NodeOfTarget(target);
    const int partition = partition_of(node);
    if (partition >= 0) routes.targets[static_cast<size_t>(partition)].push_back(node);
  }
  return routes;
}

}  // namespace clab
