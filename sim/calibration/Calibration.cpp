#include "calibration/Calibration.h"

#include "clab/core/JsonNesting.h"

#include <absl/strings/str_cat.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace clab::sim {
namespace {

using nlohmann::json;

Status ReadNumber(const json& object, const char* key, const std::string& where, double* out) {
  if (!object.contains(key)) return OkStatus();
  const json& value = object.at(key);
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
    return errors::InvalidArgument(where, ".", key, ": ", value.dump(), " is not a number at least 0");
  *out = value.get<double>();
  return OkStatus();
}

}  // namespace

StatusOr<Calibration> Calibration::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errors::NotFound(path, ": cannot open the calibration file");
  std::stringstream text;
  text << in.rdbuf();
  return FromJsonText(text.str(), path);
}

StatusOr<Calibration> Calibration::FromJsonText(const std::string& text, const std::string& origin) {
  CLAB_RETURN_IF_ERROR(CheckJsonNesting(text, origin));
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    return errors::InvalidArgument(origin, ": not JSON: ", e.what());
  }
  if (!root.is_object() || root.value("format", "") != "clusterlab-calibration")
    return errors::InvalidArgument(origin,
                                   ": format: not a ClusterLab calibration (expected \"format\": "
                                   "\"clusterlab-calibration\"; make one with clab simulate --calibrate)");
  Calibration c;
  c.calibrated = true;
  c.project = root.value("project", "");
  c.machine = root.value("machine", "");
  CLAB_RETURN_IF_ERROR(ReadNumber(root, "flops_per_second", origin, &c.flops_per_second));
  CLAB_RETURN_IF_ERROR(ReadNumber(root, "op_seconds", origin, &c.op_seconds));
  if (!(c.flops_per_second > 0)) return errors::InvalidArgument(origin, ".flops_per_second: must be above zero");
  if (root.contains("nodes")) {
    if (!root["nodes"].is_object()) return errors::InvalidArgument(origin, ".nodes: wants node name -> seconds");
    for (const auto& [name, value] : root["nodes"].items()) {
      double seconds = 0;
      CLAB_RETURN_IF_ERROR(ReadNumber(root["nodes"], name.c_str(), absl::StrCat(origin, ".nodes"), &seconds));
      c.node_seconds[name] = seconds;
    }
  }
  if (root.contains("rpc")) {
    const std::string where = absl::StrCat(origin, ".rpc");
    const json& rpc = root["rpc"];
    if (!rpc.is_object()) return errors::InvalidArgument(where, ": wants an object");
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "client_seconds", where, &c.rpc.client_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "server_seconds", where, &c.rpc.server_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "seconds_per_byte", where, &c.rpc.seconds_per_byte));
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "latency", where, &c.rpc.latency));
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "server_background_seconds", where, &c.rpc.server_background_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "awake_saving_seconds", where, &c.rpc.awake_saving_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(rpc, "busy_wake_latency", where, &c.rpc.busy_wake_latency));
    if (c.rpc.awake_saving_seconds > c.rpc.server_seconds)
      return errors::InvalidArgument(where, ".awake_saving_seconds: ", c.rpc.awake_saving_seconds,
                                     " is more than a call's CPU at its callee (server_seconds ", c.rpc.server_seconds,
                                     ")");
  }
  if (root.contains("step")) {
    const std::string where = absl::StrCat(origin, ".step");
    const json& step = root["step"];
    if (!step.is_object()) return errors::InvalidArgument(where, ": wants an object");
    CLAB_RETURN_IF_ERROR(ReadNumber(step, "client_seconds", where, &c.step_client_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(step, "idle_seconds", where, &c.step_idle_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(step, "background_seconds", where, &c.step_background_seconds));
    CLAB_RETURN_IF_ERROR(ReadNumber(step, "jitter", where, &c.jitter));
  }
  if (root.contains("measured") && root["measured"].is_object()) {
    const std::string where = absl::StrCat(origin, ".measured");
    const json& measured = root["measured"];
    CLAB_RETURN_IF_ERROR(ReadNumber(measured, "steps_per_second", where, &c.measured_steps_per_second));
    CLAB_RETURN_IF_ERROR(ReadNumber(measured, "worker_cpu_per_step", where, &c.measured_worker_cpu_per_step));
    CLAB_RETURN_IF_ERROR(ReadNumber(measured, "ps_cpu_per_step", where, &c.measured_ps_cpu_per_step));
    CLAB_RETURN_IF_ERROR(
        ReadNumber(measured, "two_workers_steps_per_second", where, &c.measured_two_workers_steps_per_second));
    CLAB_RETURN_IF_ERROR(
        ReadNumber(measured, "two_workers_ps_cpu_per_step", where, &c.measured_two_workers_ps_cpu_per_step));
  }
  return c;
}

std::string Calibration::ToJsonText() const {
  json root{{"format", "clusterlab-calibration"},
            {"version", 1},
            {"project", project},
            {"machine", machine},
            {"flops_per_second", flops_per_second},
            {"op_seconds", op_seconds}};
  json nodes = json::object();
  for (const auto& [name, seconds] : node_seconds) nodes[name] = seconds;
  root["nodes"] = nodes;
  root["rpc"] = json{{"client_seconds", rpc.client_seconds},
                     {"server_seconds", rpc.server_seconds},
                     {"seconds_per_byte", rpc.seconds_per_byte},
                     {"latency", rpc.latency},
                     {"server_background_seconds", rpc.server_background_seconds},
                     {"awake_saving_seconds", rpc.awake_saving_seconds},
                     {"busy_wake_latency", rpc.busy_wake_latency}};
  root["step"] = json{{"client_seconds", step_client_seconds},
                      {"idle_seconds", step_idle_seconds},
                      {"background_seconds", step_background_seconds},
                      {"jitter", jitter}};
  root["measured"] = json{{"steps_per_second", measured_steps_per_second},
                          {"worker_cpu_per_step", measured_worker_cpu_per_step},
                          {"ps_cpu_per_step", measured_ps_cpu_per_step},
                          {"two_workers_steps_per_second", measured_two_workers_steps_per_second},
                          {"two_workers_ps_cpu_per_step", measured_two_workers_ps_cpu_per_step}};
  return root.dump(2) + "\n";
}

Status Calibration::Save(const std::string& path) const {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return errors::PermissionDenied(path, ": cannot write the calibration");
    out << ToJsonText();
    if (!out.flush()) return errors::DataLoss(path, ": writing the calibration failed");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    return errors::PermissionDenied(path, ": cannot replace it with the new calibration");
  return OkStatus();
}

}  // namespace clab::sim
