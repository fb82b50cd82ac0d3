// Reshape and Transpose: ops that rearrange a tensor's elements or only its shape; Shape,
// which gives a tensor's shape as a vector (for gradients whose sizes are known only when
// the step runs).
#include "clab/core/TensorEigen.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <absl/strings/str_join.h>

#include <limits>
#include <numeric>

namespace clab::array_internal {
namespace {

std::string DimsText(const std::vector<int64_t>& dims) { return clab::StrCat("[", absl::StrJoin(dims, ","), "]"); }

// ---- Reshape -------------------------------------------------------------------------------

Status ReshapeShape(ShapeContext& c) {
  const PartialShape& input = c.input_shape(0);
  const PartialShape& sizes_shape = c.input_shape(1);
  if (sizes_shape.known_rank() && sizes_shape.rank() > 1)
    return c.MakeError(clab::StrCat("Shape must be at most rank 1 but is rank ", sizes_shape.rank()));

  const Tensor* sizes_tensor = c.input_constant(1);
  if (sizes_tensor == nullptr) {
    const bool count_known = sizes_shape.known_rank() && (sizes_shape.rank() == 0 || sizes_shape.dim(0) >= 0);
    c.set_output(0, !count_known              ? PartialShape::Unknown()
                    : sizes_shape.rank() == 0 ? PartialShape()
                                              : PartialShape::UnknownOfRank(static_cast<int>(sizes_shape.dim(0))));
    return OkStatus();
  }
  CLAB_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndexVector(*sizes_tensor));
  int unknown_index = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (unknown_index >= 0)
        return c.MakeError(clab::StrCat("Cannot infer multiple unknown dimensions in shape ", DimsText(sizes)));
      unknown_index = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return c.MakeError(clab::StrCat("Size ", i, " must be non-negative, not ", sizes[i]));
    } else if (__builtin_mul_overflow(known_product, sizes[i], &known_product)) {
      return c.MakeError(clab::StrCat("Shape ", DimsText(sizes), " has too many elements"));
    }
  }
  const int64_t num_elements = input.num_elements();  // -1 unless fully defined
  if (num_elements >= 0) {
    if (unknown_index < 0 && known_product != num_elements)
      return c.MakeError(clab::StrCat("Cannot reshape a tensor with ", num_elements, " elements to shape ",
                                      DimsText(sizes), " (", known_product, " elements)"));
    if (unknown_index >= 0 && known_product > 0) {
      if (num_elements % known_product != 0)
        return c.MakeError(clab::StrCat("Cannot reshape a tensor with ", num_elements, " elements to shape ",
                                        DimsText(sizes), ": ", num_elements, " is not a multiple of ", known_product));
      sizes[static_cast<size_t>(unknown_index)] = num_elements / known_product;
    }
  }
  c.set_output(0, PartialShape(std::move(sizes)));  // a -1 left here means unknown
  return OkStatus();
}

void ReshapeCompute(OpKernelContext* ctx) {
  Tensor input, sizes_tensor;
  if (!ReadInput(ctx, 0, &input) || !ReadInput(ctx, 1, &sizes_tensor)) return;
  if (sizes_tensor.shape().rank() > 1)
    return FailInvalidArgument(ctx, "sizes input must be 1-D, not ", sizes_tensor.shape().DebugString());
  auto read = ReadIndexVector(sizes_tensor);
  if (!read.ok()) return FailInvalidArgument(ctx, "shape: ", read.status().message());
  std::vector<int64_t> sizes = std::move(read).value();

  int unknown_index = -1;
  int64_t product = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (unknown_index >= 0)
        return FailInvalidArgument(ctx, "Only one input size may be -1, not both ", unknown_index, " and ", i);
      unknown_index = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return FailInvalidArgument(ctx, "Size ", i, " must be non-negative, not ", sizes[i]);
    } else if (__builtin_mul_overflow(product, sizes[i], &product)) {
      return FailInvalidArgument(ctx, "Requested shape ", DimsText(sizes), " has too many elements");
    }
  }
  const int64_t n = input.NumElements();
  if (unknown_index >= 0) {
    if (product == 0)
      return FailInvalidArgument(ctx, "Reshape cannot infer the missing input size for an empty tensor ",
                                 "unless all specified input sizes are non-zero");
    if (n % product != 0)
      return FailInvalidArgument(ctx, "Input to reshape is a tensor with ", n,
                                 " values, but the requested shape requires a multiple of ", product);
    sizes[static_cast<size_t>(unknown_index)] = n / product;
  } else if (product != n) {
    return FailInvalidArgument(ctx, "Input to reshape is a tensor with ", n, " values, but the requested shape has ",
                               product, " (", input.shape().DebugString(), " to ", DimsText(sizes), ")");
  }
  auto reshaped = input.Reshaped(TensorShape(std::move(sizes)));
  if (!reshaped.ok()) return FailInvalidArgument(ctx, reshaped.status().message());
  ctx->set_output(0, std::move(reshaped).value());  // shares the input's buffer
}

