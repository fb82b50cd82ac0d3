#include "launch/slurm/SlurmOptions.h"

#include "launch/project/JsonFields.h"

namespace clab::launch {

StatusOr<SlurmOptions> SlurmOptions::FromJson(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  CLAB_RETURN_IF_ERROR(fields.CheckObject());
  SlurmOptions options;
  CLAB_RETURN_IF_ERROR(fields.Int("port_base", &options.port_base, 1, 65535));
  CLAB_RETURN_IF_ERROR(fields.String("partition", &options.partition));
  CLAB_RETURN_IF_ERROR(fields.String("time_limit", &options.time_limit));
  CLAB_RETURN_IF_ERROR(fields.String("work_dir", &options.work_dir));
  CLAB_RETURN_IF_ERROR(fields.String("binary", &options.binary));
  CLAB_RETURN_IF_ERROR(fields.Bool("overcommit", &options.overcommit));
  CLAB_RETURN_IF_ERROR(fields.Strings("sbatch_options", &options.sbatch_options));
  CLAB_RETURN_IF_ERROR(fields.CheckNoOthers());
  return options;
}

nlohmann::json SlurmOptions::ToJson() const {
  return {
      {"port_base", port_base}, {"partition", partition},   {"time_limit", time_limit},        {"work_dir", work_dir},
      {"binary", binary},       {"overcommit", overcommit}, {"sbatch_options", sbatch_options}};
}

}  // namespace clab::launch
