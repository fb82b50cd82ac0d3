#include "platform/PlatformSpec.h"

#include "clab/core/JsonNesting.h"

#include "platform/Quantity.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace clab::sim {
namespace {

using nlohmann::json;

// Reads the fields of one JSON object, naming it in errors ("hosts[1] \"big\"").
class Fields {
 public:
  Fields(const json& object, std::string where) : object_(object), where_(std::move(where)) {}

  Status CheckObject() const {
    if (!object_.is_object()) return errors::InvalidArgument(where_, ": wants an object");
    return OkStatus();
  }
  // Unknown fields are errors: a misspelt "bandwith" would otherwise fall back silently.
  Status OnlyKnown(const std::vector<std::string>& known) const {
    for (const auto& [key, value] : object_.items())
      if (std::find(known.begin(), known.end(), key) == known.end())
        return errors::InvalidArgument(where_, ": unknown field \"", key, "\" (known: ", absl::StrJoin(known, ", "),
                                       ")");
    return OkStatus();
  }
  bool Has(const char* key) const { return object_.contains(key); }
  const json& At(const char* key) const { return object_.at(key); }
  std::string Where(const std::string& key) const { return absl::StrCat(where_, ".", key); }

  Status Bandwidth(const char* key, double* out) const {
    if (!Has(key)) return OkStatus();
    const json& value = At(key);
    StatusOr<double> parsed = value.is_number()   ? StatusOr<double>(value.get<double>())
                              : value.is_string() ? ParseBandwidth(value.get<std::string>())
                                                  : StatusOr<double>(errors::InvalidArgument("wants a bandwidth"));
    if (!parsed.ok()) return errors::InvalidArgument(Where(key), ": ", parsed.status().message());
    if (!(*parsed > 0))
      return errors::InvalidArgument(Where(key), ": ", value.dump(),
                                     " is not above zero: a link must carry something (e.g. \"10Gbps\")");
    *out = *parsed;
    return OkStatus();
  }
  Status Duration(const char* key, double* out) const {
    if (!Has(key)) return OkStatus();
    const json& value = At(key);
    StatusOr<double> parsed = value.is_number()   ? StatusOr<double>(value.get<double>())
                              : value.is_string() ? ParseDuration(value.get<std::string>())
                                                  : StatusOr<double>(errors::InvalidArgument("wants a duration"));
    if (!parsed.ok()) return errors::InvalidArgument(Where(key), ": ", parsed.status().message());
    if (*parsed < 0) return errors::InvalidArgument(Where(key), ": ", value.dump(), " is negative");
    *out = *parsed;
    return OkStatus();
  }
  Status Size(const char* key, double* out) const {
    if (!Has(key)) return OkStatus();
    const json& value = At(key);
    StatusOr<double> parsed = value.is_number()   ? StatusOr<double>(value.get<double>())
                              : value.is_string() ? ParseSize(value.get<std::string>())
                                                  : StatusOr<double>(errors::InvalidArgument("wants a size"));
    if (!parsed.ok()) return errors::InvalidArgument(Where(key), ": ", parsed.status().message());
    if (*parsed < 0) return errors::InvalidArgument(Where(key), ": ", value.dump(), " is negative");
    *out = *parsed;
    return OkStatus();
  }
  Status Count(const char* key, int* out) const {
    if (!Has(key)) return OkStatus();
    const json& value = At(key);
    if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > 1000000)
      return errors::InvalidArgument(Where(key), ": ", value.dump(), " is not a count (a whole number, at least 1)");
    *out = value.get<int>();
    return OkStatus();
  }
  Status Speed(const char* key, double* out) const {
    if (!Has(key)) return OkStatus();
    const json& value = At(key);
    if (!value.is_number() || !(value.get<double>() > 0))
      return errors::InvalidArgument(
          Where(key), ": ", value.dump(),
          " is not a speed (a number above zero; 1.0 is one core of the calibrated machine)");
    *out = value.get<double>();
    return OkStatus();
  }
  Status Text(const char* key, std::string* out) const {
    if (!Has(key)) return OkStatus();
    if (!At(key).is_string() || At(key).get<std::string>().empty())
      return errors::InvalidArgument(Where(key), ": wants a non-empty name");
    *out = At(key).get<std::string>();
    return OkStatus();
  }

