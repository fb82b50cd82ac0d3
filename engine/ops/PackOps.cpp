// _PackTensors and _UnpackTensors: several tensors (any numeric types and shapes) travel
// between two tasks as one byte tensor, so a step sends one message per pair of tasks
// instead of one per tensor (compile/PackTransfers.cpp inserts them). The layout: a u64
// count, then per tensor a u64 dtype, a u64 rank, rank i64 dims and a u64 byte count,
// followed by the bytes padded to 8.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <cstring>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

size_t Padded(size_t bytes) { return (bytes + 7) / 8 * 8; }

void PackKernel(OpKernelContext* ctx) {
  size_t total = 8;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& t = ctx->input(i);
    if (t.dtype() == DT_STRING) return FailInvalidArgument(ctx, "_PackTensors cannot pack strings (input ", i, ")");
    total += 8 * (3 + t.shape().dims().size()) + Padded(t.TotalBytes());
  }
  Tensor* packed = ctx->allocate_output(0, DT_UINT8, TensorShape({static_cast<int64_t>(total)}));
  if (packed == nullptr) return;
  char* out = static_cast<char*>(packed->raw_data());
  std::memset(out, 0, total);
  auto put = [&out](uint64_t value) {
    std::memcpy(out, &value, 8);
    out += 8;
  };
  put(static_cast<uint64_t>(ctx->num_inputs()));
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    const Tensor& t = ctx->input(i);
    put(static_cast<uint64_t>(t.dtype()));
    put(t.shape().dims().size());
    for (int64_t d : t.shape().dims()) put(static_cast<uint64_t>(d));
    put(t.TotalBytes());
    if (t.TotalBytes() > 0) std::memcpy(out, t.raw_data(), t.TotalBytes());
    out += Padded(t.TotalBytes());
  }
}

void UnpackKernel(OpKernelContext* ctx) {
  const Tensor& packed = ctx->input(0);
  const char* in = static_cast<const char*>(packed.raw_data());
  const char* end = in + packed.TotalBytes();
  bool truncated = false;
  auto get = [&]() -> uint64_t {
    uint64_t value = 0;
    if (end - in < 8) {
      truncated = true;
      return 0;
    }
    std::memcpy(&value, in, 8);
    in += 8;
    return value;
  };
  const uint64_t count = get();
  if (truncated || count != static_cast<uint64_t>(ctx->num_outputs()))
    return FailInvalidArgument(ctx, "_UnpackTensors expects ", ctx->num_outputs(), " tensors, the message holds ",
                               count);
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    const auto dtype = static_cast<DataType>(get());
    const uint64_t rank = get();
    std::vector<int64_t> dims;
    for (uint64_t d = 0; d < rank && !truncated; ++d) dims.push_back(static_cast<int64_t>(get()));
    const uint64_t bytes = get();
    if (truncated || static_cast<uint64_t>(end - in) < bytes)
      return FailInvalidArgument(ctx, "_UnpackTensors: the message is truncated at tensor ", i);
    Tensor* out = ctx->allocate_output(i, dtype, TensorShape(dims));
    if (out == nullptr) return;
    if (out->TotalBytes() != bytes)
      return FailInvalidArgument(ctx, "_UnpackTensors: tensor ", i, " declares ", bytes, " bytes for ",
                                 TensorShape(dims).DebugString(), " ", DataTypeName(dtype));
    if (bytes > 0) std::memcpy(out->raw_data(), in, bytes);
    in += Padded(bytes);
  }
}

}  // namespace

void RegisterPackOps(OpRegistry& registry) {
  registry.Register("_PackTensors")
      .Input("values: T")
      .Output("packed: uint8")
      .Attr("T: list(type) >= 1")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape(std::vector<int64_t>{-1}));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(PackKernel, /*expensive=*/false))
      .Summary("Packs tensors into one byte tensor, to travel between tasks as one message.")
      .Group("internal");
  registry.Register("_UnpackTensors")
      .Input("packed: uint8")
      .Output("values: out_types")
      .Attr("out_types: list(type) >= 1")
      .Kernel("CPU", LambdaKernel(UnpackKernel, /*expensive=*/false))
      .Summary("The tensors that _PackTensors packed, with their types and shapes.")
      .Group("internal");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kPackOpFamily("pack", RegisterPackOps);

}  // namespace clab
