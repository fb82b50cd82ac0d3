#include "launch/observe/LaunchEvents.h"

#include "clab/core/JsonNesting.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace clab::launch {
namespace {

// Invalid UTF-8 in a task's output is replaced, never a reason to lose the line.
std::string Dump(const nlohmann::json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::optional<LaunchEvent> LaunchEvent::Parse(const std::string& line) {
  // Lines come from tasks' output: one nested too deeply is not an event, like any other.
  if (!CheckJsonNesting(line, "event line").ok()) return std::nullopt;
  const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("event") || !json["event"].is_string()) return std::nullopt;
  LaunchEvent event;
  event.event = json["event"].get<std::string>();
  event.task = json.value("task", "");
  event.host = json.value("host", "");
  event.text = json.value("text", "");
  event.job_id = json.value("id", "");
  event.state = json.value("state", "");
  event.reason = json.value("reason", "");
  event.pid = json.value("pid", 0L);
  event.status = json.value("status", 0);
  event.stopped = json.value("stopped", false);
  event.ok = json.value("ok", false);
  return event;
}

void LaunchEvents::Write(const std::string& json_line) {
  std::lock_guard<std::mutex> lock(mu_);
  out_ << json_line << std::endl;
}

void LaunchEvents::TaskStarted(const std::string& task, const std::string& host, long pid) {
  Write(Dump({{"event", "started"}, {"task", task}, {"host", host}, {"pid", pid}}));
}

void LaunchEvents::TaskLine(const std::string& task, const std::string& line) {
  Write(Dump({{"event", "line"}, {"task", task}, {"text", line}}));
}

void LaunchEvents::TaskEnded(const std::string& task, int exit_status, bool stopped) {
  Write(Dump({{"event", "ended"}, {"task", task}, {"status", exit_status}, {"stopped", stopped}}));
}

void LaunchEvents::TaskProblem(const std::string& task, const std::string& problem) {
  Write(Dump({{"event", "problem"}, {"task", task}, {"text", problem}}));
}

void LaunchEvents::JobState(const std::string& job_id, const std::string& state, const std::string& reason) {
  Write(Dump({{"event", "job"}, {"id", job_id}, {"state", state}, {"reason", reason}}));
}

void LaunchEvents::Note(const std::string& text) { Write(Dump({{"event", "note"}, {"text", text}})); }

void LaunchEvents::Finished(bool ok, const std::string& text) {
  Write(Dump({{"event", "finished"}, {"ok", ok}, {"text", text}}));
}

}  // namespace clab::launch