 private:
  const json& object_;
  const std::string where_;
};

Status ReadLink(const json& object, const std::string& where, LinkSpec* link) {
  Fields fields(object, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  CLAB_RETURN_IF_ERROR(fields.OnlyKnown({"bandwidth", "latency", "burst"}));
  CLAB_RETURN_IF_ERROR(fields.Bandwidth("bandwidth", &link->bandwidth));
  CLAB_RETURN_IF_ERROR(fields.Size("burst", &link->burst));
  return fields.Duration("latency", &link->latency);
}

Status ReadHost(const json& object, const std::string& where, bool named, HostSpec* host) {
  Fields fields(object, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  if (named) {
    CLAB_RETURN_IF_ERROR(fields.OnlyKnown({"name", "cores", "speed", "link", "machine"}));
    if (!fields.Has("name")) return errors::InvalidArgument(where, ": wants a \"name\"");
    CLAB_RETURN_IF_ERROR(fields.Text("name", &host->name));
    CLAB_RETURN_IF_ERROR(fields.Text("machine", &host->machine));
    if (fields.Has("link")) CLAB_RETURN_IF_ERROR(ReadLink(fields.At("link"), fields.Where("link"), &host->link));
  } else {
    CLAB_RETURN_IF_ERROR(fields.OnlyKnown({"cores", "speed", "machine"}));
    CLAB_RETURN_IF_ERROR(fields.Text("machine", &host->machine));
  }
  CLAB_RETURN_IF_ERROR(fields.Count("cores", &host->cores));
  return fields.Speed("speed", &host->speed);
}

json LinkJson(const LinkSpec& link) {
  json out{{"bandwidth", FormatBandwidth(link.bandwidth)}, {"latency", FormatDuration(link.latency)}};
  if (link.burst > 0) out["burst"] = absl::StrCat(static_cast<int64_t>(link.burst), "B");
  return out;
}

bool Matches(const std::string& pattern, const std::string& task) {
  if (pattern == "*") return true;
  if (pattern.size() > 2 && pattern.compare(pattern.size() - 2, 2, "/*") == 0)
    return task.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == task;
}

// Exact names first, then jobs, then "*".
int Specificity(const std::string& pattern) {
  if (pattern == "*") return 0;
  return pattern.back() == '*' ? 1 : 2;
}

}  // namespace

std::string CanonicalTaskPattern(const std::string& text) {
  if (text == "*") return text;
  std::string job, task;
  if (text.rfind("/job:", 0) == 0) {
    const size_t slash = text.find('/', 5);
    if (slash == std::string::npos) return text;
    job = text.substr(5, slash - 5);
    const size_t at = text.rfind("/task:");
    if (text.substr(slash) == "/*") return absl::StrCat("/job:", job, "/*");
    if (at == std::string::npos) return text;
    task = text.substr(at + 6);
  } else if (const size_t colon = text.find(':'); colon != std::string::npos && text.find('/') == std::string::npos) {
    job = text.substr(0, colon);
    task = text.substr(colon + 1);
  } else {
    return text;
  }
  if (task.empty() || task.find_first_not_of("0123456789") != std::string::npos) return text;
  return absl::StrCat("/job:", job, "/replica:0/task:", task);
}

std::string TaskLabel(const std::string& task) {
  const std::string canonical = CanonicalTaskPattern(task);
  if (canonical.rfind("/job:", 0) != 0) return task;
  const size_t slash = canonical.find('/', 5);
  const size_t at = canonical.rfind("/task:");
  if (slash == std::string::npos || at == std::string::npos) return task;
  return absl::StrCat(canonical.substr(5, slash - 5), " ", canonical.substr(at + 6));
}

StatusOr<PlatformSpec> PlatformSpec::FromJson(const json& object, const std::string& origin,
                                              const std::string& base_dir) {
  Fields fields(object, origin);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  CLAB_RETURN_IF_ERROR(fields.OnlyKnown({"format", "version", "topology", "host", "link", "switch", "rack", "loopback",
                                         "payload_fraction", "xml", "hosts", "machines", "tasks"}));
  PlatformSpec spec;
  if (fields.Has("topology")) {
    const json& topology = fields.At("topology");
    const std::string name = topology.is_string() ? topology.get<std::string>() : topology.dump();
    if (name == "star") spec.topology = Topology::kStar;
    else if (name == "tree") spec.topology = Topology::kTree;
    else if (name == "xml") spec.topology = Topology::kXml;
    else return errors::InvalidArgument(origin, ".topology: \"", name, "\" is not a topology (star, tree or xml)");
  }
  std::set<std::string> machine_names;
  if (fields.Has("host")) CLAB_RETURN_IF_ERROR(ReadHost(fields.At("host"), fields.Where("host"), false, &spec.host));
  if (fields.Has("link")) CLAB_RETURN_IF_ERROR(ReadLink(fields.At("link"), fields.Where("link"), &spec.host.link));
  if (fields.Has("switch")) {
    LinkSpec backplane;
    CLAB_RETURN_IF_ERROR(ReadLink(fields.At("switch"), fields.Where("switch"), &backplane));
    spec.backplane = backplane;
  }
  if (fields.Has("loopback"))
    CLAB_RETURN_IF_ERROR(ReadLink(fields.At("loopback"), fields.Where("loopback"), &spec.loopback));
  if (fields.Has("rack")) {
    if (spec.topology != Topology::kTree)
      return errors::InvalidArgument(origin, ".rack: only a \"tree\" topology has racks");
    Fields rack(fields.At("rack"), fields.Where("rack"));
    CLAB_RETURN_IF_ERROR(rack.CheckObject());
    CLAB_RETURN_IF_ERROR(rack.OnlyKnown({"hosts", "uplink"}));
    CLAB_RETURN_IF_ERROR(rack.Count("hosts", &spec.rack_hosts));
    if (rack.Has("uplink")) CLAB_RETURN_IF_ERROR(ReadLink(rack.At("uplink"), rack.Where("uplink"), &spec.rack_uplink));
  }
  if (fields.Has("payload_fraction")) {
    const json& value = fields.At("payload_fraction");
    if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 1)
      return errors::InvalidArgument(origin, ".payload_fraction: ", value.dump(),
                                     " is not a fraction of the link's rate (above 0, at most 1)");
    spec.payload_fraction = value.get<double>();
  }
  if (fields.Has("xml")) {
    if (spec.topology != Topology::kXml)
      return errors::InvalidArgument(origin, ".xml: only a platform with \"topology\": \"xml\" reads a SimGrid file");
    CLAB_RETURN_IF_ERROR(fields.Text("xml", &spec.xml_path));
    std::filesystem::path path(spec.xml_path);
    if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
    spec.xml_path = path.string();
    if (!std::filesystem::exists(path))
      return errors::NotFound(origin, ".xml: ", spec.xml_path, ": no such SimGrid platform file");
  } else if (spec.topology == Topology::kXml) {
    return errors::InvalidArgument(origin,
                                   ": a \"topology\": \"xml\" platform wants \"xml\": the SimGrid platform file");
  }

  if (fields.Has("machines")) {
    const json& machines = fields.At("machines");
    if (!machines.is_array()) return errors::InvalidArgument(origin, ".machines: wants a list");
    for (size_t i = 0; i < machines.size(); ++i) {
      const std::string where = absl::StrCat(origin, ".machines[", i, "]");
      Fields machine(machines[i], where);
      CLAB_RETURN_IF_ERROR(machine.CheckObject());
      CLAB_RETURN_IF_ERROR(machine.OnlyKnown({"name", "cores", "speed"}));
      MachineSpec spec_machine;
      if (!machine.Has("name")) return errors::InvalidArgument(where, ": wants a \"name\"");
      CLAB_RETURN_IF_ERROR(machine.Text("name", &spec_machine.name));
      const std::string named = absl::StrCat(where, " \"", spec_machine.name, "\"");
      Fields again(machines[i], named);
      CLAB_RETURN_IF_ERROR(again.Count("cores", &spec_machine.cores));
      CLAB_RETURN_IF_ERROR(again.Speed("speed", &spec_machine.speed));
      if (!machine_names.insert(spec_machine.name).second)
        return errors::InvalidArgument(named, ": a second machine of that name");
      spec.machines.push_back(spec_machine);
    }
  }
  if (!spec.host.machine.empty() && !machine_names.count(spec.host.machine))
    return errors::InvalidArgument(origin, ".host.machine: \"", spec.host.machine, "\" is not in \"machines\"");
  std::set<std::string> host_names;
  if (fields.Has("hosts")) {
    const json& hosts = fields.At("hosts");
    if (!hosts.is_array()) return errors::InvalidArgument(origin, ".hosts: wants a list of hosts");
    for (size_t i = 0; i < hosts.size(); ++i) {
      HostSpec host = spec.host;
      host.name.clear();
      std::string where = absl::StrCat(origin, ".hosts[", i, "]");
      if (hosts[i].is_object() && hosts[i].contains("name") && hosts[i]["name"].is_string())
        where = absl::StrCat(where, " \"", hosts[i]["name"].get<std::string>(), "\"");
      CLAB_RETURN_IF_ERROR(ReadHost(hosts[i], where, true, &host));
      if (!host.machine.empty() && !machine_names.count(host.machine))
        return errors::InvalidArgument(where, ".machine: \"", host.machine, "\" is not in \"machines\"");
      if (!host_names.insert(host.name).second) return errors::InvalidArgument(where, ": a second host of that name");
      spec.hosts.push_back(host);
    }
  }
  if (fields.Has("tasks")) {
    const json& tasks = fields.At("tasks");
    if (!tasks.is_object()) return errors::InvalidArgument(origin, ".tasks: wants an object of task -> host");
    for (const auto& [pattern, value] : tasks.items()) {
      const std::string where = absl::StrCat(origin, ".tasks[\"", pattern, "\"]");
      TaskBinding binding;
      binding.pattern = CanonicalTaskPattern(pattern);
      if (binding.pattern != "*" && binding.pattern.rfind("/job:", 0) != 0)
        return errors::InvalidArgument(where, ": not a task (\"/job:ps/task:0\", \"/job:worker/*\" or \"*\")");
      if (value.is_string()) {
        binding.hosts.push_back(value.get<std::string>());
      } else if (value.is_array() && !value.empty()) {
        for (const json& host : value) {
          if (!host.is_string()) return errors::InvalidArgument(where, ": wants host names");
          binding.hosts.push_back(host.get<std::string>());
        }
      } else {
        return errors::InvalidArgument(where, ": wants a host name or a non-empty list of them");
      }
      if (spec.topology != Topology::kXml)
        for (const std::string& host : binding.hosts)
          if (!host_names.count(host))
            return errors::InvalidArgument(where, ": host \"", host, "\" is not in \"hosts\"");
      spec.tasks.push_back(std::move(binding));
    }
  }
  return spec;
}

