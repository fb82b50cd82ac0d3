#include "clab/train/QueueRunners.h"

#include "clab/graph/GraphKeys.h"

namespace clab {

StatusOr<std::vector<tensorflow::QueueRunnerDef>> QueueRunners::FromMetaGraph(const tensorflow::MetaGraphDef& meta) {
  std::vector<tensorflow::QueueRunnerDef> runners;
  auto found = meta.collection_def().find(GraphKeys::kQueueRunners);
  if (found == meta.collection_def().end()) return runners;
  const auto& values = found->second.bytes_list().value();
  for (int i = 0; i < values.size(); ++i) {
    tensorflow::QueueRunnerDef runner;
    if (!runner.ParseFromString(values[i]))
      return errors::InvalidArgument("the \"queue_runners\" collection's entry ", i, " is no QueueRunnerDef (",
                                     values[i].size(), " bytes)");
    runners.push_back(std::move(runner));
  }
  return runners;
}

StatusOr<std::vector<tensorflow::QueueRunnerDef>> QueueRunners::FromGraph(const GraphBuilder& graph) {
  std::vector<tensorflow::QueueRunnerDef> runners;
  const auto& entries = graph.Collection(GraphKeys::kQueueRunners);
  for (size_t i = 0; i < entries.size(); ++i) {
    tensorflow::QueueRunnerDef runner;
    if (!runner.ParseFromString(entries[i]))
      return errors::InvalidArgument("the \"queue_runners\" collection's entry ", i, " is no QueueRunnerDef");
    runners.push_back(std::move(runner));
  }
  return runners;
}

void QueueRunners::AddToGraph(GraphBuilder& graph, const tensorflow::QueueRunnerDef& runner) {
  graph.AddToCollection(GraphKeys::kQueueRunners, runner.SerializeAsString());
}

std::vector<std::string> QueueRunners::OpNames(const std::vector<tensorflow::QueueRunnerDef>& runners) {
  std::vector<std::string> names;
  for (const auto& runner : runners) {
    names.insert(names.end(), runner.enqueue_op_name().begin(), runner.enqueue_op_name().end());
    if (!runner.close_op_name().empty()) names.push_back(runner.close_op_name());
    if (!runner.cancel_op_name().empty()) names.push_back(runner.cancel_op_name());
  }
  return names;
}

QueueRunners::QueueRunners(std::vector<tensorflow::QueueRunnerDef> runners, Log log)
    : runners_(std::move(runners)), log_(std::move(log)), active_(runners_.size()) {}

QueueRunners::~QueueRunners() { Stop().IgnoreError(); }

void QueueRunners::Start(Session* session) {
  session_ = session;
  for (size_t r = 0; r < runners_.size(); ++r) {
    active_[r].store(runners_[r].enqueue_op_name_size());
    running_ += runners_[r].enqueue_op_name_size();
  }
  for (size_t r = 0; r < runners_.size(); ++r)
    for (const std::string& op : runners_[r].enqueue_op_name()) threads_.emplace_back([this, r, op] { Loop(r, op); });
}

bool QueueRunners::IsClosedCode(size_t runner, const Status& status) const {
  const auto& codes = runners_[runner].queue_closed_exception_types();
  if (codes.empty()) return absl::IsOutOfRange(status);
  for (const int code : codes)
    if (static_cast<int>(status.code()) == code) return true;
  return false;
}

void QueueRunners::Loop(size_t runner, const std::string& enqueue_op) {
  std::vector<Tensor> unused;
  while (!stopping_.load()) {
    Status s = session_->Run({}, {}, {enqueue_op}, &unused);
    if (s.ok()) continue;
    // Once stopping, the cancel ops fail what was waiting: that is the end, not an error.
    if (stopping_.load() || IsClosedCode(runner, s) || absl::IsCancelled(s)) break;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (error_.ok())
        error_ =
            errors::Annotate(s, StrCat("queue runner of '", runners_[runner].queue_name(), "' (", enqueue_op, "): "));
    }
    if (log_)
      log_(StrCat("The queue runner of '", runners_[runner].queue_name(), "' stopped: ", enqueue_op,
                  " failed: ", s.ToString(), "; closing every queue"));
    CancelAll();
    break;
  }
  // The runner's last thread closes its queue (unless the runners are being cancelled).
  if (active_[runner].fetch_sub(1) == 1 && !stopping_.load() && !runners_[runner].close_op_name().empty()) {
    Status closed = session_->Run({}, {}, {runners_[runner].close_op_name()}, &unused);
    if (!closed.ok() && log_)
      log_(StrCat("Closing queue '", runners_[runner].queue_name(), "' failed: ", closed.ToString()));
  }
  --running_;
}

void QueueRunners::CancelAll() {
  std::call_once(cancel_once_, [this] {
    std::vector<Tensor> unused;
    for (const auto& runner : runners_) {
      if (runner.cancel_op_name().empty()) continue;
      Status s = session_->Run({}, {}, {runner.cancel_op_name()}, &unused);
      if (!s.ok() && log_) log_(StrCat("Cancelling queue '", runner.queue_name(), "' failed: ", s.ToString()));
    }
  });
}

Status QueueRunners::Stop() {
  if (session_ == nullptr) return OkStatus();
  stopping_.store(true);
  CancelAll();
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
  threads_.clear();
  return error();
}

Status QueueRunners::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace clab
