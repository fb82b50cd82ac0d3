#include "bench/FloorClient.h"

#include "bench/FloorService.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

namespace clab::cli {
namespace {

constexpr auto kDeadline = std::chrono::seconds(30);

Status Failed(const grpc::Status& status, const char* method, const std::string& address) {
  return errors::Unavailable(method, " to the floor server at ", address, " failed: ", status.error_message(), " (",
                             static_cast<int>(status.error_code()), ")");
}

}  // namespace

FloorClient::FloorClient(const std::string& address) : address_(address) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(static_cast<int>(FloorService::kMaxFetchBytes + (1 << 20)));
  stub_ =
      bench::FloorService::NewStub(grpc::CreateCustomChannel(address_, grpc::InsecureChannelCredentials(), arguments));
}

Status FloorClient::Echo(int64_t bytes) {
  if (echo_.payload().size() != static_cast<size_t>(bytes))
    echo_.set_payload(std::string(static_cast<size_t>(bytes), 'e'));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kDeadline);
  bench::FloorEcho reply;
  const grpc::Status status = stub_->Echo(&context, echo_, &reply);
  if (!status.ok()) return Failed(status, "Echo", address_);
  if (reply.payload().size() != static_cast<size_t>(bytes))
    return errors::DataLoss("Echo to the floor server at ", address_, " returned ", reply.payload().size(),
                            " bytes instead of ", bytes);
  return OkStatus();
}

Status FloorClient::Fetch(int64_t bytes) {
  fetch_.set_bytes(bytes);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kDeadline);
  bench::FloorFetchReply reply;
  const grpc::Status status = stub_->Fetch(&context, fetch_, &reply);
  if (!status.ok()) return Failed(status, "Fetch", address_);
  if (reply.payload().size() != static_cast<size_t>(bytes))
    return errors::DataLoss("Fetch from the floor server at ", address_, " returned ", reply.payload().size(),
                            " bytes instead of ", bytes);
  return OkStatus();
}

}  // namespace clab::cli
