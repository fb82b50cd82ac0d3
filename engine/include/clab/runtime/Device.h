// A device that runs kernels: the host CPU, or a GPU from the CUDA plugin. Devices of one
// task share the task's name prefix "/job:J/replica:0/task:T".
#pragma once

#include "clab/core/Allocator.h"
#include "clab/core/DeviceName.h"
#include "clab/core/FileInDirectory.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/UniqueFd.h"
#include "clab/runtime/ResourceMgr.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/device_attributes.pb.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace Eigen {
struct ThreadPoolDevice;
}

namespace clab {

class FileAccess;
class ThreadPool;

class Device {
 public:
  Device(std::string full_name, std::string type, std::string description);
  virtual ~Device();

  const std::string& name() const { return name_; }  // full canonical name
  const DeviceName& parsed_name() const { return parsed_; }
  const std::string& type() const { return type_; }  // "CPU", "GPU"
  const std::string& description() const { return description_; }
  // Random per process start: lets peers tell a restarted task from the one they knew.
  uint64_t incarnation() const { return incarnation_; }
  tensorflow::DeviceAttributes attributes() const;

  virtual Allocator* allocator() = 0;
  ResourceMgr* resource_mgr() { return &resources_; }
  // For Eigen expressions on CPU devices; nullptr on others.
  virtual const Eigen::ThreadPoolDevice* eigen_cpu_device() const { return nullptr; }

  // Copies between host memory and this device's memory; both tensors have the same dtype
  // and shape. The host-only CPU device copies with memcpy.
  virtual Status CopyHostToDevice(const Tensor& host, Tensor* device_tensor);
  virtual Status CopyDeviceToHost(const Tensor& device_tensor, Tensor* host);
  // Waits until work queued on the device is done (GPU streams); no-op on the CPU.
  virtual Status Sync() { return OkStatus(); }

  // The files kernels on this device may touch (a server's devices run its clients' graphs);
  // unset, any file (a program's own session).
  void set_file_access(std::shared_ptr<const FileAccess> access) { file_access_ = std::move(access); }
  // The file a kernel reads, opened: below its allowed directory with a FileAccess (see
  // FileAccess::OpenForReading), as named without one. NOT_FOUND naming `what` and the path
  // when it is missing.
  StatusOr<UniqueFd> OpenForReading(const std::string& path, std::string_view what) const;
  // The directory that holds `path`, opened (made first when `create`), and the path's
  // last component; confined as OpenForReading.
  StatusOr<FileInDirectory> OpenDirectoryOf(const std::string& path, std::string_view what, bool create) const;

 private:
  std::string name_;
  DeviceName parsed_;
  std::string type_;
  std::string description_;
  uint64_t incarnation_;
  ResourceMgr resources_;
  std::shared_ptr<const FileAccess> file_access_;
};

// The devices of one task (one process, or one server in a process).
class DeviceMgr {
 public:
  // Creates "CPU:0" and, when the CUDA plugin loads and finds a GPU and `config` allows it
  // (device_count["GPU"] != 0), "GPU:0"... under `task_prefix`, e.g. "/job:localhost/replica:0/task:0".
  static StatusOr<std::unique_ptr<DeviceMgr>> CreateLocal(const std::string& task_prefix,
                                                          const tensorflow::ConfigProto& config);
  explicit DeviceMgr(std::vector<std::unique_ptr<Device>> devices);

  const std::vector<Device*>& devices() const { return device_ptrs_; }
  // Accepts a full name or a spec that matches exactly one device; NOT_FOUND lists the devices.
  StatusOr<Device*> Lookup(std::string_view name) const;
  Device* host_cpu() const { return device_ptrs_.empty() ? nullptr : device_ptrs_.front(); }
  const std::string& task_prefix() const { return task_prefix_; }

 private:
  std::vector<std::unique_ptr<Device>> devices_;
  std::vector<Device*> device_ptrs_;
  std::string task_prefix_;
};

// Device types other than the CPU come from factories; the CUDA plugin registers "GPU".
using DeviceFactoryFn = std::function<StatusOr<std::vector<std::unique_ptr<Device>>>(
    const std::string& task_prefix, const tensorflow::ConfigProto& config)>;
void RegisterDeviceFactory(const std::string& device_type, DeviceFactoryFn factory);

// Loads the device plugins (libclab_cuda.so) once per process from $CLAB_PLUGIN_PATH, the
// build tree and the install directory, only where a GPU may be used (the NVIDIA device
// files exist and the driver finds a device; CLAB_LOAD_PLUGINS_WITHOUT_GPU=1 skips that check). Each plugin exports
// `extern "C" void clab_register_plugin()`, which registers its device factory and kernels. Returns one line per plugin
// saying what was loaded, or why not ("libcuda.so.1: cannot open ..."): a missing plugin or GPU is normal, never an
// error.
const std::vector<std::string>& LoadDevicePlugins();

}  // namespace clab
