#include "clab/distributed/ClusterSpec.h"

#include "clab/core/JsonNesting.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace clab {
namespace {

bool IsValidJobName(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool IsValidHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  for (char c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') return false;
  return true;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

StatusOr<HostPort> HostPort::Parse(std::string_view address) {
  const std::string text = Trim(address);
  HostPort hp;
  std::string port_text;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return errors::InvalidArgument("Address '", text, "' is not of the form [ipv6]:port");
    hp.host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
    in6_addr unused;
    if (inet_pton(AF_INET6, hp.host.c_str(), &unused) != 1)
      return errors::InvalidArgument("Address '", text, "' has an invalid IPv6 host '", hp.host, "'");
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos)
      return errors::InvalidArgument("Address '", text, "' has no port (expected host:port)");
    hp.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (!IsValidHostName(hp.host))
      return errors::InvalidArgument("Address '", text, "' has an invalid host '", hp.host, "'");
  }
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos)
    return errors::InvalidArgument("Address '", text, "' has an invalid port '", port_text, "'");
  if (!absl::SimpleAtoi(port_text, &hp.port) || hp.port < 0 || hp.port > 65535)
    return errors::InvalidArgument("Address '", text, "' has port ", hp.port, " outside 0..65535");
  return hp;
}

bool HostPort::IsLoopback() const {
  if (host == "localhost" || host == "::1") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return false;
}

std::string HostPort::ToString() const {
  if (host.find(':') != std::string::npos) return StrCat("[", host, "]:", port);
  return StrCat(host, ":", port);
}

StatusOr<ClusterSpec> ClusterSpec::FromJobs(Jobs jobs) {
  std::map<std::string, std::string> owner_of_address;
  for (auto& [job, tasks] : jobs) {
    if (!IsValidJobName(job))
      return errors::InvalidArgument("Job name '", job,
                                     "' is invalid: it must match [A-Za-z][A-Za-z0-9_]* to be usable in "
                                     "device names");
    if (tasks.empty()) return errors::InvalidArgument("Job '", job, "' has no tasks");
    for (auto& [index, address] : tasks) {
      if (index < 0) return errors::InvalidArgument("Job '", job, "' has a negative task index ", index);
      address = Trim(address);
      auto hp = HostPort::Parse(address);
      if (!hp.ok()) return errors::Annotate(hp.status(), StrCat("Task /job:", job, "/task:", index, ": "));
      const std::string task = StrCat("/job:", job, "/task:", index);
      auto [it, inserted] = owner_of_address.emplace(address, task);
      if (!inserted && hp->port != 0)
        return errors::InvalidArgument("Address ", address, " is used by both ", it->second, " and ", task);
    }
  }
  ClusterSpec spec;
  spec.jobs_ = std::move(jobs);
  return spec;
}

StatusOr<ClusterSpec> ClusterSpec::FromDict(const std::map<std::string, std::vector<std::string>>& jobs) {
  Jobs sparse;
  for (const auto& [job, addresses] : jobs) {
    auto& tasks = sparse[job];
    for (size_t i = 0; i < addresses.size(); ++i) tasks[static_cast<int>(i)] = addresses[i];
  }
  return FromJobs(std::move(sparse));
}

StatusOr<ClusterSpec> ClusterSpec::FromClusterDef(const tensorflow::ClusterDef& def) {
  Jobs jobs;
  for (const auto& job : def.job()) {
    if (jobs.count(job.name()))
      return errors::InvalidArgument("Job '", job.name(), "' appears twice in the ClusterDef");
    auto& tasks = jobs[job.name()];
    for (const auto& [index, address] : job.tasks()) tasks[index] = address;
  }
  return FromJobs(std::move(jobs));
}

namespace {

StatusOr<ClusterSpec::Jobs> JobsFromJson(const nlohmann::json& cluster) {
  if (!cluster.is_object())
    return errors::InvalidArgument("A cluster must be a JSON object mapping job names to lists of addresses");
  ClusterSpec::Jobs jobs;
  for (const auto& [job, tasks] : cluster.items()) {
    auto& out = jobs[job];
    if (tasks.is_array()) {
      for (size_t i = 0; i < tasks.size(); ++i) {
        if (!tasks[i].is_string())
          return errors::InvalidArgument("Job '", job, "' task ", i, " is not a \"host:port\" string");
        out[static_cast<int>(i)] = tasks[i].get<std::string>();
      }
    } else if (tasks.is_object()) {
      for (const auto& [index, address] : tasks.items()) {
        int task = 0;
        if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos)
          return errors::InvalidArgument("Job '", job, "' has task index '", index, "', not a number");
        if (!absl::SimpleAtoi(index, &task))
          return errors::InvalidArgument("Job '", job, "' has task index ", index, ", out of range (0 to ",
                                         std::numeric_limits<int>::max(), ")");
        if (!address.is_string())
          return errors::InvalidArgument("Job '", job, "' task ", index, " is not a \"host:port\" string");
        out[task] = address.get<std::string>();
      }
    } else {
      return errors::InvalidArgument("The tasks for job '", job,
                                     "' must be a list or a dictionary from integers to strings");
    }
  }
  return jobs;
}

