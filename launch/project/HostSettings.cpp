#include "launch/project/HostSettings.h"

#include "launch/project/JsonFields.h"

namespace clab::launch {

StatusOr<HostSettings> HostSettings::FromJson(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  HostSettings settings;
  CLAB_RETURN_IF_ERROR(fields.String("user", &settings.user));
  CLAB_RETURN_IF_ERROR(fields.Int("ssh_port", &settings.ssh_port, 0, 65535));
  CLAB_RETURN_IF_ERROR(fields.String("binary", &settings.binary));
  CLAB_RETURN_IF_ERROR(fields.String("data_dir", &settings.data_dir));
  CLAB_RETURN_IF_ERROR(fields.String("checkpoint_dir", &settings.checkpoint_dir));
  CLAB_RETURN_IF_ERROR(fields.CheckNoOthers());
  return settings;
}

nlohmann::json HostSettings::ToJson() const {
  nlohmann::json json = nlohmann::json::object();
  if (!user.empty()) json["user"] = user;
  if (ssh_port != 0) json["ssh_port"] = ssh_port;
  if (!binary.empty()) json["binary"] = binary;
  if (!data_dir.empty()) json["data_dir"] = data_dir;
  if (!checkpoint_dir.empty()) json["checkpoint_dir"] = checkpoint_dir;
  return json;
}

}  // namespace clab::launch
