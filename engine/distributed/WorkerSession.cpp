#include "distributed/WorkerSession.h"

namespace clab {

void WorkerSession::AddGraph(const std::string& graph_handle, std::shared_ptr<const RegisteredGraph> graph) {
  std::lock_guard<std::mutex> lock(mu_);
  graphs_[graph_handle] = std::move(graph);
}

std::shared_ptr<const RegisteredGraph> WorkerSession::FindGraph(const std::string& graph_handle) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = graphs_.find(graph_handle);
  return it == graphs_.end() ? nullptr : it->second;
}

bool WorkerSession::RemoveGraph(const std::string& graph_handle) {
  std::shared_ptr<const RegisteredGraph> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(graph_handle);
    if (it == graphs_.end()) return false;
    removed = std::move(it->second);
    graphs_.erase(it);
  }
  // Executors are destroyed here, outside the lock, when no step still uses them.
  return true;
}

}  // namespace clab
