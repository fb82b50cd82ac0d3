#include "launch/observe/LaunchLog.h"

#include <absl/strings/str_cat.h>

#include <ostream>
#include <regex>

namespace clab::launch {

std::string LaunchLog::ShortName(const std::string& task) {
  static const std::regex full("/job:([^/]+)/replica:\\d+/task:(\\d+)");
  std::smatch match;
  if (std::regex_match(task, match, full)) return absl::StrCat(match.str(1), "/", match.str(2));
  return task;
}

void LaunchLog::Print(const std::string& task, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (task.empty()) {
    out_ << "clab launch: " << text << std::endl;
  } else {
    out_ << "[" << ShortName(task) << "] " << text << std::endl;
  }
}

void LaunchLog::TaskStarted(const std::string& task, const std::string& host, long pid) {
  Print(task, absl::StrCat("(started on ", host, ", pid ", pid, ")"));
}

void LaunchLog::TaskLine(const std::string& task, const std::string& line) { Print(task, line); }

void LaunchLog::TaskEnded(const std::string& task, int exit_status, bool stopped) {
  Print(task, stopped ? absl::StrCat("(stopped, status ", exit_status, ")")
                      : absl::StrCat("(ended with status ", exit_status, ")"));
}

void LaunchLog::TaskProblem(const std::string& task, const std::string& problem) { Print(task, "problem: " + problem); }

void LaunchLog::JobState(const std::string& job_id, const std::string& state, const std::string& reason) {
  Print("", absl::StrCat("job ", job_id, " is ", state,
                         reason.empty() || reason == "None" ? "" : absl::StrCat(" (", reason, ")")));
}

void LaunchLog::Note(const std::string& text) { Print("", text); }

}  // namespace clab::launch
