// What one master session keeps on a worker: the worker cache to reach the session's peers
// (built from the cluster the master sent) and the graphs registered for it. Steps in
// flight hold the session and their graph, so a concurrent DeleteWorkerSession or
// DeregisterGraph never pulls them from under a running step.
#pragma once

#include "distributed/RegisteredGraph.h"
#include "distributed/WorkerInterface.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace clab {

class WorkerSession {
 public:
  WorkerSession(std::string handle, std::unique_ptr<WorkerCache> peers)
      : handle_(std::move(handle)), peers_(std::move(peers)) {}

  const std::string& handle() const { return handle_; }
  // Null when the session was made without a cluster: it can run single-task graphs only.
  WorkerCache* peers() const { return peers_.get(); }

  void AddGraph(const std::string& graph_handle, std::shared_ptr<const RegisteredGraph> graph);
  std::shared_ptr<const RegisteredGraph> FindGraph(const std::string& graph_handle) const;
  bool RemoveGraph(const std::string& graph_handle);

 private:
  const std::string handle_;
  const std::unique_ptr<WorkerCache> peers_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const RegisteredGraph>> graphs_;
};

}  // namespace clab
