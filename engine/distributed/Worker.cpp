#include "distributed/Worker.h"
#include "core/BoundedMillis.h"

#include "clab/core/Mutex.h"
#include "clab/runtime/Rendezvous.h"
#include "core/WallClock.h"
#include "distributed/RegisteredGraph.h"
#include "distributed/StepStatsLog.h"
#include "distributed/StepTable.h"
#include "distributed/WorkerSession.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <unordered_set>

namespace clab {
namespace {

// Graph handles start at a random point, so a restarted worker never takes a handle
// registered with its predecessor for one of its own.
uint64_t RandomGraphHandleBase() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

std::string Hex16(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// A TensorFlow master's RunGraph fetches by rendezvous key: the tensors the run's
// client-terminated _Send nodes left in the step's rendezvous, in the order asked.
void CollectSentTensors(StepRendezvous* rendezvous, std::vector<std::string> keys,
                        tensorflow::RunGraphResponse* response, std::function<void(const Status&)> done) {
  struct Gather {
    std::vector<std::string> keys;
    std::vector<Tensor> values;
    std::atomic<size_t> pending{0};
    Mutex mu;
    Status status ABSL_GUARDED_BY(mu);
    tensorflow::RunGraphResponse* response = nullptr;
    std::function<void(const Status&)> done;
  };
  auto gather = std::make_shared<Gather>();
  gather->values.resize(keys.size());
  gather->pending.store(keys.size());
  gather->keys = std::move(keys);
  gather->response = response;
  gather->done = std::move(done);
  for (size_t i = 0; i < gather->keys.size(); ++i) {
    rendezvous->RecvLocalAsync(gather->keys[i], [gather, i](const Status& status, const Tensor& value) {
      if (status.ok()) {
        gather->values[i] = value;
      } else {
        MutexLock lock(gather->mu);
        if (gather->status.ok()) gather->status = status;
      }
      if (gather->pending.fetch_sub(1) != 1) return;
      Status result;
      {
        MutexLock lock(gather->mu);
        result = gather->status;
      }
      if (result.ok()) {
        for (size_t k = 0; k < gather->keys.size(); ++k) {
          tensorflow::NamedTensorProto* out = gather->response->add_recv();
          out->set_name(gather->keys[k]);
          gather->values[k].AsProto(out->mutable_tensor());
        }
      }
      gather->done(result);
    });
  }
}

}  // namespace

struct Worker::Impl {
  Impl(const std::string& task_name, DeviceMgr* devices, WorkerCacheFactory factory)
      : task_name(task_name), devices(devices), cache_factory(std::move(factory)), steps(task_name),
        next_graph_handle(RandomGraphHandleBase()) {}

  StatusOr<std::shared_ptr<WorkerSession>> FindSession(const std::string& handle) {
    MutexLock lock(mu);
    if (handle.empty()) {
      // Masters that never call CreateWorkerSession share one session that reaches the
      // peers of the cluster this server was started with.
      if (!default_session) {
        std::unique_ptr<WorkerCache> peers;
        if (cache_factory) {
          CLAB_ASSIGN_OR_RETURN(peers, cache_factory(tensorflow::ServerDef()));
        }
        default_session = std::make_shared<WorkerSession>("", std::move(peers));
      }
      return default_session;
    }
    auto it = sessions.find(handle);
    if (it == sessions.end())
      return errors::Aborted("Session handle is not found: ", handle, ". Possibly this worker (", task_name,
                             ") just restarted.");
    return it->second;
  }

  Status GraphNotFound(const std::string& handle) const {
    return errors::Aborted("Graph handle is not found: ", handle, ". Possibly this worker (", task_name,
                           ") just restarted.");
  }

