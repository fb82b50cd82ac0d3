// Follows one task's event stream (clab.MonitorService.Watch) on a thread of its own,
// reconnecting (resuming after the last event seen) when the task is not up yet or went
// away, and keeps what arrived until the GUI thread takes it with take(). Each time the
// stream opens it also asks the task what it is (GetTaskInfo: its devices among others), for
// takeInfo(). The GUI thread never waits on the network, and however fast a task talks it
// receives events in batches. Before each stream it asks what is at the address (TaskProbe):
// until a ClusterLab task answers there, problem() says what is there instead.
#pragma once

#include "clab/monitor.pb.h"
#include "monitor/TaskProbe.h"

#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace grpc {
class ClientContext;
}

namespace clab::ui {

class TaskWatcher {
 public:
  // `address` is "host:port". Starts watching at once.
  TaskWatcher(QString task, std::string address);
  ~TaskWatcher();
  TaskWatcher(const TaskWatcher&) = delete;
  TaskWatcher& operator=(const TaskWatcher&) = delete;

  const QString& task() const { return task_; }
  // What was received since the last call, oldest first, at most `max_events` of it (the
  // rest stays for the next call).
  std::vector<TaskEvent> take(size_t max_events = SIZE_MAX);
  // How many events the task numbered but this watcher never received since the last call:
  // a task's server keeps a bounded backlog, and drops the oldest when a watcher lags behind.
  int64_t takeMissed();
  // The task's latest answer to GetTaskInfo, once: true when one came since the last call.
  bool takeInfo(TaskInfoResponse* info);
  // Why the task cannot be watched right now (kNone while its stream is open or when the
  // address has not been asked yet).
  ProbeResult problem() const;
  // Whether the stream is open right now.
  bool connected() const { return connected_; }
  // Waits until the stream is closed (the task ended and everything it sent has arrived),
  // at most `timeout`; true when it is closed.
  bool waitUntilClosed(std::chrono::milliseconds timeout);

 private:
  void loop();
  void setProblem(ProbeResult problem);
  // Sleeps `duration`, or less when the watcher stops.
  void pause(std::chrono::milliseconds duration);

  const QString task_;
  const std::string address_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> connected_{false};
  mutable std::mutex mu_;
  std::condition_variable closed_;  // notified when a stream ends
  std::vector<TaskEvent> pending_;
  int64_t missed_ = 0;
  std::shared_ptr<grpc::ClientContext> context_;       // the open Watch call, to cancel it
  std::shared_ptr<grpc::ClientContext> info_context_;  // the GetTaskInfo call in flight
  TaskInfoResponse info_;
  bool has_info_ = false;
  ProbeResult problem_;
  std::thread thread_;
};

}  // namespace clab::ui
