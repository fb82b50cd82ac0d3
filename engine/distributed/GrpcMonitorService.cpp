#include "distributed/GrpcMonitorService.h"

#include "clab/Version.h"
#include "clab/io/EventFileWriter.h"
#include "distributed/GrpcStatus.h"

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
  return ToGrpcStatus(GuardedCall("Watch", [&]() -> Status {
    int64_t seen = request->since_seq();
    hub_->WatcherAttached();
    struct Detach {
      EventHub* hub;
      ~Detach() { hub->WatcherDetached(); }
    } detach{hub_};
    while (!context->IsCancelled()) {
      const std::vector<TaskEvent> events = hub_->WaitSince(seen, kWatchPoll);
      for (const TaskEvent& event : events) {
        if (!writer->Write(event)) return errors::Cancelled("the watcher went away");
        seen = event.seq();
      }
      if (!events.empty()) hub_->Delivered(seen);
      if (events.empty() && hub_->closed()) return OkStatus();
    }
    return errors::Cancelled("the watcher went away");
  }));
}

grpc::Status GrpcMonitorService::Publish(grpc::ServerContext* context, const PublishRequest* request,
                                         PublishResponse*) {
  return ToGrpcStatus(GuardedCall("Publish", [&]() -> Status {
    if (request->events_size() > kMaxPublishedEvents)
      return errors::ResourceExhausted("Publish carries ", request->events_size(), " events; at most ",
                                       kMaxPublishedEvents, " per call");
    for (const TaskEvent& event : request->events()) {
      TaskEvent copy = event;
      copy.set_seq(0);  // the hub numbers events itself
      if (copy.source().empty()) copy.set_source(context->peer());
      hub_->Publish(std::move(copy));
    }
    return OkStatus();
  }));
}

grpc::Status GrpcMonitorService::GetTaskInfo(grpc::ServerContext*, const TaskInfoRequest*, TaskInfoResponse* response) {
  return ToGrpcStatus(GuardedCall("GetTaskInfo", [&] {
    response->set_task(hub_->task());
    response->set_version(CLAB_VERSION);
    response->set_pid(::getpid());
    response->set_start_time(start_time_);
    *response->mutable_state() = hub_->last_state();
    if (devices_)
      for (const tensorflow::DeviceAttributes& device : devices_()) *response->add_devices() = device;
    return OkStatus();
  }));
}

}  // namespace clab
