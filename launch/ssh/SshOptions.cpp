#include "launch/ssh/SshOptions.h"

#include "launch/project/JsonFields.h"

namespace clab::launch {

StatusOr<SshOptions> SshOptions::FromJson(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  SshOptions options;
  CLAB_RETURN_IF_ERROR(fields.Bool("copy_binary", &options.copy_binary));
  CLAB_RETURN_IF_ERROR(fields.Choice("restart", {"on-failure", "never"}, &options.restart));
  CLAB_RETURN_IF_ERROR(fields.Int("max_restarts", &options.max_restarts, 0, 1000));
  CLAB_RETURN_IF_ERROR(fields.Int("connect_timeout_s", &options.connect_timeout_s, 1, 3600));
  CLAB_RETURN_IF_ERROR(fields.String("config", &options.config));
  CLAB_RETURN_IF_ERROR(fields.CheckNoOthers());
  return options;
}

nlohmann::json SshOptions::ToJson() const {
  return {{"copy_binary", copy_binary},
          {"restart", restart},
          {"max_restarts", max_restarts},
          {"connect_timeout_s", connect_timeout_s},
          {"config", config}};
}

}  // namespace clab::launch
