#include "clab/train/hooks/SyncReplicasHook.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace clab {

// What the chief's loop thread shares with the hook; the thread holds it too, so a thread
// left behind (a take that never returns) never touches a destroyed hook.
struct SyncReplicasHook::Loop {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> rounds{0};
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
};

SyncReplicasHook::SyncReplicasHook(bool is_chief, SyncReplicasOps ops, SyncReplicasOptions options)
    : is_chief_(is_chief), ops_(std::move(ops)), options_(std::move(options)) {}

SyncReplicasHook::~SyncReplicasHook() { StopLoop(nullptr); }

Status SyncReplicasHook::Begin(HookEnvironment& env) {
  log_ = env.log;
  graph_def_ = env.graph_def;
  master_ = env.master;
  config_ = env.config;
  if (log_)
    log_->Info(StrCat("SyncReplicas: replicas_to_aggregate=", options_.replicas_to_aggregate,
                      "; total_num_replicas=", options_.total_num_replicas));
  return OkStatus();
}

Status SyncReplicasHook::AfterCreateSession(Session& session) {
  std::vector<Tensor> unused;
  const std::string& init = is_chief_ ? ops_.chief_init_op : ops_.local_step_init_op;
  Status s = session.Run({}, {}, {init}, &unused);
  if (!s.ok()) return errors::Annotate(s, "initialising the local step of synchronous replicas: ");
  if (!is_chief_) return OkStatus();
  if (!ops_.init_tokens_op.empty()) CLAB_RETURN_IF_ERROR(session.Run({}, {}, {ops_.init_tokens_op}, &unused));
  if (!loop_) StartLoop(master_.empty() ? &session : nullptr);
  return OkStatus();
}

void SyncReplicasHook::StartLoop(Session* shared) {
  loop_ = std::make_shared<Loop>();
  thread_ = std::thread([loop = loop_, graph = *graph_def_, master = master_, config = config_, sync_op = ops_.sync_op,
                         log = log_, shared] {
    std::unique_ptr<Session> own;
    Session* session = shared;
    while (!loop->stop) {
      if (session == nullptr) {
        SessionOptions options;
        options.target = master;
        options.config = config;
        auto created = NewSession(options);
        Status s = created.ok() ? (*created)->Create(graph) : created.status();
        if (s.ok()) {
          own = std::move(created).value();
          session = own.get();
        } else {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          continue;
        }
      }
      std::vector<Tensor> unused;
      Status s = session->Run({}, {}, {sync_op}, &unused);
      if (s.ok()) {
        ++loop->rounds;
        continue;
      }
      if (loop->stop) break;
      if (absl::IsAborted(s) || absl::IsUnavailable(s) || absl::IsCancelled(s)) {
        // A restarted ps (or the chief's own session being recreated): connect again.
        if (shared != nullptr) break;  // an in-process session does not come back
        if (log) log->Info(StrCat("SyncReplicas: the aggregation loop reconnects after: ", FormatStatus(s)));
        own->Close().IgnoreError();
        own.reset();
        session = nullptr;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      if (log)
        log->Error(std::string(absl::StatusCodeToString(s.code())),
                   StrCat("SyncReplicas: the aggregation loop stopped: ", s.message()));
      break;
    }
    if (own) own->Close().IgnoreError();
    std::lock_guard<std::mutex> lock(loop->mu);
    loop->finished = true;
    loop->cv.notify_all();
  });
}

void SyncReplicasHook::StopLoop(Session* session) {
  if (!loop_) return;
  loop_->stop = true;
  // The loop waits in a take for gradients that will not come now: release it.
  if (session != nullptr) {
    std::vector<Tensor> unused;
    session->Run({}, {}, {ops_.cancel_takes_op}, &unused).IgnoreError();
  }
  bool finished = false;
  {
    std::unique_lock<std::mutex> lock(loop_->mu);
    finished = loop_->cv.wait_for(lock, std::chrono::seconds(5), [&] { return loop_->finished; });
  }
  if (finished) thread_.join();
  else thread_.detach();  // it owns everything it uses; the process may end under it
  rounds_done_ = loop_->rounds;
  loop_.reset();
}

Status SyncReplicasHook::End(Session& session) {
  if (!is_chief_) return OkStatus();
  StopLoop(&session);
  // Training is over: replicas still waiting for a token stop now.
  std::vector<Tensor> unused;
  Status closed = session.Run({}, {}, {ops_.close_queue_op}, &unused);
  if (!closed.ok() && log_)
    log_->Warning(StrCat("SyncReplicas: could not close the token queue: ", FormatStatus(closed)));
  return OkStatus();
}

int64_t SyncReplicasHook::rounds() const { return loop_ ? loop_->rounds.load() : rounds_done_; }

}  // namespace clab
