// A TensorProto from outside (a feed in a RunStep or RunGraph request, a Const node's
// value, a checkpoint's entry): decoded into a Tensor, which must encode back to a proto
// that decodes to the same tensor.
#include "clab/core/Tensor.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tensorflow::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  auto tensor = clab::Tensor::FromProto(proto);
  if (!tensor.ok()) return 0;
  for (bool typed : {false, true}) {
    tensorflow::TensorProto again;
    tensor->AsProto(&again, typed);
    auto back = clab::Tensor::FromProto(again);
    if (!back.ok() || back->dtype() != tensor->dtype() || back->shape() != tensor->shape()) std::abort();
    if (back->DebugString() != tensor->DebugString()) std::abort();
  }
  return 0;
}