  // Keys are checked once each: a training loop asks for the same keys every step.
  Status CheckRecvKey(const std::string& key) {
    {
      MutexLock lock(keys_mu);
      if (valid_keys.count(key)) return OkStatus();
    }
    CLAB_ASSIGN_OR_RETURN(RendezvousKey parsed, RendezvousKey::Parse(key));
    StatusOr<Device*> device = devices->Lookup(parsed.send_device);
    if (!device.ok() || (*device)->name() != parsed.send_device)
      return errors::InvalidArgument("RecvTensor for ", key, ": ", parsed.send_device, " is not a device of ",
                                     task_name, "; the request reached the wrong task");
    if (parsed.send_incarnation != (*device)->incarnation())
      return errors::Aborted("RecvTensor expects a different device incarnation: ", parsed.send_incarnation, " vs. ",
                             (*device)->incarnation(), ". Your worker job (", task_name,
                             ") was probably restarted. Check your worker job for the reason why it was restarted.");
    MutexLock lock(keys_mu);
    if (valid_keys.size() >= kMaxRememberedKeys) valid_keys.clear();
    valid_keys.insert(key);
    return OkStatus();
  }

  void RunStarted() {
    MutexLock lock(runs_mu);
    ++runs_in_flight;
  }
  void RunEnded() {
    MutexLock lock(runs_mu);
    if (--runs_in_flight == 0) runs_done.NotifyAll();
  }
  // Running steps refer to the devices and the worker until their last callback.
  void WaitForRuns() {
    MutexLock lock(runs_mu);
    runs_done.Wait(runs_mu, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(runs_mu) { return runs_in_flight == 0; });
  }

  static constexpr size_t kMaxRememberedKeys = 100000;

  const std::string task_name;
  DeviceMgr* const devices;
  const WorkerCacheFactory cache_factory;
  StepTable steps;
  StepStatsLog stats_log;

  Mutex mu;
  std::map<std::string, std::shared_ptr<WorkerSession>> sessions ABSL_GUARDED_BY(mu);
  std::shared_ptr<WorkerSession> default_session ABSL_GUARDED_BY(mu);
  std::atomic<uint64_t> next_graph_handle;

  Mutex keys_mu;
  std::unordered_set<std::string> valid_keys ABSL_GUARDED_BY(keys_mu);

  Mutex runs_mu;
  CondVar runs_done;
  int runs_in_flight ABSL_GUARDED_BY(runs_mu) = 0;
};

Worker::Worker(std::string task_name, DeviceMgr* devices, WorkerCacheFactory cache_factory)
    : impl_(std::make_unique<Impl>(task_name, devices, std::move(cache_factory))), task_name_(std::move(task_name)),
      devices_(devices) {}

Worker::~Worker() {
  AbortAllSteps(errors::Cancelled("The worker of ", task_name_, " is shutting down"));
  impl_->WaitForRuns();
}

void Worker::GetStatus(const tensorflow::GetStatusRequest& request, tensorflow::GetStatusResponse* response) {
  response->clear_device_attributes();
  for (const Device* device : devices_->devices()) *response->add_device_attributes() = device->attributes();
}

Status Worker::CreateWorkerSession(const tensorflow::CreateWorkerSessionRequest& request) {
  if (request.session_handle().empty())
    return errors::InvalidArgument("CreateWorkerSession on ", task_name_, " needs a session handle");
  {
    // A retried request finds its session made already; that is success.
    MutexLock lock(impl_->mu);
    if (impl_->sessions.count(request.session_handle())) return OkStatus();
  }
  std::unique_ptr<WorkerCache> peers;
  if (impl_->cache_factory) {
    CLAB_ASSIGN_OR_RETURN(peers, impl_->cache_factory(request.server_def()));
  }
  auto session = std::make_shared<WorkerSession>(request.session_handle(), std::move(peers));
  MutexLock lock(impl_->mu);
  impl_->sessions.try_emplace(request.session_handle(), std::move(session));
  return OkStatus();
}

Status Worker::DeleteWorkerSession(const tensorflow::DeleteWorkerSessionRequest& request) {
  std::shared_ptr<WorkerSession> session;
  {
    MutexLock lock(impl_->mu);
    auto it = impl_->sessions.find(request.session_handle());
    if (it == impl_->sessions.end()) return OkStatus();
    session = std::move(it->second);
    impl_->sessions.erase(it);
  }
  // Dropped outside the lock; steps still running keep it until they end.
  return OkStatus();
}

Status Worker::RegisterGraph(const tensorflow::RegisterGraphRequest& request,
                             tensorflow::RegisterGraphResponse* response) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session, impl_->FindSession(request.session_handle()));
  CLAB_ASSIGN_OR_RETURN(std::unique_ptr<RegisteredGraph> graph,
                        RegisteredGraph::Create(request, *devices_, task_name_, session->peers()));
  const std::string handle = Hex16(impl_->next_graph_handle.fetch_add(1));
  session->AddGraph(handle, std::move(graph));
  response->set_graph_handle(handle);
  return OkStatus();
}

