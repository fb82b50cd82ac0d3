#include "launch/record/LaunchRecord.h"

#include "clab/core/JsonNesting.h"

#include "launch/project/TextFile.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace clab::launch {
namespace {

std::string StateDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state)
    return absl::StrCat(state, "/clusterlab/launches");
  const char* home = std::getenv("HOME");
  return absl::StrCat(home && *home ? home : "/tmp", "/.local/state/clusterlab/launches");
}

// FNV-1a: the same project path gives the same file name in every build.
uint64_t StableHash(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string Absolute(const std::string& path) {
  std::error_code error;
  const auto absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
  return error ? path : absolute.string();
}

}  // namespace

std::string LaunchRecord::PathFor(const std::string& project_path) {
  const std::string absolute = Absolute(project_path);
  const std::string stem = std::filesystem::path(absolute).stem().string();
  return absl::StrFormat("%s/%s-%016x.json", StateDir(), stem, StableHash(absolute));
}

StatusOr<LaunchRecord> LaunchRecord::Read(const std::string& project_path) {
  const std::string path = PathFor(project_path);
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status()))
      return errors::NotFound("no launch of ", project_path, " is recorded (", path, ")");
    return text.status();
  }
  if (Status nesting = CheckJsonNesting(*text, path); !nesting.ok()) return errors::DataLoss(nesting.message());
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return errors::DataLoss(path, ": not a launch record");
  LaunchRecord record;
  record.method = json.value("method", "");
  record.project = json.value("project", "");
  record.launcher_pid = json.value("launcher_pid", 0L);
  record.ssh_config = json.value("ssh_config", "");
  record.job_id = json.value("job_id", "");
  record.work_dir = json.value("work_dir", "");
  for (const nlohmann::json& entry : json.value("tasks", nlohmann::json::array())) {
    Task task;
    task.name = entry.value("name", "");
    task.host = entry.value("host", "");
    task.binary = entry.value("binary", "");
    task.log = entry.value("log", "");
    task.pid = entry.value("pid", 0L);
    if (entry.contains("ssh")) {
      auto ssh = HostSettings::FromJson(entry["ssh"], path + ": tasks.ssh");
      if (!ssh.ok()) return ssh.status();
      task.ssh = *ssh;
    }
    record.tasks.push_back(std::move(task));
  }
  return record;
}

Status LaunchRecord::Write() const {
  nlohmann::json tasks_json = nlohmann::json::array();
  for (const Task& task : tasks)
    tasks_json.push_back({{"name", task.name},
                          {"host", task.host},
                          {"ssh", task.ssh.ToJson()},
                          {"binary", task.binary},
                          {"log", task.log},
                          {"pid", task.pid}});
  const nlohmann::json json = {
      {"method", method}, {"project", Absolute(project)}, {"launcher_pid", launcher_pid}, {"ssh_config", ssh_config},
      {"job_id", job_id}, {"work_dir", work_dir},         {"tasks", tasks_json}};
  const std::string path = PathFor(project);
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error)
    return errors::Unavailable("cannot create ", std::filesystem::path(path).parent_path().string(), ": ",
                               error.message());
  return WriteTextFile(path, json.dump(2) + "\n");
}

void LaunchRecord::Remove() const {
  std::error_code error;
  std::filesystem::remove(PathFor(project), error);
}

}  // namespace clab::launch
