// The "GPU" device factory the plugin registers with RegisterDeviceFactory.
#pragma once

#include "clab/runtime/Device.h"

namespace clab::gpu {

// GPU:0..N-1 under `task_prefix`, one per CUDA device visible to the process and to
// `config` (gpu_options.visible_device_list, device_count["GPU"]). When CUDA reports an
// error (no driver, no device) the list is empty: a machine without a GPU is normal. A GPU
// that exists but cannot be used is left out with a note on stderr saying why.
StatusOr<std::vector<std::unique_ptr<Device>>> CreateGpuDevices(const std::string& task_prefix,
                                                                const tensorflow::ConfigProto& config);

}  // namespace clab::gpu
