#include "launch/project/ProjectSecurity.h"

#include "launch/project/JsonFields.h"

#include <nlohmann/json.hpp>

namespace clab::launch {

StatusOr<ProjectSecurity> ProjectSecurity::FromJson(const nlohmann::json& json, const std::string& where) {
  ProjectSecurity security;
  JsonFields fields(json, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  CLAB_RETURN_IF_ERROR(fields.String("tls_dir", &security.tls_dir));
  CLAB_RETURN_IF_ERROR(fields.String("token_file", &security.token_file));
  CLAB_RETURN_IF_ERROR(fields.Bool("insecure_listen_all", &security.insecure_listen_all));
  CLAB_RETURN_IF_ERROR(fields.CheckNoOthers());
  if (security.tls_dir.empty() != security.token_file.empty())
    return errors::InvalidArgument(where, ": tls_dir and token_file go together (",
                                   security.tls_dir.empty() ? "token_file" : "tls_dir",
                                   " is set alone); `clab cert` makes both");
  return security;
}

nlohmann::json ProjectSecurity::ToJson() const {
  nlohmann::json json = nlohmann::json::object();
  if (!tls_dir.empty()) json["tls_dir"] = tls_dir;
  if (!token_file.empty()) json["token_file"] = token_file;
  if (insecure_listen_all) json["insecure_listen_all"] = true;
  return json;
}

std::vector<std::string> ProjectSecurity::TaskFlags() const {
  std::vector<std::string> flags;
  if (!tls_dir.empty()) flags.insert(flags.end(), {"--tls_dir", tls_dir});
  if (!token_file.empty()) flags.insert(flags.end(), {"--token_file", token_file});
  if (insecure_listen_all) flags.push_back("--insecure_listen_all");
  return flags;
}

}  // namespace clab::launch
