// The events of one task, kept for whoever watches it: the server's own (state changes, log
// and placement lines) and those that sessions running against it publish (hook output,
// steps, checkpoints). Each event gets the next sequence number of this task; the newest
// `capacity` events are kept, so a watcher that reconnects resumes with Watch(since_seq)
// and a late one still sees the placement log and the recent history.
#pragma once

#include "clab/monitor.pb.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace clab {

class EventHub {
 public:
  explicit EventHub(std::string task, size_t capacity = 8192);

  // Stamps seq, wall time (if unset), task (if unset) and source (if unset: "server").
  void Publish(TaskEvent event);
  // The kept events with seq > since_seq; waits up to `timeout` for one when there are
  // none yet. Empty at the timeout or once closed.
  std::vector<TaskEvent> WaitSince(int64_t since_seq, std::chrono::milliseconds timeout);
  // Wakes every waiter; later waits return at once.
  void Close();
  bool closed() const;

  // Watchers say when they start and end and how far they have sent; a task can then wait
  // for someone to watch it before it starts, and for its last events to go out before it
  // stops.
  void WatcherAttached();
  void WatcherDetached();
  void Delivered(int64_t seq);
  bool WaitForWatcher(std::chrono::milliseconds timeout);
  // Waits until some watcher has sent the newest event (true), none is attached, or the
  // timeout passed.
  bool WaitDelivered(std::chrono::milliseconds timeout);

  int64_t last_seq() const;
  // Callers blocked in WaitSince right now.
  int waiting() const;
  // The phase of the newest state event (UNKNOWN before any).
  TaskState last_state() const;
  const std::string& task() const { return task_; }

 private:
  const std::string task_;
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<TaskEvent> events_;
  int64_t seq_ = 0;
  TaskState last_state_;
  bool closed_ = false;
  int watchers_ = 0;
  int64_t delivered_ = 0;
  int waiting_ = 0;
};

// The event a server log line stands for: a placement line ("MatMul: (MatMul):
// /job:worker/replica:0/task:0/device:CPU:0") becomes a PlacementLine, anything else a LogLine.
TaskEvent EventForLogLine(const std::string& line);

}  // namespace clab