Status Worker::DeregisterGraph(const tensorflow::DeregisterGraphRequest& request) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<WorkerSession> session, impl_->FindSession(request.session_handle()));
  if (!session->RemoveGraph(request.graph_handle())) return impl_->GraphNotFound(request.graph_handle());
  return OkStatus();
}

void Worker::RunGraphAsync(const tensorflow::RunGraphRequest& request, tensorflow::RunGraphResponse* response,
                           CallCancellation* cancellation, std::function<void(const Status&)> done,
                           std::vector<Tensor>* fetched, std::vector<Tensor>* fed) {
  auto finish = [response, in_body = request.store_errors_in_response_body(),
                 done = std::move(done)](const Status& status) {
    if (!status.ok() && in_body) {
      response->set_status_code(static_cast<int32_t>(status.code()));
      response->set_status_error_message(std::string(status.message()));
      return done(OkStatus());
    }
    done(status);
  };
  const int64_t step_id = request.step_id();
  if (cancellation && cancellation->cancelled())
    return finish(errors::Cancelled("RunGraph of step ", step_id, " on ", task_name_, " was cancelled"));

  StatusOr<std::shared_ptr<WorkerSession>> session = impl_->FindSession(request.session_handle());
  if (!session.ok()) return finish(session.status());
  std::shared_ptr<const RegisteredGraph> graph = (*session)->FindGraph(request.graph_handle());
  if (!graph) return finish(impl_->GraphNotFound(request.graph_handle()));

  if (request.is_partial())
    return finish(errors::Unimplemented("RunGraph of a partial run (RunGraphRequest.is_partial) is not supported by ",
                                        task_name_, "; ClusterLab's masters run partial runs step by step"));
  const std::vector<std::string>& feed_names = graph->feeds();
  // A graph registered without feed names (TensorFlow's masters) takes its fed tensors in
  // the step's rendezvous, named by their keys, where its client-terminated _Recv nodes
  // wait for them.
  const bool sends_by_key = feed_names.empty() && fed == nullptr && request.send_size() > 0;
  const size_t sent_count = fed != nullptr ? fed->size() : sends_by_key ? 0 : static_cast<size_t>(request.send_size());
  if (sent_count != feed_names.size())
    return finish(errors::InvalidArgument("RunGraph sent ", sent_count, " tensor(s) to graph ", request.graph_handle(),
                                          " on ", task_name_, ", which feeds ", feed_names.size()));
  std::vector<Tensor> feeds;
  if (fed != nullptr) {
    feeds = std::move(*fed);
  } else if (!sends_by_key) {
    feeds.resize(feed_names.size());
    for (int i = 0; i < request.send_size(); ++i) {
      const tensorflow::NamedTensorProto& sent = request.send(i);
      const int index =
          sent.name().empty() || sent.name() == feed_names[static_cast<size_t>(i)] ? i : graph->FeedIndex(sent.name());
      if (index < 0)
        return finish(errors::InvalidArgument("RunGraph fed '", sent.name(), "', which graph ", request.graph_handle(),
                                              " on ", task_name_, " does not feed"));
      StatusOr<Tensor> value = Tensor::FromProto(sent.tensor());
      if (!value.ok())
        return finish(errors::Annotate(value.status(), StrCat("Feed '", sent.name(), "' of RunGraph: ")));
      feeds[static_cast<size_t>(index)] = std::move(value).value();
    }
  }

  StatusOr<std::shared_ptr<StepRendezvous>> acquired = impl_->steps.Acquire(step_id);
  if (!acquired.ok()) return finish(acquired.status());
  std::shared_ptr<StepRendezvous> rendezvous = std::move(acquired).value();
  // A request refused before its run starts lets go of the step as a run would.
  auto fail = [this, step_id, &finish](const Status& status) {
    impl_->steps.Release(step_id);
    finish(status);
  };
  // Two runs of one step may share this rendezvous (a ps partition cut in two parts): each
  // sets what it pulls from peers only when it pulls anything.
  if (!graph->remote_sources().empty()) rendezvous->SetRemoteSources(&graph->remote_sources());
  if (request.delivered_key_size() > 0)
    rendezvous->AddDeliveredKeys({request.delivered_key().begin(), request.delivered_key().end()});
  if (request.delivered_size() > 0) {
    std::vector<std::string> keys;
    for (const tensorflow::NamedTensorProto& delivered : request.delivered()) {
      StatusOr<Tensor> value = Tensor::FromProto(delivered.tensor());
      if (!value.ok())
        return fail(
            errors::Annotate(value.status(), StrCat("Delivered tensor '", delivered.name(), "' of RunGraph: ")));
      keys.push_back(delivered.name());
      if (Status sent = rendezvous->Send(delivered.name(), *value); !sent.ok()) return fail(sent);
    }
    rendezvous->AddDeliveredKeys(keys);
  }
  if (sends_by_key) {
    for (const tensorflow::NamedTensorProto& sent : request.send()) {
      if (Status key = RendezvousKey::Parse(sent.name()).status(); !key.ok())
        return fail(errors::InvalidArgument("RunGraph on ", task_name_, " sent '", sent.name(),
                                            "', which is neither a feed of graph ", request.graph_handle(),
                                            " nor a rendezvous key"));
      StatusOr<Tensor> value = Tensor::FromProto(sent.tensor());
      if (!value.ok()) return fail(errors::Annotate(value.status(), StrCat("Sent tensor '", sent.name(), "'")));
      if (Status put = rendezvous->Send(sent.name(), *value); !put.ok()) return fail(put);
    }
  }
  impl_->RunStarted();

  int cancel_id = -1;
  if (cancellation) {
    cancel_id = cancellation->Register([rendezvous, step_id, task = task_name_] {
      rendezvous->StartAbort(errors::Cancelled("RunGraph of step ", step_id, " on ", task, " was cancelled"));
    });
  }
  const bool collect_stats =
      request.exec_opts().record_timeline() || request.exec_opts().record_costs() || impl_->stats_log.enabled();
  std::vector<std::string> recv_keys(request.recv_key().begin(), request.recv_key().end());
  StepRendezvous* step_rendezvous = rendezvous.get();
  const RegisteredGraph* graph_ptr = graph.get();
  graph_ptr->RunAsync(
      step_id, step_rendezvous, std::move(feeds), collect_stats,
      [impl = impl_.get(), session = std::move(session).value(), graph = std::move(graph),
       rendezvous = std::move(rendezvous), cancellation, cancel_id, response, fetched, step_id, collect_stats,
       recv_keys = std::move(recv_keys), finish = std::move(finish)](RegisteredGraph::RunResult result) mutable {
        if (cancellation) cancellation->Deregister(cancel_id);
        impl->steps.Release(step_id);
        if (result.status.ok() && fetched != nullptr) {
          *fetched = std::move(result.fetches);
        } else if (result.status.ok()) {
          response->mutable_recv()->Reserve(static_cast<int>(result.fetches.size()));
          for (size_t i = 0; i < result.fetches.size(); ++i) {
            tensorflow::NamedTensorProto* out = response->add_recv();
            out->set_name(graph->fetches()[i]);
            result.fetches[i].AsProto(out->mutable_tensor());
          }
        }
        if (collect_stats) {
          impl->stats_log.Record(step_id, result.stats);
          *response->mutable_step_stats() = std::move(result.stats);
        }
        // The graph may be deregistered once this run ends; its executors are done with
        // the sources, and nothing else pulls through this step's rendezvous.
        rendezvous->ClearRemoteSources(&graph->remote_sources());
        auto answer = [impl, finish = std::move(finish)](const Status& status) {
          finish(status);
          impl->RunEnded();
        };
        if (result.status.ok() && !recv_keys.empty()) {
          // Taken before letting go of the step: the master cleans it up once answered.
          return CollectSentTensors(rendezvous.get(), std::move(recv_keys), response, std::move(answer));
        }
        // Let go of the step before answering: the master may clean it up right away.
        rendezvous.reset();
        graph.reset();
        session.reset();
        answer(result.status);
      });
}

