// The host CPU of a task: memory from the process allocator, kernels on the process pool.
#pragma once

#include "clab/runtime/Device.h"

namespace clab {

class CpuDevice : public Device {
 public:
  explicit CpuDevice(std::string full_name);

  Allocator* allocator() override;
  const Eigen::ThreadPoolDevice* eigen_cpu_device() const override;
};

}  // namespace clab