StatusOr<nlohmann::json> ParseJson(std::string_view text, std::string_view what) {
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, what));
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
    return errors::InvalidArgument(what, " is not valid JSON: ", e.what());
  }
}

}  // namespace

StatusOr<ClusterSpec> ClusterSpec::FromJson(std::string_view json) {
  CLAB_ASSIGN_OR_RETURN(nlohmann::json doc, ParseJson(json, "Cluster spec"));
  const nlohmann::json& cluster = doc.is_object() && doc.contains("cluster") ? doc["cluster"] : doc;
  CLAB_ASSIGN_OR_RETURN(Jobs jobs, JobsFromJson(cluster));
  return FromJobs(std::move(jobs));
}

StatusOr<ClusterSpec> ClusterSpec::Parse(std::string_view text) {
  const std::string trimmed = Trim(text);
  if (trimmed.empty()) return errors::InvalidArgument("The cluster spec is empty");
  if (trimmed[0] == '{') {
    // The Python dict a TensorFlow program writes ({'ps': ['h:p'], ...}) is JSON but for its
    // quotes; host names and ports never contain quote characters.
    if (trimmed.find('"') == std::string::npos && trimmed.find('\'') != std::string::npos) {
      std::string json = trimmed;
      std::replace(json.begin(), json.end(), '\'', '"');
      return FromJson(json);
    }
    return FromJson(trimmed);
  }
  if (trimmed.find('=') == std::string::npos) {
    std::ifstream file(trimmed);
    if (!file)
      return errors::NotFound("Cluster spec '", trimmed,
                              "' is neither a file nor of the form job=host:port,...;job=...");
    std::stringstream content;
    content << file.rdbuf();
    auto spec = FromJson(content.str());
    if (!spec.ok()) return errors::Annotate(spec.status(), StrCat(trimmed, ": "));
    return spec;
  }
  Jobs jobs;
  std::stringstream parts(trimmed);
  std::string part;
  while (std::getline(parts, part, ';')) {
    part = Trim(part);
    if (part.empty()) continue;
    const size_t eq = part.find('=');
    if (eq == std::string::npos)
      return errors::InvalidArgument("Cluster spec part '", part, "' is not of the form job=host:port,...");
    const std::string job = Trim(part.substr(0, eq));
    if (jobs.count(job)) return errors::InvalidArgument("Job '", job, "' appears twice in the cluster spec");
    auto& tasks = jobs[job];
    std::stringstream addresses(part.substr(eq + 1));
    std::string address;
    int index = 0;
    while (std::getline(addresses, address, ',')) tasks[index++] = Trim(address);
  }
  return FromJobs(std::move(jobs));
}

tensorflow::ClusterDef ClusterSpec::ToClusterDef() const {
  tensorflow::ClusterDef def;
  for (const auto& [job, tasks] : jobs_) {
    auto* j = def.add_job();
    j->set_name(job);
    for (const auto& [index, address] : tasks) (*j->mutable_tasks())[index] = address;
  }
  return def;
}

namespace {
bool IsDense(const std::map<int, std::string>& tasks) {
  return !tasks.empty() && tasks.rbegin()->first + 1 == static_cast<int>(tasks.size());
}
}  // namespace

std::string ClusterSpec::ToJson() const {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  for (const auto& [job, tasks] : jobs_) {
    if (IsDense(tasks)) {
      auto list = nlohmann::ordered_json::array();
      for (const auto& [index, address] : tasks) list.push_back(address);
      doc[job] = list;
    } else {
      auto sparse = nlohmann::ordered_json::object();
      for (const auto& [index, address] : tasks) sparse[std::to_string(index)] = address;
      doc[job] = sparse;
    }
  }
  return doc.dump();
}

std::string ClusterSpec::ToInline() const {
  std::vector<std::string> parts;
  for (const auto& [job, tasks] : jobs_) {
    std::vector<std::string> addresses;
    for (const auto& [index, address] : tasks) addresses.push_back(address);
    parts.push_back(StrCat(job, "=", absl::StrJoin(addresses, ",")));
  }
  return absl::StrJoin(parts, ";");
}

std::map<std::string, std::vector<std::string>> ClusterSpec::ToDict() const {
  std::map<std::string, std::vector<std::string>> dict;
  for (const auto& [job, tasks] : jobs_)
    for (const auto& [index, address] : tasks) dict[job].push_back(address);
  return dict;
}