// ---- Shape ---------------------------------------------------------------------------------

Status ShapeShape(ShapeContext& c) {
  const PartialShape& input = c.input_shape(0);
  c.set_output(0, PartialShape({input.known_rank() ? static_cast<int64_t>(input.rank()) : -1}));
  return OkStatus();
}

void ShapeCompute(OpKernelContext* ctx) {
  Tensor input;
  if (!ReadInput(ctx, 0, &input)) return;
  DataType out_type = DT_INT32;
  if (Status s = GetNodeAttr(ctx->node(), "out_type", &out_type); !s.ok()) return FailInvalidArgument(ctx, s.message());
  const int rank = input.shape().rank();
  Tensor* out = ctx->allocate_output(0, out_type, TensorShape({rank}));
  if (out == nullptr) return;
  for (int d = 0; d < rank; ++d) {
    const int64_t size = input.shape().dim(d);
    if (out_type == DT_INT64) {
      out->data<int64_t>()[d] = size;
    } else if (size > std::numeric_limits<int32_t>::max()) {
      return FailInvalidArgument(ctx, "Shape output type is 32-bit but dim ", d, " is ", size);
    } else {
      out->data<int32_t>()[d] = static_cast<int32_t>(size);
    }
  }
}

// ---- Transpose -----------------------------------------------------------------------------

// Checks that `perm` reorders 0..rank-1; the message says what is wrong with it.
Status CheckPermutation(const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int>(perm.size()) != rank)
    return errors::InvalidArgument("transpose expects a vector of size ", rank, ". But input(1) is a vector of size ",
                                   perm.size());
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= rank)
      return errors::InvalidArgument("perm[", i, "] = ", perm[i], " is out of range for a tensor of rank ", rank);
    if (seen[static_cast<size_t>(perm[i])])
      return errors::InvalidArgument(perm[i], " is repeated in perm ", DimsText(perm),
                                     ", which must be a permutation of 0..", rank - 1);
    seen[static_cast<size_t>(perm[i])] = true;
  }
  return OkStatus();
}

Status TransposeShape(ShapeContext& c) {
  const PartialShape& input = c.input_shape(0);
  const PartialShape& perm_shape = c.input_shape(1);
  if (perm_shape.known_rank() && perm_shape.rank() != 1)
    return c.MakeError(clab::StrCat("Shape must be rank 1 but is rank ", perm_shape.rank()));
  const Tensor* perm_tensor = c.input_constant(1);
  if (perm_tensor == nullptr || !input.known_rank()) {
    int rank = input.rank();
    if (rank < 0 && perm_shape.known_rank() && perm_shape.dim(0) >= 0) rank = static_cast<int>(perm_shape.dim(0));
    c.set_output(0, rank < 0 ? PartialShape::Unknown() : PartialShape::UnknownOfRank(rank));
    return OkStatus();
  }
  CLAB_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ReadIndexVector(*perm_tensor));
  Status valid = CheckPermutation(perm, input.rank());
  if (!valid.ok()) return c.MakeError(std::string(valid.message()));
  std::vector<int64_t> dims(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) dims[i] = input.dim(static_cast<int>(perm[i]));
  c.set_output(0, PartialShape(std::move(dims)));
  return OkStatus();
}

