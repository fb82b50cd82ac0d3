// Sessions run graphs. NewSession("") runs in this process; NewSession("grpc://host:port")
// talks to a ClusterLab server's master. Both have the same API.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/device_attributes.pb.h"
#include "tensorflow/graph.pb.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace clab {

struct SessionOptions {
  std::string target;  // "" (local) or "grpc://host:port"
  tensorflow::ConfigProto config;
};

using FeedList = std::vector<std::pair<std::string, Tensor>>;

class Session {
 public:
  virtual ~Session() = default;

  // Create once, then Extend with graphs that only add nodes.
  virtual Status Create(const tensorflow::GraphDef& graph) = 0;
  virtual Status Extend(const tensorflow::GraphDef& graph) = 0;

  // Feeds and fetches name tensors ("x", "x:0", "split:1"); targets name nodes. Errors:
  // NOT_FOUND for an unknown name, FAILED_PRECONDITION for an uninitialised variable,
  // INVALID_ARGUMENT naming the node for bad shapes.
  virtual Status Run(const tensorflow::RunOptions& options, const FeedList& feeds,
                     const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                     std::vector<Tensor>* outputs, tensorflow::RunMetadata* metadata) = 0;
  Status Run(const FeedList& feeds, const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs);

  virtual Status ListDevices(std::vector<tensorflow::DeviceAttributes>* devices) = 0;
  virtual Status Close() = 0;
};

// Factories for targets other than "" register here ("grpc" is registered by the
// distributed runtime). UNIMPLEMENTED names the target when no factory takes it.
using SessionFactory = std::function<StatusOr<std::unique_ptr<Session>>(const SessionOptions&)>;
void RegisterSessionFactory(const std::string& scheme, SessionFactory factory);
StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options);

}  // namespace clab
