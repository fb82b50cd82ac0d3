#include "launch/project/LaunchSettings.h"

#include "launch/project/JsonFields.h"

namespace clab::launch {

std::vector<std::string> LaunchSettings::Methods() { return {"local", "ssh", "slurm", "kubernetes"}; }

HostSettings LaunchSettings::ForHost(const std::string& host) const {
  if (auto it = hosts.find(host); it != hosts.end()) return it->second;
  if (auto it = hosts.find("*"); it != hosts.end()) return it->second;
  return HostSettings();
}

StatusOr<LaunchSettings> LaunchSettings::FromJson(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  LaunchSettings settings;
  CLAB_RETURN_IF_ERROR(fields.Choice("method", Methods(), &settings.method));
  if (const nlohmann::json* hosts = fields.Member("hosts")) {
    if (!hosts->is_object())
      return errors::InvalidArgument(fields.PathOf("hosts"), ": wants an object of host -> settings");
    for (const auto& [host, entry] : hosts->items()) {
      if (host.empty()) return errors::InvalidArgument(fields.PathOf("hosts"), ": a host name is empty");
      CLAB_ASSIGN_OR_RETURN(settings.hosts[host], HostSettings::FromJson(entry, fields.PathOf("hosts." + host)));
    }
  }
  if (const nlohmann::json* ssh = fields.Member("ssh")) {
    CLAB_ASSIGN_OR_RETURN(settings.ssh, SshOptions::FromJson(*ssh, fields.PathOf("ssh")));
  }
  if (const nlohmann::json* slurm = fields.Member("slurm")) {
    CLAB_ASSIGN_OR_RETURN(settings.slurm, SlurmOptions::FromJson(*slurm, fields.PathOf("slurm")));
  }
  if (const nlohmann::json* kubernetes = fields.Member("kubernetes")) {
    CLAB_ASSIGN_OR_RETURN(settings.kubernetes, KubernetesOptions::FromJson(*kubernetes, fields.PathOf("kubernetes")));
  }
  CLAB_RETURN_IF_ERROR(fields.CheckNoOthers());
  return settings;
}

nlohmann::json LaunchSettings::ToJson() const {
  nlohmann::json hosts_json = nlohmann::json::object();
  for (const auto& [host, entry] : hosts) hosts_json[host] = entry.ToJson();
  nlohmann::json json = {{"method", method}, {"hosts", hosts_json}};
  // Only the sections that differ from their defaults, so a file says what was chosen.
  if (!(ssh == SshOptions())) json["ssh"] = ssh.ToJson();
  if (!(slurm == SlurmOptions())) json["slurm"] = slurm.ToJson();
  if (!(kubernetes == KubernetesOptions())) json["kubernetes"] = kubernetes.ToJson();
  return json;
}

}  // namespace clab::launch
