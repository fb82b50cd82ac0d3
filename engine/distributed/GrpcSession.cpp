#include "distributed/GrpcSession.h"
#include "core/BoundedMillis.h"

#include "distributed/GrpcChannels.h"
#include "distributed/GrpcStatus.h"
#include "distributed/Master.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <future>
#include <unordered_map>

namespace clab {
namespace {

constexpr std::string_view kScheme = "grpc://";

// gRPC's own words for a master it cannot reach; these get the address added, since
// they do not say which server was meant.
bool IsTransportError(std::string_view message) {
  for (std::string_view words :
       {"failed to connect", "Socket closed", "Connection reset", "Broken pipe", "Connection refused",
        "connections to all backends failing", "Endpoint", "Deadline Exceeded", "GOAWAY"}) {
    if (message.find(words) != std::string_view::npos) return true;
  }
  return false;
}

Status FromMasterCall(const grpc::Status& status, const std::string& address) {
  if (status.ok() || !IsTransportError(status.error_message())) return FromGrpcStatus(status);
  return Status(static_cast<absl::StatusCode>(status.error_code()),
                StrCat("Cannot reach the master at grpc://", address, ": ", status.error_message(),
                       ". Is the server for that address running?"));
}

// Issues one callback-API call and waits for it: `issue(context, on_done)`.
template <typename Issue>
Status CallMaster(const std::string& address, int64_t timeout_ms, Issue issue) {
  grpc::ClientContext context;
  if (timeout_ms > 0) context.set_deadline(std::chrono::system_clock::now() + BoundedMillis(timeout_ms));
  std::promise<grpc::Status> finished;
  issue(&context, [&finished](grpc::Status status) { finished.set_value(std::move(status)); });
  return FromMasterCall(finished.get_future().get(), address);
}

// A closing session does not wait long on a master that went away.
constexpr int64_t kCloseTimeoutMs = 10000;

}  // namespace

GrpcSession::GrpcSession(SessionOptions options, std::string address, bool allow_in_process_master)
    : options_(std::move(options)), address_(std::move(address)), allow_in_process_master_(allow_in_process_master) {}

GrpcSession::~GrpcSession() { Close().IgnoreError(); }

StatusOr<std::unique_ptr<GrpcSession>> GrpcSession::Open(const SessionOptions& options, bool allow_in_process_master) {
  std::string_view address = options.target;
  if (address.substr(0, kScheme.size()) != kScheme)
    return errors::InvalidArgument("Target '", options.target, "' is not a grpc://host:port address");
  address.remove_prefix(kScheme.size());
  CLAB_RETURN_IF_ERROR(HostPort::Parse(address).status());
  return std::unique_ptr<GrpcSession>(new GrpcSession(options, std::string(address), allow_in_process_master));
}

Master* GrpcSession::InProcessMaster() const {
  return allow_in_process_master_ ? FindLocalMaster(options_.target) : nullptr;
}

tensorflow::MasterService::Stub* GrpcSession::Stub() {
  std::lock_guard<std::mutex> lock(stub_mu_);
  if (!stub_) {
    channel_ = CreateChannel(address_);
    stub_ = tensorflow::MasterService::NewStub(channel_);
  }
  return stub_.get();
}

Status GrpcSession::CurrentHandle(std::string* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return errors::FailedPrecondition("Session is closed.");
  if (handle_.empty()) return errors::FailedPrecondition("Session was not created with a graph before Run()!");
  *handle = handle_;
  return OkStatus();
}

Status GrpcSession::Create(const tensorflow::GraphDef& graph) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition("Session is closed.");
    if (!handle_.empty()) return errors::AlreadyExists("A Graph has already been created for this session.");
  }
  tensorflow::CreateSessionRequest request;
  *request.mutable_graph_def() = graph;
  *request.mutable_config() = options_.config;
  request.set_target(options_.target);
  tensorflow::CreateSessionResponse response;
  Status status;
  if (Master* master = InProcessMaster()) {
    status = master->CreateSession(request, &response);
  } else {
    auto* stub = Stub();
    status = CallMaster(address_, 0, [&](grpc::ClientContext* context, std::function<void(grpc::Status)> done) {
      stub->async()->CreateSession(context, &request, &response, std::move(done));
    });
  }
  CLAB_RETURN_IF_ERROR(status);
  std::lock_guard<std::mutex> lock(mu_);
  handle_ = response.session_handle();
  graph_version_ = response.graph_version();
  return OkStatus();
}

Status GrpcSession::Extend(const tensorflow::GraphDef& graph) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition("Session is closed.");
  }
  std::string handle;
  if (!CurrentHandle(&handle).ok()) return Create(graph);
  tensorflow::ExtendSessionRequest request;
  request.set_session_handle(handle);
  *request.mutable_graph_def() = graph;
  {
    std::lock_guard<std::mutex> lock(mu_);
    request.set_current_graph_version(graph_version_);
  }
  tensorflow::ExtendSessionResponse response;
  Status status;
  if (Master* master = InProcessMaster()) {
    status = master->ExtendSession(request, &response);
  } else {
    auto* stub = Stub();
    status = CallMaster(address_, 0, [&](grpc::ClientContext* context, std::function<void(grpc::Status)> done) {
      stub->async()->ExtendSession(context, &request, &response, std::move(done));
    });
  }
  CLAB_RETURN_IF_ERROR(status);
  std::lock_guard<std::mutex> lock(mu_);
  graph_version_ = response.new_graph_version();
  return OkStatus();
}

