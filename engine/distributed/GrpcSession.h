// A Session on a ClusterLab (or TensorFlow) server's master, target "grpc://host:port".
// When that server lives in this process the master is called directly: no gRPC, and the
// fed and fetched tensors are handed over as they are, never encoded as TensorProtos on
// the way (a worker in this process takes them uncopied; one on another task gets them
// encoded once, by the master). Registered as the "grpc" scheme of NewSession.
#pragma once

#include "clab/runtime/Session.h"
#include "tensorflow/master.grpc.pb.h"

#include <memory>
#include <mutex>
#include <string>

namespace grpc {
class Channel;
}

namespace clab {

class Master;

class GrpcSession final : public Session {
 public:
  // `allow_in_process_master` false always goes through gRPC (tests of the wire path).
  static StatusOr<std::unique_ptr<GrpcSession>> Open(const SessionOptions& options,
                                                     bool allow_in_process_master = true);
  ~GrpcSession() override;

  Status Create(const tensorflow::GraphDef& graph) override;
  Status Extend(const tensorflow::GraphDef& graph) override;
  using Session::Run;
  Status Run(const tensorflow::RunOptions& options, const FeedList& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
             tensorflow::RunMetadata* metadata) override;
  Status ListDevices(std::vector<tensorflow::DeviceAttributes>* devices) override;
  Status Close() override;

  const std::string& handle() const { return handle_; }

 private:
  GrpcSession(SessionOptions options, std::string address, bool allow_in_process_master);
  // The master of this process serving the target, if any; looked up per call, so a
  // server stopped meanwhile is never called.
  Master* InProcessMaster() const;
  tensorflow::MasterService::Stub* Stub();
  Status CurrentHandle(std::string* handle);

  const SessionOptions options_;
  const std::string address_;  // "host:port"
  const bool allow_in_process_master_;

  std::mutex stub_mu_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<tensorflow::MasterService::Stub> stub_;

  std::mutex mu_;
  std::string handle_;
  int64_t graph_version_ = 0;
  bool closed_ = false;
};

}  // namespace clab
