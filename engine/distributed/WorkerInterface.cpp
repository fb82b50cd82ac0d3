#include "distributed/WorkerInterface.h"

#include <condition_variable>
#include <memory>

namespace clab {

void WorkerInterface::RecvTensorValueAsync(const tensorflow::RecvTensorRequest& request, Tensor* tensor, bool* is_dead,
                                           CallCancellation* cancellation, Done done) {
  auto response = std::make_shared<tensorflow::RecvTensorResponse>();
  RecvTensorAsync(request, response.get(), cancellation,
                  [response, tensor, is_dead, done = std::move(done)](const Status& status) {
                    if (!status.ok()) return done(status);
                    StatusOr<Tensor> value = Tensor::FromProto(response->tensor());
                    if (!value.ok()) return done(value.status());
                    *tensor = std::move(value).value();
                    if (is_dead) *is_dead = response->is_dead();
                    done(OkStatus());
                  });
}

void WorkerInterface::RunGraphWithTensorsAsync(const tensorflow::RunGraphRequest& request,
                                               tensorflow::RunGraphResponse* response, std::vector<Tensor>* fetched,
                                               CallCancellation* cancellation, Done done) {
  RunGraphAsync(request, response, cancellation, [response, fetched, done = std::move(done)](const Status& status) {
    if (!status.ok() || response->status_code() != 0) return done(status);
    fetched->clear();
    fetched->reserve(static_cast<size_t>(response->recv_size()));
    for (const tensorflow::NamedTensorProto& recv : response->recv()) {
      StatusOr<Tensor> value = Tensor::FromProto(recv.tensor());
      if (!value.ok()) return done(errors::Annotate(value.status(), StrCat("Fetched tensor '", recv.name(), "'")));
      fetched->push_back(std::move(value).value());
    }
    done(OkStatus());
  });
}

void WorkerInterface::RunGraphInProcessAsync(const tensorflow::RunGraphRequest& request,
                                             tensorflow::RunGraphResponse* response, std::vector<Tensor> fed,
                                             std::vector<Tensor>* fetched, CallCancellation* cancellation, Done done) {
  done(errors::Unimplemented("Tensors can only be handed over to a worker in the master's own process (graph ",
                             request.graph_handle(), ")"));
}

Status WorkerInterface::DeliverTensor(int64_t step_id, const std::string& key, const Tensor& value) {
  return errors::Unimplemented("Tensors can only be delivered to a worker in the master's own process (key ", key, ")");
}

Status WorkerInterface::GetStatus(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response,
                                  int64_t deadline_ms) {
  // Shared with the callback, which may run after a spurious wake-up or on this thread.
  struct Waiter {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    Status status;
  };
  auto waiter = std::make_shared<Waiter>();
  GetStatusAsync(request, response, deadline_ms, [waiter](const Status& status) {
    std::lock_guard<std::mutex> lock(waiter->mu);
    waiter->status = status;
    waiter->done = true;
    waiter->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(waiter->mu);
  waiter->cv.wait(lock, [&] { return waiter->done; });
  return waiter->status;
}

}  // namespace clab
