// One CUDA GPU as an engine device: "/job:J/replica:0/task:T/device:GPU:N". Kernels queue
// their work on the GPU's stream and write tensors allocated in device memory; copies to
// and from the host go through this class, and Sync() waits for the stream.
//
// The stream, cuBLAS handle and allocator belong to the physical GPU and live as long as
// the process: several sessions (each with its own DeviceMgr) then share one stream, so a
// block freed by one session and reused by another is still ordered correctly, and nothing
// is torn down during static destruction, when the CUDA runtime may already be gone.
#pragma once

#include "clab/runtime/Device.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace clab::gpu {

class GpuAllocator;

class GpuDevice : public Device {
 public:
  // `local_id` is the N of GPU:N; `cuda_ordinal` the CUDA device it runs on (they differ
  // when ConfigProto.gpu_options.visible_device_list picks a subset).
  static StatusOr<std::unique_ptr<GpuDevice>> Create(const std::string& task_prefix, int local_id, int cuda_ordinal);
  ~GpuDevice() override;

  Allocator* allocator() override;
  Status CopyHostToDevice(const Tensor& host, Tensor* device_tensor) override;
  Status CopyDeviceToHost(const Tensor& device_tensor, Tensor* host) override;
  Status Sync() override;

  int cuda_ordinal() const { return cuda_ordinal_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t blas() const { return blas_; }
  GpuAllocator* gpu_allocator() const { return allocator_; }
  // Makes this GPU current on the calling thread: executor threads run kernels of every
  // device, so each kernel calls this before touching CUDA.
  Status Activate() const;

 private:
  GpuDevice(const std::string& full_name, std::string description, int cuda_ordinal, cudaStream_t stream,
            cublasHandle_t blas, GpuAllocator* allocator);

  int cuda_ordinal_;
  cudaStream_t stream_;
  cublasHandle_t blas_;
  GpuAllocator* allocator_;
};

}  // namespace clab::gpu