Status GrpcSession::Run(const tensorflow::RunOptions& options, const FeedList& feeds,
                        const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                        std::vector<Tensor>* outputs, tensorflow::RunMetadata* metadata) {
  tensorflow::RunStepRequest request;
  std::string handle;
  CLAB_RETURN_IF_ERROR(CurrentHandle(&handle));
  request.set_session_handle(std::move(handle));
  for (const std::string& fetch : fetches) request.add_fetch(fetch);
  for (const std::string& target : targets) request.add_target(target);
  *request.mutable_options() = options;

  tensorflow::RunStepResponse response;
  Status status;
  if (Master* master = InProcessMaster()) {
    // In process the tensors go and come back as they are, without a trip through
    // TensorProto: the request only names the fed tensors.
    std::vector<Tensor> values;
    values.reserve(feeds.size());
    for (const auto& [name, value] : feeds) {
      request.add_feed()->set_name(name);
      values.push_back(value);
    }
    status = master->RunStepWithTensors(request, values, &response, outputs);
    if (status.ok() && response.status_code() != 0)
      status = Status(static_cast<absl::StatusCode>(response.status_code()), response.status_error_message());
    if (metadata != nullptr) metadata->Swap(response.mutable_metadata());
    return status;
  }
  for (const auto& [name, value] : feeds) {
    tensorflow::NamedTensorProto* feed = request.add_feed();
    feed->set_name(name);
    value.AsProto(feed->mutable_tensor());
  }
  auto* stub = Stub();
  status = CallMaster(address_, 0, [&](grpc::ClientContext* context, std::function<void(grpc::Status)> done) {
    stub->async()->RunStep(context, &request, &response, std::move(done));
  });
  if (status.ok() && response.status_code() != 0)
    status = Status(static_cast<absl::StatusCode>(response.status_code()), response.status_error_message());
  if (metadata != nullptr) metadata->Swap(response.mutable_metadata());
  CLAB_RETURN_IF_ERROR(status);

  // A master returns tensors in fetch order; one that does not is matched by name.
  outputs->clear();
  outputs->reserve(fetches.size());
  bool in_order = response.tensor_size() == static_cast<int>(fetches.size());
  for (size_t i = 0; in_order && i < fetches.size(); ++i)
    in_order = response.tensor(static_cast<int>(i)).name() == fetches[i];
  std::unordered_map<std::string_view, int> by_name;
  if (!in_order)
    for (int i = 0; i < response.tensor_size(); ++i) by_name.emplace(response.tensor(i).name(), i);
  for (size_t i = 0; i < fetches.size(); ++i) {
    int index = static_cast<int>(i);
    if (!in_order) {
      auto it = by_name.find(fetches[i]);
      if (it == by_name.end())
        return errors::Internal("The master at grpc://", address_, " returned no value for fetch '", fetches[i], "'");
      index = it->second;
    }
    CLAB_ASSIGN_OR_RETURN(Tensor value, Tensor::FromProto(response.tensor(index).tensor()));
    outputs->push_back(std::move(value));
  }
  return OkStatus();
}

Status GrpcSession::ListDevices(std::vector<tensorflow::DeviceAttributes>* devices) {
  tensorflow::ListDevicesRequest request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) request.set_session_handle(handle_);
  }
  tensorflow::ListDevicesResponse response;
  Status status;
  if (Master* master = InProcessMaster()) {
    status = master->ListDevices(request, &response);
  } else {
    auto* stub = Stub();
    status = CallMaster(address_, 0, [&](grpc::ClientContext* context, std::function<void(grpc::Status)> done) {
      stub->async()->ListDevices(context, &request, &response, std::move(done));
    });
  }
  CLAB_RETURN_IF_ERROR(status);
  devices->clear();
  for (const auto& device : response.local_device()) devices->push_back(device);
  for (const auto& device : response.remote_device()) devices->push_back(device);
  return OkStatus();
}

Status GrpcSession::Close() {
  tensorflow::CloseSessionRequest request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return OkStatus();
    closed_ = true;
    if (handle_.empty()) return OkStatus();
    request.set_session_handle(handle_);
  }
  tensorflow::CloseSessionResponse response;
  if (Master* master = InProcessMaster()) return master->CloseSession(request);
  auto* stub = Stub();
  return CallMaster(address_, kCloseTimeoutMs,
                    [&](grpc::ClientContext* context, std::function<void(grpc::Status)> done) {
                      stub->async()->CloseSession(context, &request, &response, std::move(done));
                    });
}

namespace {
// The engine is a shared library: this runs when it is loaded, before any NewSession.
[[maybe_unused]] const bool kGrpcSessionRegistered = [] {
  RegisterSessionFactory("grpc", [](const SessionOptions& options) -> StatusOr<std::unique_ptr<Session>> {
    CLAB_ASSIGN_OR_RETURN(std::unique_ptr<GrpcSession> session, GrpcSession::Open(options));
    return std::unique_ptr<Session>(std::move(session));
  });
  return true;
}();
}  // namespace

}  // namespace clab
