#include "distributed/LocalWorker.h"

namespace clab {

void LocalWorker::GetStatusAsync(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response,
                                 int64_t deadline_ms, Done done) {
  worker_->GetStatus(request, response);
  done(OkStatus());
}

void LocalWorker::CreateWorkerSessionAsync(const tensorflow::CreateWorkerSessionRequest& request,
                                           tensorflow::CreateWorkerSessionResponse* response, Done done) {
  done(worker_->CreateWorkerSession(request));
}

void LocalWorker::DeleteWorkerSessionAsync(const tensorflow::DeleteWorkerSessionRequest& request,
                                           tensorflow::DeleteWorkerSessionResponse* response, Done done) {
  done(worker_->DeleteWorkerSession(request));
}

void LocalWorker::RegisterGraphAsync(const tensorflow::RegisterGraphRequest& request,
                                     tensorflow::RegisterGraphResponse* response, Done done) {
  done(worker_->RegisterGraph(request, response));
}

void LocalWorker::DeregisterGraphAsync(const tensorflow::DeregisterGraphRequest& request,
                                       tensorflow::DeregisterGraphResponse* response, Done done) {
  done(worker_->DeregisterGraph(request));
}

void LocalWorker::RunGraphAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                                CallCancellation* cancellation, Done done) {
  worker_->RunGraphAsync(request, response, cancellation, std::move(done));
}

void LocalWorker::RunGraphWithTensorsAsync(const tensorflow::RunGraphRequest& request,
                                           tensorflow::RunGraphResponse* response, std::vector<Tensor>* fetched,
                                           CallCancellation* cancellation, Done done) {
  worker_->RunGraphAsync(request, response, cancellation, std::move(done), fetched);
}

void LocalWorker::RunGraphInProcessAsync(const tensorflow::RunGraphRequest& request,
                                         tensorflow::RunGraphResponse* response, std::vector<Tensor> fed,
                                         std::vector<Tensor>* fetched, CallCancellation* cancellation, Done done) {
  worker_->RunGraphAsync(request, response, cancellation, std::move(done), fetched, &fed);
}

void LocalWorker::CleanupGraphAsync(const tensorflow::CleanupGraphRequest& request,
                                    tensorflow::CleanupGraphResponse* response, Done done) {
  worker_->CleanupGraph(request);
  done(OkStatus());
}

void LocalWorker::RecvTensorAsync(const tensorflow::RecvTensorRequest& request,
                                  tensorflow::RecvTensorResponse* response, CallCancellation* cancellation, Done done) {
  worker_->RecvTensorAsync(request, response, cancellation, std::move(done));
}

void LocalWorker::RecvTensorValueAsync(const tensorflow::RecvTensorRequest& request, Tensor* tensor, bool* is_dead,
                                       CallCancellation* cancellation, Done done) {
  worker_->RecvTensorValueAsync(request.step_id(), request.rendezvous_key(), cancellation,
                                [tensor, is_dead, done = std::move(done)](const Status& status, const Tensor& value) {
                                  if (status.ok()) *tensor = value;
                                  if (is_dead) *is_dead = false;
                                  done(status);
                                });
}

}  // namespace clab
