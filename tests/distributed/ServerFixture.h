// Helpers for tests that run several tasks of a cluster as servers inside the test process
// on free loopback ports: port picking, log capture, the seed graph.
#pragma once

#include "clab/distributed/ClusterSpec.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "distributed/GrpcServer.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clab::testing {

// A port nothing listens on right now: bind port 0, read the port, close. Another program
// could take it before the test does; the loopback ports of a test machine are quiet.
inline int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

inline std::string LoopbackAddress(int port) { return "127.0.0.1:" + std::to_string(port); }

// Collects the lines a server and its master log, and lets a test wait for one.
class LogCapture {
 public:
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
      cv_.notify_all();
    };
  }
  bool Contains(const std::string& text) const {
    std::lock_guard<std::mutex> lock(mu_);
    return ContainsLocked(text);
  }
  bool WaitFor(const std::string& text, int timeout_ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return ContainsLocked(text); });
  }
  std::string All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const std::string& line : lines_) all += line + "\n";
    return all;
  }

 private:
  bool ContainsLocked(const std::string& text) const {
    for (const std::string& line : lines_)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
};

// `data_dirs`: where its graphs may read files (none: the working directory).
inline StatusOr<std::unique_ptr<GrpcServer>> StartServer(const ClusterSpec& cluster, const std::string& job, int task,
                                                         LogCapture* log = nullptr,
                                                         const std::vector<std::string>& data_dirs = {}) {
  ServerOptions options;
  options.cluster = cluster;
  options.job_name = job;
  options.task_index = task;
  options.data_dirs = data_dirs;
  return GrpcServer::Create(options,
                            log ? log->sink() : std::function<void(const std::string&)>([](const std::string&) {}));
}

// The seed program's graph: x = [[1,2,3,4]], w = [[2],[2],[2],[2]] as a variable on the ps
// (replica_device_setter), MatMul on the worker. Fetch `product`, run `init` first.
struct SeedGraph {
  tensorflow::GraphDef graph;
  std::string product;
  std::string init;
};

inline StatusOr<SeedGraph> BuildSeedGraph(const std::map<std::string, std::vector<std::string>>& cluster,
                                          const std::string& worker_device = "/job:worker/task:0/") {
  GraphBuilder g;
  ReplicaDeviceSetterOptions setter_options;
  setter_options.worker_device = worker_device;
  setter_options.cluster = cluster;
  CLAB_ASSIGN_OR_RETURN(DeviceFunction setter, ReplicaDeviceSetter(setter_options));
  SeedGraph seed;
  {
    auto scope = g.WithDevice(setter);
    Output x = ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x");
    Output w_initial = ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w/initial_value");
    ops::Variable w = ops::MakeVariable(g, w_initial, "w");
    seed.product = ops::MatMul(g, x, w.read).name();
    seed.init = ops::GlobalVariablesInitializer(g).node();
  }
  CLAB_RETURN_IF_ERROR(g.status());
  seed.graph = g.graph_def();
  return seed;
}

}  // namespace clab::testing
