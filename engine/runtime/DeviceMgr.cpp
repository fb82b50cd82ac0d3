#include "clab/core/DeviceName.h"
#include "clab/runtime/Device.h"
#include "runtime/CpuDevice.h"

#include <absl/strings/str_join.h>

#include <map>
#include <mutex>

namespace clab {
namespace {

struct DeviceFactories {
  std::mutex mu;
  std::map<std::string, DeviceFactoryFn> by_type;  // sorted: devices come in a stable order
};

DeviceFactories& Factories() {
  static DeviceFactories* const factories = new DeviceFactories;
  return *factories;
}

// "/job:J/replica:R/task:T" of a full device name.
std::string TaskPrefixOf(const Device& device) {
  const DeviceName& n = device.parsed_name();
  if (!n.has_job) return "";
  return DeviceName::TaskPrefix(n.job, n.task, n.replica);
}

// How many devices of `type` the config asks for; -1 when it does not say.
int RequestedCount(const tensorflow::ConfigProto& config, const std::string& type) {
  auto it = config.device_count().find(type);
  return it == config.device_count().end() ? -1 : it->second;
}

}  // namespace

void RegisterDeviceFactory(const std::string& device_type, DeviceFactoryFn factory) {
  DeviceFactories& f = Factories();
  std::lock_guard<std::mutex> lock(f.mu);
  f.by_type[device_type] = std::move(factory);
}

StatusOr<std::unique_ptr<DeviceMgr>> DeviceMgr::CreateLocal(const std::string& task_prefix,
                                                            const tensorflow::ConfigProto& config) {
  LoadDevicePlugins();

  std::vector<std::unique_ptr<Device>> devices;
  // CPU:0 always exists (it hosts feeds, fetches and anything without a kernel elsewhere);
  // device_count {"CPU": n} adds more, as TensorFlow does, handy for multi-device tests.
  const int cpus = std::max(1, RequestedCount(config, "CPU"));
  for (int i = 0; i < cpus; ++i)
    devices.push_back(std::make_unique<CpuDevice>(task_prefix + "/device:CPU:" + std::to_string(i)));

  std::map<std::string, DeviceFactoryFn> factories;
  {
    DeviceFactories& f = Factories();
    std::lock_guard<std::mutex> lock(f.mu);
    factories = f.by_type;
  }
  for (const auto& [type, factory] : factories) {
    const int requested = RequestedCount(config, type);
    if (requested == 0) continue;
    auto made = factory(task_prefix, config);
    if (!made.ok()) {
      // A device type that is merely unavailable (no GPU here) is normal; only a config
      // that asked for it by count makes its absence an error.
      if (requested > 0) return errors::Annotate(made.status(), absl::StrCat("Creating ", type, " devices"));
      continue;
    }
    for (auto& device : *made) {
      if (device) devices.push_back(std::move(device));
    }
  }
  return std::make_unique<DeviceMgr>(std::move(devices));
}

DeviceMgr::DeviceMgr(std::vector<std::unique_ptr<Device>> devices) : devices_(std::move(devices)) {
  device_ptrs_.reserve(devices_.size());
  for (auto& device : devices_) device_ptrs_.push_back(device.get());
  if (!devices_.empty()) task_prefix_ = TaskPrefixOf(*devices_.front());
}

StatusOr<Device*> DeviceMgr::Lookup(std::string_view name) const {
  for (Device* device : device_ptrs_) {
    if (device->name() == name) return device;
  }
  std::vector<Device*> matches;
  if (auto spec = DeviceName::Parse(name); spec.ok() && !spec->IsEmpty()) {
    for (Device* device : device_ptrs_) {
      if (spec->Matches(device->parsed_name())) matches.push_back(device);
    }
  }
  if (matches.size() == 1) return matches.front();

  std::vector<std::string> names;
  for (const Device* device : device_ptrs_) names.push_back(device->name());
  if (matches.size() > 1)
    return errors::NotFound("Device spec '", std::string(name), "' matches ", matches.size(),
                            " devices; name one of [ ", absl::StrJoin(names, ", "), " ]");
  return errors::NotFound("Unknown device '", std::string(name), "'; available devices are [ ",
                          absl::StrJoin(names, ", "), " ]");
}

}  // namespace clab
