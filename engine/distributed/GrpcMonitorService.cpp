#include "distributed/GrpcMonitorService.h"

#include "clab/Version.h"
#include "clab/io/EventFileWriter.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

namespace clab {
namespace {

// How long one wait lasts before the watcher checks whether its client is still there.
constexpr std::chrono::milliseconds kWatchPoll(200);
constexpr int kMaxPublishedEvents = 10000;

}  // namespace

GrpcMonitorService::GrpcMonitorService(EventHub* hub, DevicesFn devices)
    : hub_(hub), devices_(std::move(devices)), start_time_(WallTimeSeconds()) {}

grpc::Status GrpcMonitorService::Watch(grpc::ServerContext* context, const WatchRequest* request,
                                       grpc::ServerWriter<TaskEvent>* writer) {
  int64_t seen = request->since_seq();
  hub_->WatcherAttached();
  struct Detach {
    EventHub* hub;
    ~Detach() { hub->WatcherDetached(); }
  } detach{hub_};
  while (!context->IsCancelled()) {
    const std::vector<TaskEvent> events = hub_->WaitSince(seen, kWatchPoll);
    for (const TaskEvent& event : events) {
      if (!writer->Write(event)) return grpc::Status(grpc::StatusCode::CANCELLED, "the watcher went away");
      seen = event.seq();
    }
    if (!events.empty()) hub_->Delivered(seen);
    if (events.empty() && hub_->closed()) return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::CANCELLED, "the watcher went away");
}

grpc::Status GrpcMonitorService::Publish(grpc::ServerContext* context, const PublishRequest* request,
                                         PublishResponse*) {
  if (request->events_size() > kMaxPublishedEvents)
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "Publish carries " + std::to_string(request->events_size()) + " events; at most " +
                            std::to_string(kMaxPublishedEvents) + " per call");
  for (const TaskEvent& event : request->events()) {
    TaskEvent copy = event;
    copy.set_seq(0);  // the hub numbers events itself
    if (copy.source().empty()) copy.set_source(context->peer());
    hub_->Publish(std::move(copy));
  }
  return grpc::Status::OK;
}

grpc::Status GrpcMonitorService::GetTaskInfo(grpc::ServerContext*, const TaskInfoRequest*, TaskInfoResponse* response) {
  response->set_task(hub_->task());
  response->set_version(CLAB_VERSION);
  response->set_pid(::getpid());
  response->set_start_time(start_time_);
  *response->mutable_state() = hub_->last_state();
  if (devices_)
    for (const tensorflow::DeviceAttributes& device : devices_()) *response->add_devices() = device;
  return grpc::Status::OK;
}

}  // namespace clab
