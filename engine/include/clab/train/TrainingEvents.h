// What training reports as it goes: every hook line, step, checkpoint and state change is a
// clab.TaskEvent (proto/clab/monitor.proto), printed for people and handed to a sink that the
// server streams to the studio.
#pragma once

#include "clab/monitor.pb.h"

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace clab {

using EventSink = std::function<void(const TaskEvent&)>;

// Log levels of tensorflow.LogMessage.
enum class LogLevel : int { kInfo = 20, kWarning = 30, kError = 40 };

class TrainingLog {
 public:
  // `task` names the task in events ("/job:worker/replica:0/task:0"); `print` decides whether
  // lines also go to stderr as "INFO:clab:<text>".
  explicit TrainingLog(std::string task = "", bool print = true);

  void AddSink(EventSink sink);
  void set_task(std::string task) { task_ = std::move(task); }
  const std::string& task() const { return task_; }

  void Hook(const std::string& hook, LogLevel level, const std::string& text,
            const std::map<std::string, double>& values = {}, int64_t global_step = -1);
  void Info(const std::string& text) { Log(LogLevel::kInfo, text); }
  void Warning(const std::string& text) { Log(LogLevel::kWarning, text); }
  void Log(LogLevel level, const std::string& text);
  void State(TaskState::Phase phase, const std::string& detail, const std::vector<std::string>& uninitialized = {});
  void Step(int64_t global_step, int64_t local_step, int64_t duration_us);
  void Checkpoint(const std::string& path, int64_t global_step, int64_t bytes, int variables, bool restored);
  void Error(const std::string& code, const std::string& message);
  void Emit(TaskEvent event);

 private:
  void Print(LogLevel level, const std::string& text);
  std::string task_;
  bool print_;
  std::mutex mu_;
  std::vector<EventSink> sinks_;
  int64_t seq_ = 0;
};

}  // namespace clab
