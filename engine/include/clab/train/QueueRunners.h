// The queue runners of a graph, as tf.train.start_queue_runners runs them: for each
// QueueRunnerDef (the "queue_runners" collection), one thread per enqueue op runs that op
// over and over. A thread ends quietly when its run fails with one of the runner's
// "queue closed" codes (OUT_OF_RANGE by default: the queue it reads from is exhausted,
// CANCELLED: its own queue was closed); the last thread of a runner then runs the close op,
// so that readers downstream see the end of the input. Any other failure is kept (error())
// and stops every runner, as TensorFlow's coordinator does: the cancel ops close every queue,
// so a step waiting on one ends with OUT_OF_RANGE instead of waiting for ever.
//
// Stop() runs each runner's cancel op (close the queue, fail waiting enqueues) and joins
// the threads; every thread's wait ends there, so Stop() returns.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "tensorflow/meta_graph.pb.h"
#include "tensorflow/queue_runner.pb.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace clab {

class QueueRunners {
 public:
  using Log = std::function<void(const std::string&)>;

  // The runners a MetaGraphDef keeps (bytes_list of serialized QueueRunnerDef); an entry
  // that does not parse is INVALID_ARGUMENT naming its index.
  static StatusOr<std::vector<tensorflow::QueueRunnerDef>> FromMetaGraph(const tensorflow::MetaGraphDef& meta);
  // The same from a GraphBuilder's "queue_runners" collection (serialized entries).
  static StatusOr<std::vector<tensorflow::QueueRunnerDef>> FromGraph(const GraphBuilder& graph);
  // tf.train.add_queue_runner: records `runner` in the graph's "queue_runners" collection.
  static void AddToGraph(GraphBuilder& graph, const tensorflow::QueueRunnerDef& runner);
  // Every op the runners run (enqueue, close and cancel ops), for pruning a graph to them.
  static std::vector<std::string> OpNames(const std::vector<tensorflow::QueueRunnerDef>& runners);

  // `log` receives a line for each thread that fails; unset: none.
  explicit QueueRunners(std::vector<tensorflow::QueueRunnerDef> runners, Log log = {});
  ~QueueRunners();  // Stop()
  QueueRunners(const QueueRunners&) = delete;
  QueueRunners& operator=(const QueueRunners&) = delete;

  // Starts the threads on `session`, which must outlive Stop(). Once only.
  void Start(Session* session);
  // Cancels (every runner's cancel op) and joins the threads; returns error().
  Status Stop();
  // The first failure of a thread that was no closed queue, annotated with its op; OK when
  // there was none.
  Status error() const;
  // Threads still running.
  int running() const { return running_.load(); }
  bool empty() const { return runners_.empty(); }

 private:
  void Loop(size_t runner, const std::string& enqueue_op);
  bool IsClosedCode(size_t runner, const Status& status) const;
  void CancelAll();

  const std::vector<tensorflow::QueueRunnerDef> runners_;
  const Log log_;
  Session* session_ = nullptr;
  std::vector<std::thread> threads_;
  std::vector<std::atomic<int>> active_;  // per runner: threads still running
  std::atomic<int> running_{0};
  std::atomic<bool> stopping_{false};
  std::once_flag cancel_once_;
  mutable std::mutex mu_;
  Status error_;
};

}  // namespace clab
