// Follows one task's event stream (clab.MonitorService.Watch) on a thread of its own,
// reconnecting (resuming after the last event seen) when the task is not up yet or went
// away, and keeps what arrived until the GUI thread takes it with take(). Each time the
// stream opens it also asks the task what it is (GetTaskInfo: its devices among others), for
// takeInfo(). The GUI thread never waits on the network, and however fast a task talks it
// receives events in batches.
#pragma once

#include "clab/monitor.pb.h"

#include <QString>

#include <atomic>
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
  // Everything received since the last call.
  std::vector<TaskEvent> take();
  // The task's latest answer to GetTaskInfo, once: true when one came since the last call.
  bool takeInfo(TaskInfoResponse* info);
  // Whether the stream is open right now.
  bool connected() const { return connected_; }

 private:
  void loop();

  const QString task_;
  const std::string address_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> connected_{false};
  std::mutex mu_;
  std::vector<TaskEvent> pending_;
  std::shared_ptr<grpc::ClientContext> context_;       // the open Watch call, to cancel it
  std::shared_ptr<grpc::ClientContext> info_context_;  // the GetTaskInfo call in flight
  TaskInfoResponse info_;
  bool has_info_ = false;
  std::thread thread_;
};

}  // namespace clab::ui
