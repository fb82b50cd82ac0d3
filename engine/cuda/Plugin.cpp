// The plugin's entry point, called by LoadDevicePlugins() after dlopen().
#include "GpuBinaryKernel.h"
#include "GpuConstKernel.h"
#include "GpuDeviceFactory.h"
#include "GpuIdentityKernel.h"
#include "GpuMatMulKernel.h"
#include "GpuUnaryKernel.h"

#include "clab/graph/OpRegistry.h"

#include <cstdio>
#include <mutex>
#include <utility>

namespace clab::gpu {
namespace {

void AddGpuKernel(OpRegistry& registry, std::string_view op, KernelFactory factory) {
  Status status = registry.AddKernel(op, "GPU", std::move(factory));
  // An op this engine build does not have simply gets no GPU kernel; anything else (a
  // duplicate registration) is a packaging mistake worth a line.
  if (!status.ok() && !absl::IsNotFound(status))
    std::fprintf(stderr, "clab_cuda: no GPU kernel for %.*s: %s\n", static_cast<int>(op.size()), op.data(),
                 FormatStatus(status).c_str());
}

void RegisterGpuKernels() {
  OpRegistry& registry = OpRegistry::Global();
  AddGpuKernel(registry, "MatMul", GpuMatMulKernel::Create);
  const std::pair<const char*, BinaryOp> binary[] = {{"Add", BinaryOp::kAdd},
                                                     {"AddV2", BinaryOp::kAdd},
                                                     {"Sub", BinaryOp::kSub},
                                                     {"Mul", BinaryOp::kMul},
                                                     {"RealDiv", BinaryOp::kDiv}};
  for (const auto& [name, op] : binary) AddGpuKernel(registry, name, GpuBinaryKernel::Factory(op));
  const std::pair<const char*, UnaryOp> unary[] = {
      {"Neg", UnaryOp::kNeg}, {"Square", UnaryOp::kSquare}, {"Sqrt", UnaryOp::kSqrt},       {"Exp", UnaryOp::kExp},
      {"Log", UnaryOp::kLog}, {"Relu", UnaryOp::kRelu},     {"Sigmoid", UnaryOp::kSigmoid}, {"Tanh", UnaryOp::kTanh}};
  for (const auto& [name, op] : unary) AddGpuKernel(registry, name, GpuUnaryKernel::Factory(op));
  AddGpuKernel(registry, "Identity", GpuIdentityKernel::Create);
  AddGpuKernel(registry, "Const", GpuConstKernel::Create);
}

}  // namespace
}  // namespace clab::gpu

extern "C" __attribute__((visibility("default"))) void clab_register_plugin() {
  // A program may load the plugin through more than one path; registering twice would
  // only produce duplicate-kernel errors.
  static std::once_flag once;
  std::call_once(once, [] {
    clab::RegisterDeviceFactory("GPU", clab::gpu::CreateGpuDevices);
    clab::gpu::RegisterGpuKernels();
  });
}