Status Worker::CleanupAll(const tensorflow::CleanupAllRequest& request) {
  for (Device* device : devices_->devices()) {
    if (request.container_size() == 0) {
      device->resource_mgr()->Clear();
    } else {
      for (const std::string& container : request.container()) device->resource_mgr()->Clear(&container);
    }
  }
  return OkStatus();
}

void Worker::Logging(const tensorflow::LoggingRequest& request, tensorflow::LoggingResponse* response) {
  impl_->stats_log.Apply(request, response);
}

Status Worker::DeliverTensor(int64_t step_id, const std::string& key, const Tensor& value) {
  CLAB_ASSIGN_OR_RETURN(std::shared_ptr<StepRendezvous> rendezvous, impl_->steps.Acquire(step_id));
  Status sent = rendezvous->Send(key, value);
  impl_->steps.Release(step_id);
  return sent;
}

void Worker::CleanupGraph(const tensorflow::CleanupGraphRequest& request) { impl_->steps.Cleanup(request.step_id()); }

void Worker::RecvTensorValueAsync(int64_t step_id, const std::string& rendezvous_key, CallCancellation* cancellation,
                                  std::function<void(const Status&, const Tensor&)> done) {
  if (Status valid = impl_->CheckRecvKey(rendezvous_key); !valid.ok()) return done(valid, Tensor());
  // Held until the waiter is in: a run of the step ending meanwhile would otherwise find the
  // rendezvous idle, forget the step and abort it under this call.
  StatusOr<std::shared_ptr<StepRendezvous>> rendezvous = impl_->steps.Acquire(step_id);
  if (!rendezvous.ok()) return done(rendezvous.status(), Tensor());
  int cancel_id = -1;
  if (cancellation) {
    // The receiver gave up, so the step failed over there: fail it here too, as every
    // other partition of the step would wait in vain.
    cancel_id = cancellation->Register([step = *rendezvous, task = task_name_] {
      step->StartAbort(errors::Cancelled("RecvTensor for step ", step->step_id(), " on ", task,
                                         " was cancelled by the receiving task"));
    });
  }
  (*rendezvous)
      ->RecvLocalAsync(rendezvous_key,
                       [cancellation, cancel_id, done = std::move(done)](const Status& status, const Tensor& value) {
                         if (cancellation) cancellation->Deregister(cancel_id);
                         done(status, value);
                       });
  impl_->steps.Release(step_id);
}

void Worker::RecvTensorAsync(const tensorflow::RecvTensorRequest& request, tensorflow::RecvTensorResponse* response,
                             CallCancellation* cancellation, std::function<void(const Status&)> done) {
  RecvTensorValueAsync(request.step_id(), request.rendezvous_key(), cancellation,
                       [response, done = std::move(done)](const Status& status, const Tensor& value) {
                         if (status.ok()) {
                           value.AsProto(response->mutable_tensor());
                           response->set_send_start_micros(NowMicros());
                         }
                         done(status);
                       });
}

void Worker::AbortAllSteps(const Status& status) { impl_->steps.AbortAll(status); }

void Worker::SetAbandonedStepTimeout(int64_t timeout_ms) {
  impl_->steps.SetAbandonedTimeout(BoundedMillis(timeout_ms));
}

size_t Worker::NumActiveSteps() const { return impl_->steps.size(); }

int Worker::NumRunsInFlight() const {
  MutexLock lock(impl_->runs_mu);
  return impl_->runs_in_flight;
}

Status Worker::StepAbortStatus(int64_t step_id) const { return impl_->steps.AbortStatus(step_id); }

}  // namespace clab