StatusOr<PlatformSpec> PlatformSpec::FromJsonText(const std::string& text, const std::string& origin,
                                                  const std::string& base_dir) {
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, origin));
  json parsed;
  try {
    parsed = json::parse(text);
  } catch (const json::parse_error& e) {
    return errors::InvalidArgument(origin, ": not JSON: ", e.what());
  }
  return FromJson(parsed, origin, base_dir);
}

StatusOr<PlatformSpec> PlatformSpec::FromFile(const std::string& path) {
  const std::filesystem::path file(path);
  if (file.extension() == ".xml") {
    if (!std::filesystem::exists(file)) return errors::NotFound(path, ": no such SimGrid platform file");
    PlatformSpec spec;
    spec.topology = Topology::kXml;
    spec.xml_path = path;
    return spec;
  }
  std::ifstream in(path);
  if (!in) return errors::NotFound(path, ": cannot open the platform file");
  std::stringstream text;
  text << in.rdbuf();
  return FromJsonText(text.str(), path, file.parent_path().string());
}

json PlatformSpec::ToJson() const {
  json out;
  out["topology"] = topology == Topology::kStar ? "star" : topology == Topology::kTree ? "tree" : "xml";
  out["host"] = json{{"cores", host.cores}, {"speed", host.speed}};
  if (!host.machine.empty()) out["host"]["machine"] = host.machine;
  out["link"] = LinkJson(host.link);
  if (backplane) out["switch"] = LinkJson(*backplane);
  if (topology == Topology::kTree) out["rack"] = json{{"hosts", rack_hosts}, {"uplink", LinkJson(rack_uplink)}};
  out["loopback"] = LinkJson(loopback);
  out["payload_fraction"] = payload_fraction;
  if (topology == Topology::kXml) out["xml"] = xml_path;
  if (!machines.empty()) {
    json list = json::array();
    for (const MachineSpec& m : machines)
      list.push_back(json{{"name", m.name}, {"cores", m.cores}, {"speed", m.speed}});
    out["machines"] = list;
  }
  if (!hosts.empty()) {
    json list = json::array();
    for (const HostSpec& h : hosts) {
      json entry{{"name", h.name}, {"cores", h.cores}, {"speed", h.speed}, {"link", LinkJson(h.link)}};
      if (!h.machine.empty()) entry["machine"] = h.machine;
      list.push_back(entry);
    }
    out["hosts"] = list;
  }
  if (!tasks.empty()) {
    json map = json::object();
    for (const TaskBinding& binding : tasks)
      map[binding.pattern] = binding.hosts.size() == 1 ? json(binding.hosts[0]) : json(binding.hosts);
    out["tasks"] = map;
  }
  return out;
}