std::string ClusterSpec::ToPythonDict() const {
  std::vector<std::string> parts;
  for (const auto& [job, tasks] : jobs_) {
    std::vector<std::string> addresses;
    if (IsDense(tasks)) {
      for (const auto& [index, address] : tasks) addresses.push_back(StrCat("'", address, "'"));
      parts.push_back(StrCat("'", job, "': [", absl::StrJoin(addresses, ", "), "]"));
    } else {
      for (const auto& [index, address] : tasks) addresses.push_back(StrCat(index, ": '", address, "'"));
      parts.push_back(StrCat("'", job, "': {", absl::StrJoin(addresses, ", "), "}"));
    }
  }
  return StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> names;
  for (const auto& [job, tasks] : jobs_) names.push_back(job);
  return names;
}

int ClusterSpec::num_tasks(std::string_view job) const {
  auto it = jobs_.find(std::string(job));
  return it == jobs_.end() ? 0 : static_cast<int>(it->second.size());
}

std::vector<int> ClusterSpec::task_indices(std::string_view job) const {
  std::vector<int> out;
  auto it = jobs_.find(std::string(job));
  if (it != jobs_.end())
    for (const auto& [index, address] : it->second) out.push_back(index);
  return out;
}

StatusOr<std::string> ClusterSpec::TaskAddress(std::string_view job, int task) const {
  auto it = jobs_.find(std::string(job));
  if (it == jobs_.end())
    return errors::NotFound("No such job in cluster: '", job, "' (jobs: ", absl::StrJoin(jobs(), ", "), ")");
  auto t = it->second.find(task);
  if (t == it->second.end()) return errors::NotFound("No task with index ", task, " in job '", job, "'");
  return t->second;
}

std::vector<std::pair<std::string, std::string>> ClusterSpec::Tasks() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [job, tasks] : jobs_)
    for (const auto& [index, address] : tasks)
      out.emplace_back(StrCat("/job:", job, "/replica:0/task:", index), address);
  return out;
}

StatusOr<TfConfig> TfConfig::Parse(std::string_view json) {
  CLAB_ASSIGN_OR_RETURN(nlohmann::json doc, ParseJson(json, "TF_CONFIG"));
  if (!doc.is_object()) return errors::InvalidArgument("TF_CONFIG must be a JSON object");
  TfConfig config;
  if (!doc.contains("cluster")) return errors::InvalidArgument("TF_CONFIG has no \"cluster\" member");
  CLAB_ASSIGN_OR_RETURN(ClusterSpec::Jobs jobs, JobsFromJson(doc["cluster"]));
  CLAB_ASSIGN_OR_RETURN(config.cluster, ClusterSpec::FromJobs(std::move(jobs)));
  if (!doc.contains("task") || !doc["task"].is_object())
    return errors::InvalidArgument("TF_CONFIG has a cluster but no \"task\" object ({\"type\": ..., \"index\": ...})");
  const auto& task = doc["task"];
  if (!task.contains("type") || !task["type"].is_string())
    return errors::InvalidArgument("TF_CONFIG task has no \"type\" string");
  config.task_type = task["type"].get<std::string>();
  if (!task.contains("index") || !task["index"].is_number_integer())
    return errors::InvalidArgument("TF_CONFIG task has no integer \"index\"");
  // Read at full width first: a narrowing get<int>() would turn 4294967296 into task 0.
  const nlohmann::json& index = task["index"];
  const bool in_range = index.is_number_unsigned()
                            ? index.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int>::max())
                            : index.get<int64_t>() >= 0 && index.get<int64_t>() <= std::numeric_limits<int>::max();
  if (!in_range)
    return errors::InvalidArgument("TF_CONFIG task index ", index.dump(), " is out of range (0 to ",
                                   std::numeric_limits<int>::max(), ")");
  config.task_index = index.get<int>();
  if (!config.cluster.HasJob(config.task_type))
    return errors::InvalidArgument("TF_CONFIG task type '", config.task_type,
                                   "' is not a job of the cluster (jobs: ", absl::StrJoin(config.cluster.jobs(), ", "),
                                   ")");
  if (!config.cluster.TaskAddress(config.task_type, config.task_index).ok())
    return errors::InvalidArgument("TF_CONFIG task index ", config.task_index, " is out of range for job '",
                                   config.task_type, "' with ", config.cluster.num_tasks(config.task_type), " tasks");
  if (config.cluster.HasJob("chief")) {
    if (config.cluster.num_tasks("chief") != 1)
      return errors::InvalidArgument("TF_CONFIG cluster must have only one \"chief\" task");
    config.is_chief = config.task_type == "chief";
  } else if (config.cluster.HasJob("master")) {
    config.is_chief = config.task_type == "master";
  } else {
    config.is_chief = config.task_type == "worker" && config.task_index == 0;
  }
  return config;
}

}  // namespace clab
