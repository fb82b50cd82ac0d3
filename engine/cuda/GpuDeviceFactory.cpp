#include "GpuDeviceFactory.h"

#include "GpuDevice.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <mutex>

namespace clab::gpu {
namespace {

// These mean "no usable GPU here" on an ordinary machine and deserve no message; any other
// error means a GPU is present but broken (driver mismatch, busy), which the user should hear.
bool IsOrdinaryAbsence(cudaError_t error) {
  return error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver || error == cudaErrorInvalidDevice;
}

void NoteOnce(const std::string& text) {
  static std::mutex mu;
  static auto* said = new std::vector<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& s : *said)
    if (s == text) return;
  said->push_back(text);
  std::fprintf(stderr, "clab_cuda: %s\n", text.c_str());
}

// The CUDA ordinals to expose, in order: TensorFlow's "1,0" style list, or every device.
StatusOr<std::vector<int>> VisibleOrdinals(const tensorflow::ConfigProto& config, int count) {
  std::vector<int> ordinals;
  const std::string& list = config.gpu_options().visible_device_list();
  if (list.empty()) {
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
    return ordinals;
  }
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    int ordinal = -1;
    if (!absl::SimpleAtoi(part, &ordinal) || ordinal < 0 || ordinal >= count)
      return errors::InvalidArgument("'visible_device_list' listed an invalid GPU id '", part,
                                     "' but visible device count is ", count);
    ordinals.push_back(ordinal);
  }
  return ordinals;
}

}  // namespace

StatusOr<std::vector<std::unique_ptr<Device>>> CreateGpuDevices(const std::string& task_prefix,
                                                                const tensorflow::ConfigProto& config) {
  std::vector<std::unique_ptr<Device>> devices;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    if (!IsOrdinaryAbsence(error))
      NoteOnce(std::string("no GPU is used: cudaGetDeviceCount failed: ") + cudaGetErrorString(error) + " (" +
               cudaGetErrorName(error) + "). Check that the NVIDIA driver matches CUDA 13.");
    return devices;
  }

  CLAB_ASSIGN_OR_RETURN(std::vector<int> ordinals, VisibleOrdinals(config, count));
  if (auto it = config.device_count().find("GPU");
      it != config.device_count().end() && it->second >= 0 && static_cast<size_t>(it->second) < ordinals.size())
    ordinals.resize(static_cast<size_t>(it->second));

  for (size_t local = 0; local < ordinals.size(); ++local) {
    auto device = GpuDevice::Create(task_prefix, static_cast<int>(devices.size()), ordinals[local]);
    if (!device.ok()) {
      NoteOnce(absl::StrCat("GPU ", ordinals[local], " is left out: ", device.status().message()));
      continue;
    }
    devices.push_back(std::move(device).value());
  }
  return devices;
}

}  // namespace clab::gpu