std::string PlatformSpec::ToJsonText() const { return ToJson().dump(2); }

const MachineSpec* PlatformSpec::FindMachine(const std::string& name) const {
  for (const MachineSpec& machine : machines)
    if (machine.name == name) return &machine;
  return nullptr;
}

StatusOr<BoundPlatform> PlatformSpec::Bind(const std::vector<std::string>& tasks) const {
  BoundPlatform bound;
  bound.tasks = tasks;
  bound.hosts = hosts;
  std::map<std::string, int> index_of;
  for (size_t i = 0; i < hosts.size(); ++i) index_of[hosts[i].name] = static_cast<int>(i);
  // Each binding hands out its hosts in turn, in task order.
  std::vector<size_t> next(this->tasks.size(), 0);
  for (const std::string& task : tasks) {
    bound.members.push_back({task});
    const TaskBinding* best = nullptr;
    size_t best_index = 0;
    for (size_t b = 0; b < this->tasks.size(); ++b) {
      const TaskBinding& binding = this->tasks[b];
      if (!Matches(binding.pattern, task)) continue;
      if (!best || Specificity(binding.pattern) > Specificity(best->pattern)) {
        best = &binding;
        best_index = b;
      }
    }
    if (best) {
      const std::string& host = best->hosts[next[best_index]++ % best->hosts.size()];
      auto it = index_of.find(host);
      if (it == index_of.end()) {
        if (topology != Topology::kXml)
          return errors::InvalidArgument("task ", task, ": host \"", host, "\" is not in the platform's hosts");
        HostSpec named;
        named.name = host;
        it = index_of.emplace(host, static_cast<int>(bound.hosts.size())).first;
        bound.hosts.push_back(named);
      }
      bound.host_of_task.push_back(it->second);
      continue;
    }
    if (topology == Topology::kXml) {
      bound.host_of_task.push_back(-1);  // round the file's hosts, once it is loaded
      continue;
    }
    HostSpec own = host;
    own.name = TaskLabel(task);
    for (char& c : own.name)
      if (c == ' ') c = '-';
    if (index_of.count(own.name)) own.name += "-task";
    index_of[own.name] = static_cast<int>(bound.hosts.size());
    bound.host_of_task.push_back(static_cast<int>(bound.hosts.size()));
    bound.hosts.push_back(own);
  }
  return bound;
}

}  // namespace clab::sim
