#include "clab/distributed/LinkProbe.h"

#include "clab/distributed/ClusterSpec.h"
#include "clab/probe.grpc.pb.h"
#include "distributed/GrpcChannels.h"
#include "distributed/GrpcStatus.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

namespace clab {
namespace {

Status FromGrpc(const grpc::Status& status, const std::string& address, const char* method) {
  return errors::Annotate(FromGrpcStatus(status), StrCat(method, " to ", address, " failed: "));
}

std::chrono::system_clock::time_point Deadline(int timeout_ms) {
  return std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms);
}

class GrpcLinkProbe final : public LinkProbe {
 public:
  explicit GrpcLinkProbe(std::string address)
      : address_(std::move(address)), stub_(ProbeService::NewStub(CreateChannel(address_))) {}

  Status Echo(int64_t bytes, int timeout_ms) override {
    if (echo_request_.payload().size() != static_cast<size_t>(bytes))
      echo_request_.set_payload(std::string(static_cast<size_t>(bytes), '\x5a'));
    grpc::ClientContext context;
    context.set_deadline(Deadline(timeout_ms));
    context.set_wait_for_ready(true);
    EchoResponse response;
    CLAB_RETURN_IF_ERROR(FromGrpc(stub_->Echo(&context, echo_request_, &response), address_, "Echo"));
    if (response.payload().size() != static_cast<size_t>(bytes))
      return errors::DataLoss("Echo to ", address_, " returned ", response.payload().size(), " bytes instead of ",
                              bytes);
    return OkStatus();
  }

  Status Fetch(int64_t bytes, int timeout_ms) override {
    FetchRequest request;
    request.set_bytes(bytes);
    grpc::ClientContext context;
    context.set_deadline(Deadline(timeout_ms));
    context.set_wait_for_ready(true);
    FetchResponse response;
    CLAB_RETURN_IF_ERROR(FromGrpc(stub_->Fetch(&context, request, &response), address_, "Fetch"));
    if (response.payload().size() != static_cast<size_t>(bytes))
      return errors::DataLoss("Fetch from ", address_, " returned ", response.payload().size(), " bytes instead of ",
                              bytes);
    return OkStatus();
  }

 private:
  const std::string address_;
  std::unique_ptr<ProbeService::Stub> stub_;
  EchoRequest echo_request_;
};

}  // namespace

StatusOr<std::unique_ptr<LinkProbe>> LinkProbe::Connect(const std::string& address) {
  std::string host_port = address;
  if (host_port.rfind("grpc://", 0) == 0) host_port = host_port.substr(7);
  CLAB_RETURN_IF_ERROR(HostPort::Parse(host_port).status());
  return std::unique_ptr<LinkProbe>(new GrpcLinkProbe(host_port));
}

}  // namespace clab
