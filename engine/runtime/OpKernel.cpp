#include "clab/runtime/OpKernel.h"

namespace clab {
namespace {

class LambdaOpKernel : public OpKernel {
 public:
  LambdaOpKernel(std::function<void(OpKernelContext*)> compute, bool expensive)
      : compute_(std::move(compute)), expensive_(expensive) {}

  void Compute(OpKernelContext* ctx) override { compute_(ctx); }
  bool IsExpensive() const override { return expensive_; }

 private:
  std::function<void(OpKernelContext*)> compute_;
  bool expensive_;
};

}  // namespace

Tensor* OpKernelContext::allocate_output(int i, DataType dtype, const TensorShape& shape) {
  EdgeValue& out = outputs_[static_cast<size_t>(i)];
  out.tensor = Tensor(dtype, shape, device_->allocator());
  out.ref.reset();
  return &out.tensor;
}

KernelFactory LambdaKernel(std::function<void(OpKernelContext*)> compute, bool expensive) {
  // Kernels built from one lambda share the callable; it must not keep per-node state.
  auto shared = std::make_shared<std::function<void(OpKernelContext*)>>(std::move(compute));
  return [shared, expensive](OpKernelConstruction&) -> StatusOr<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(std::make_unique<LambdaOpKernel>(*shared, expensive));
  };
}

}  // namespace clab