// out[i0..in] = in[index permuted back]: walks the output in order while stepping an input
// offset with per-dimension strides, so any rank and element type works.
template <typename T>
void TransposeElements(const Tensor& in, const std::vector<int64_t>& perm, Tensor* out) {
  const int rank = in.shape().rank();
  if (rank == 2 && !std::is_same_v<T, std::string>) {
    if constexpr (!std::is_same_v<T, std::string>) AsMatrix<T>(*out) = AsMatrix<T>(in).transpose();
    return;
  }
  std::vector<int64_t> in_strides(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * in.shape().dim(d + 1);
  std::vector<int64_t> out_dims(static_cast<size_t>(rank)), step(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    out_dims[d] = in.shape().dim(static_cast<int>(perm[d]));
    step[d] = in_strides[static_cast<size_t>(perm[d])];
  }
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  const T* src = in.data<T>();
  T* dst = out->data<T>();
  const int64_t n = in.NumElements();
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    dst[k] = src[offset];
    for (int d = rank - 1; d >= 0; --d) {  // odometer increment
      offset += step[d];
      if (++index[d] < out_dims[d]) break;
      offset -= step[d] * out_dims[d];
      index[d] = 0;
    }
  }
}

void TransposeCompute(OpKernelContext* ctx) {
  Tensor input, perm_tensor;
  if (!ReadInput(ctx, 0, &input) || !ReadInput(ctx, 1, &perm_tensor)) return;
  if (perm_tensor.shape().rank() != 1)
    return FailInvalidArgument(ctx, "perm must be a vector, not ", perm_tensor.shape().DebugString());
  auto read = ReadIndexVector(perm_tensor);
  if (!read.ok()) return FailInvalidArgument(ctx, "perm: ", read.status().message());
  const std::vector<int64_t> perm = std::move(read).value();
  Status valid = CheckPermutation(perm, input.shape().rank());
  if (!valid.ok()) return FailInvalidArgument(ctx, valid.message());

  std::vector<int64_t> out_dims(perm.size());
  bool moves_data = false;
  int64_t last_moved = -1;
  for (size_t i = 0; i < perm.size(); ++i) {
    out_dims[i] = input.shape().dim(static_cast<int>(perm[i]));
    // Dimensions of size 1 can move freely; only the order of the others matters.
    if (out_dims[i] == 1) continue;
    if (perm[i] < last_moved) moves_data = true;
    last_moved = perm[i];
  }
  if (!moves_data) {
    auto reshaped = input.Reshaped(TensorShape(out_dims));
    if (!reshaped.ok()) return FailInvalidArgument(ctx, reshaped.status().message());
    return ctx->set_output(0, std::move(reshaped).value());
  }
  Tensor* out = ctx->allocate_output(0, input.dtype(), TensorShape(out_dims));
  if (input.dtype() == DT_STRING) return TransposeElements<std::string>(input, perm, out);
  CLAB_SWITCH_POD_TYPES(input.dtype(), T, TransposeElements<T>(input, perm, out),
                        FailInvalidArgument(ctx, "Transpose does not support ", DataTypeName(input.dtype())));
}

}  // namespace

void RegisterArrayShapeOps(OpRegistry& registry) {
  registry.Register("Reshape")
      .Input("tensor: T")
      .Input("shape: Tshape")
      .Output("output: T")
      .Attr("T: type")
      .Attr("Tshape: {int32, int64} = DT_INT32")
      .SetShapeFn(ReshapeShape)
      .Kernel("CPU", LambdaKernel(ReshapeCompute, /*expensive=*/false))
      .Summary("The same elements with a new shape; one size may be -1 (inferred)")
      .Group("array");

  registry.Register("Shape")
      .Input("input: T")
      .Output("output: out_type")
      .Attr("T: type")
      .Attr("out_type: {int32, int64} = DT_INT32")
      .SetShapeFn(ShapeShape)
      .Kernel("CPU", LambdaKernel(ShapeCompute, /*expensive=*/false))
      .Summary("The shape of a tensor, as a vector")
      .Group("array");

  registry.Register("Transpose")
      .Input("x: T")
      .Input("perm: Tperm")
      .Output("y: T")
      .Attr("T: type")
      .Attr("Tperm: {int32, int64} = DT_INT32")
      .SetShapeFn(TransposeShape)
      .Kernel("CPU", LambdaKernel(TransposeCompute))
      .Summary("Permutes the dimensions: output dimension i is input dimension perm[i]")
      .Group("array");
}

}  // namespace clab::array_internal
