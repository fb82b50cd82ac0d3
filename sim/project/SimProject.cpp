#include "project/SimProject.h"

#include "clab/core/JsonNesting.h"

#include <absl/strings/str_cat.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace clab::sim {

StatusOr<SimProject> SimProject::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errors::NotFound(path, ": cannot open the project");
  std::stringstream text;
  text << in.rdbuf();
  StatusOr<SimProject> project = FromJsonText(text.str(), path);
  if (project.ok()) project->path = path;
  return project;
}

StatusOr<SimProject> SimProject::FromJsonText(const std::string& text, const std::string& origin) {
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, origin));
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return errors::InvalidArgument(origin, ": not JSON: ", e.what());
  }
  if (!json.is_object() || json.value("format", "") != "clusterlab-project")
    return errors::InvalidArgument(origin,
                                   ": format: not a ClusterLab project (expected \"format\": \"clusterlab-project\")");
  SimProject project;
  project.path = origin;
  if (json.contains("name") && json["name"].is_string()) project.name = json["name"];
  if (json.contains("program")) {
    if (!json["program"].is_string()) return errors::InvalidArgument(origin, ": program: wants a name");
    project.program = json["program"];
  }
  if (!json.contains("cluster") || !json["cluster"].is_object())
    return errors::InvalidArgument(origin, ": cluster: missing, or not an object of job -> addresses");
  for (const auto& [job, addresses] : json["cluster"].items()) {
    if (!addresses.is_array() || addresses.empty())
      return errors::InvalidArgument(origin, ": cluster.", job, ": wants a non-empty list of \"host:port\"");
    project.tasks[job] = static_cast<int>(addresses.size());
  }
  if (json.contains("run")) {
    const nlohmann::json& run = json["run"];
    if (!run.is_object()) return errors::InvalidArgument(origin, ": run: wants an object of run settings");
    if (run.contains("sync")) {
      if (!run["sync"].is_boolean()) return errors::InvalidArgument(origin, ": run.sync: wants true or false");
      project.sync = run["sync"];
    }
  }
  if (json.contains("graph")) {
    if (!json["graph"].is_string())
      return errors::InvalidArgument(origin, ": graph: wants a GraphDef in protobuf text format, as a string");
    project.graph = json["graph"];
  }
  if (json.contains("platform")) {
    CLAB_ASSIGN_OR_RETURN(PlatformSpec platform,
                          PlatformSpec::FromJson(json["platform"], absl::StrCat(origin, ": platform")));
    project.platform = std::move(platform);
  }
  return project;
}

}  // namespace clab::sim
