#include "launch/project/ProjectFile.h"

#include "clab/core/JsonNesting.h"

#include "launch/project/JsonFields.h"
#include "launch/project/TextFile.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace clab::launch {
namespace {

constexpr int kFormatVersion = 1;

StatusOr<ClusterSpec> ReadCluster(const nlohmann::json* cluster) {
  if (cluster == nullptr || !cluster->is_object())
    return errors::InvalidArgument("cluster: missing, or not an object of job -> addresses");
  std::map<std::string, std::vector<std::string>> jobs;
  for (const auto& [job, addresses] : cluster->items()) {
    if (!addresses.is_array() || addresses.empty())
      return errors::InvalidArgument("cluster.", job, ": wants a non-empty list of \"host:port\"");
    for (size_t i = 0; i < addresses.size(); ++i) {
      if (!addresses[i].is_string()) return errors::InvalidArgument("cluster.", job, "[", i, "]: not a string");
      const std::string address = addresses[i].get<std::string>();
      if (auto parsed = HostPort::Parse(address); !parsed.ok())
        return errors::InvalidArgument("cluster.", job, "[", i, "]: ", parsed.status().message());
      jobs[job].push_back(address);
    }
  }
  auto spec = ClusterSpec::FromDict(jobs);
  if (!spec.ok()) return errors::InvalidArgument("cluster: ", spec.status().message());
  return spec;
}

}  // namespace

std::vector<std::string> ProjectFile::Programs() {
  return {"seed", "digits-mlp", "digits-cnn", "iris-softmax", "linear-regression"};
}

std::string ProjectFile::Task::name() const { return absl::StrCat("/job:", job, "/replica:0/task:", index); }
std::string ProjectFile::Task::label() const { return absl::StrCat(job, "/", index); }
std::string ProjectFile::Task::address() const { return HostPort{host, port}.ToString(); }

std::vector<ProjectFile::Task> ProjectFile::Tasks() const {
  std::vector<Task> tasks;
  for (const auto& [job, indexed] : cluster.all_jobs()) {
    for (const auto& [index, address] : indexed) {
      auto parsed = HostPort::Parse(address);
      tasks.push_back({job, index, parsed.ok() ? parsed->host : address, parsed.ok() ? parsed->port : 0});
    }
  }
  return tasks;
}

std::string ProjectFile::Stem() const {
  if (path.empty()) return program;
  return std::filesystem::path(path).stem().string();
}

StatusOr<ProjectFile> ProjectFile::FromJson(const nlohmann::json& json, const std::string& where) {
  auto fail = [&](const Status& status) { return Status(status.code(), absl::StrCat(where, ": ", status.message())); };
  JsonFields fields(json, "");
  if (Status s = fields.CheckObject(); !s.ok()) return fail(s);
  std::string format;
  if (Status s = fields.String("format", &format); !s.ok()) return fail(s);
  if (format != "clusterlab-project")
    return fail(
        errors::InvalidArgument("format: not a ClusterLab project (expected \"format\": \"clusterlab-project\")"));
  int64_t version = kFormatVersion;
  if (Status s = fields.Int("version", &version, 0, 1 << 20); !s.ok()) return fail(s);
  if (version > kFormatVersion)
    return fail(
        errors::InvalidArgument("version: ", version, " is newer than this ClusterLab reads (", kFormatVersion, ")"));

  ProjectFile project;
  project.path = where;
  if (Status s = fields.String("name", &project.name); !s.ok()) return fail(s);
  if (Status s = fields.Choice("program", Programs(), &project.program); !s.ok()) return fail(s);
  auto cluster = ReadCluster(fields.Member("cluster"));
  if (!cluster.ok()) return fail(cluster.status());
  project.cluster = *std::move(cluster);

  if (const nlohmann::json* run = fields.Member("run")) {
    JsonFields run_fields(*run, "run");
    Status s = run_fields.CheckObject();
    if (s.ok()) s = run_fields.Int("last_step", &project.run.last_step, 1, INT64_MAX);
    if (s.ok()) s = run_fields.Bool("faithful", &project.run.faithful);
    if (s.ok()) s = run_fields.Bool("sync", &project.run.sync);
    if (s.ok()) s = run_fields.Int("max_seconds", &project.run.max_seconds, 0, INT32_MAX);
    if (s.ok()) s = run_fields.String("checkpoint_dir", &project.run.checkpoint_dir);
    if (s.ok()) s = run_fields.Int("save_checkpoint_steps", &project.run.save_checkpoint_steps, 0, INT64_MAX);
    if (s.ok()) s = run_fields.Int("save_checkpoint_secs", &project.run.save_checkpoint_secs, 0, INT32_MAX);
    if (!s.ok()) return fail(s);
  }
  if (Status s = fields.String("graph", &project.graph); !s.ok()) return fail(s);
  if (const nlohmann::json* launch = fields.Member("launch")) {
    auto settings = LaunchSettings::FromJson(*launch, "launch");
    if (!settings.ok()) return fail(settings.status());
    project.launch = *std::move(settings);
  }
  if (const nlohmann::json* security = fields.Member("security")) {
    auto settings = ProjectSecurity::FromJson(*security, "security");
    if (!settings.ok()) return fail(settings.status());
    project.security = *std::move(settings);
  }
  return project;
}

StatusOr<ProjectFile> ProjectFile::Read(const std::string& path) {
  CLAB_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(path));
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, path));
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return errors::InvalidArgument(path, ": not JSON");
  return FromJson(json, path);
}

Status WriteProjectCluster(const std::string& path, const ClusterSpec& cluster) {
  CLAB_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(path));
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, path));
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  // Checked as a whole first: a file this would not read is left alone.
  if (json.is_discarded()) return errors::InvalidArgument(path, ": not JSON");
  CLAB_RETURN_IF_ERROR(ProjectFile::FromJson(json, path).status());
  nlohmann::json jobs = nlohmann::json::object();
  for (const auto& [job, addresses] : cluster.ToDict()) jobs[job] = addresses;
  json["cluster"] = jobs;
  return WriteTextFile(path, json.dump(4) + "\n");
}

}  // namespace clab::launch
