// _Send and _Recv: the two ends of an edge cut by partitioning. The rendezvous always holds
// host tensors, so a device end copies to or from the host around it.
#include "clab/graph/OpRegistry.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/Rendezvous.h"

namespace clab {
namespace {

StatusOr<std::string> KeyFromAttrs(OpKernelConstruction& ctx) {
  RendezvousKey key;
  int64_t incarnation = 0;
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("send_device", &key.send_device));
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("send_device_incarnation", &incarnation));
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("recv_device", &key.recv_device));
  CLAB_RETURN_IF_ERROR(ctx.GetAttr("tensor_name", &key.tensor_name));
  // The attr is a signed int64 on the wire; the incarnation's bits are what matter.
  key.send_incarnation = static_cast<uint64_t>(incarnation);
  return key.ToString();
}

Status MissingRendezvous(const std::string& op) {
  return errors::Internal(op, " ran without a rendezvous for the step");
}

class SendKernel : public OpKernel {
 public:
  explicit SendKernel(std::string key) : key_(std::move(key)) {}

  void Compute(OpKernelContext* ctx) override {
    Rendezvous* rendezvous = ctx->step().rendezvous;
    if (!rendezvous) return ctx->SetStatus(MissingRendezvous("_Send"));
    const Tensor& value = ctx->input(0);
    if (value.OnHost()) return ctx->SetStatus(rendezvous->Send(key_, value));
    Tensor host(value.dtype(), value.shape(), CpuAllocator());
    Status copied = ctx->device()->CopyDeviceToHost(value, &host);
    if (copied.ok()) copied = ctx->device()->Sync();
    if (!copied.ok()) return ctx->SetStatus(copied);
    ctx->SetStatus(rendezvous->Send(key_, host));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string key_;
};

class RecvKernel : public OpKernel {
 public:
  explicit RecvKernel(std::string key) : key_(std::move(key)) {}

  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::Internal("_Recv is asynchronous; the executor must call ComputeAsync"));
  }
  bool IsExpensive() const override { return false; }
  bool IsAsync() const override { return true; }

  void ComputeAsync(OpKernelContext* ctx, std::function<void()> done) override {
    Rendezvous* rendezvous = ctx->step().rendezvous;
    if (!rendezvous) {
      ctx->SetStatus(MissingRendezvous("_Recv"));
      return done();
    }
    rendezvous->RecvAsync(key_, [ctx, done = std::move(done)](const Status& status, const Tensor& value) {
      if (!status.ok()) {
        ctx->SetStatus(status);
      } else if (ctx->device()->allocator()->OnHost()) {
        ctx->set_output(0, value);
      } else {
        Tensor* on_device = ctx->allocate_output(0, value.dtype(), value.shape());
        ctx->SetStatus(ctx->device()->CopyHostToDevice(value, on_device));
      }
      done();
    });
  }

 private:
  std::string key_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeSend(OpKernelConstruction& ctx) {
  CLAB_ASSIGN_OR_RETURN(std::string key, KeyFromAttrs(ctx));
  return std::unique_ptr<OpKernel>(std::make_unique<SendKernel>(std::move(key)));
}

StatusOr<std::unique_ptr<OpKernel>> MakeRecv(OpKernelConstruction& ctx) {
  CLAB_ASSIGN_OR_RETURN(std::string key, KeyFromAttrs(ctx));
  return std::unique_ptr<OpKernel>(std::make_unique<RecvKernel>(std::move(key)));
}

}  // namespace

void RegisterSendRecvOps(OpRegistry& registry) {
  registry.Register("_Send")
      .Input("tensor: T")
      .Attr("T: type")
      .Attr("tensor_name: string")
      .Attr("send_device: string")
      .Attr("send_device_incarnation: int")
      .Attr("recv_device: string")
      .Attr("client_terminated: bool = false")
      .Stateful()
      .Kernel("CPU", MakeSend)
      .Kernel("GPU", MakeSend)
      .Summary("Hands a tensor to the step's rendezvous for the matching _Recv.")
      .Group("runtime");
  // The received type is "tensor_type", as in TensorFlow's partition graphs, so that a
  // partition a TensorFlow master registers runs here unchanged.
  registry.Register("_Recv")
      .Output("tensor: tensor_type")
      .Attr("tensor_type: type")
      .Attr("tensor_name: string")
      .Attr("send_device: string")
      .Attr("send_device_incarnation: int")
      .Attr("recv_device: string")
      .Attr("client_terminated: bool = false")
      .Stateful()
      .Kernel("CPU", MakeRecv)
      .Kernel("GPU", MakeRecv)
      .Summary("Takes the tensor a _Send left in the step's rendezvous.")
      .Group("runtime");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSendRecvOpFamily("send recv", RegisterSendRecvOps);

}  // namespace clab
