#include "runtime/CpuDevice.h"

#include "clab/runtime/ThreadPool.h"

namespace clab {

// TensorFlow leaves the CPU's physical description empty, so "Device mapping:" lists only
// accelerators; keep that.
CpuDevice::CpuDevice(std::string full_name) : Device(std::move(full_name), "CPU", "") {}

Allocator* CpuDevice::allocator() { return CpuAllocator(); }

const Eigen::ThreadPoolDevice* CpuDevice::eigen_cpu_device() const { return ThreadPool::Default()->eigen_device(); }

}  // namespace clab
