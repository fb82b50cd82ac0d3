// A launch's reports as JSON lines (`clab launch --events`), for a program that follows a
// launch it started, such as the studio: one object per line,
//
//   {"event": "started", "task": "/job:ps/replica:0/task:0", "host": "host-a", "pid": 4711}
//   {"event": "line", "task": "...", "text": "Serving ..."}
//   {"event": "ended", "task": "...", "status": 0, "stopped": false}
//   {"event": "problem", "task": "...", "text": "port 2223 is in use on 198.18.0.2: ..."}
//   {"event": "job", "id": "12", "state": "RUNNING", "reason": "None"}
//   {"event": "note", "text": "..."}
//   {"event": "finished", "ok": true, "text": "..."}
//
// and the parser that reads them back.
#pragma once

#include "launch/observe/LaunchObserver.h"

#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>

namespace clab::launch {

struct LaunchEvent {
  std::string event;  // started, line, ended, problem, job, note, finished
  std::string task;
  std::string host;
  std::string text;
  std::string job_id;
  std::string state;
  std::string reason;
  long pid = 0;
  int status = 0;
  bool stopped = false;
  bool ok = false;

  // nullopt for a line that is not an event.
  static std::optional<LaunchEvent> Parse(const std::string& line);
};

class LaunchEvents : public LaunchObserver {
 public:
  explicit LaunchEvents(std::ostream& out) : out_(out) {}

  void TaskStarted(const std::string& task, const std::string& host, long pid) override;
  void TaskLine(const std::string& task, const std::string& line) override;
  void TaskEnded(const std::string& task, int exit_status, bool stopped) override;
  void TaskProblem(const std::string& task, const std::string& problem) override;
  void JobState(const std::string& job_id, const std::string& state, const std::string& reason) override;
  void Note(const std::string& text) override;
  // The last event: how the launch ended.
  void Finished(bool ok, const std::string& text);

 private:
  void Write(const std::string& json_line);

  std::ostream& out_;
  std::mutex mu_;
};

}  // namespace clab::launch
