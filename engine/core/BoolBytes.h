// Bool tensors filled with bytes from outside (a TensorProto's tensor_content, a RecvTensor
// reply, a checkpoint's data file): any byte may arrive, but a C++ bool must hold 0 or 1,
// so every nonzero byte becomes 1, as TensorFlow reads them.
#pragma once

#include "clab/core/Tensor.h"

namespace clab {

inline void NormalizeBoolBytes(Tensor* tensor) {
  if (tensor->dtype() != DT_BOOL || tensor->TotalBytes() == 0) return;
  auto* bytes = static_cast<unsigned char*>(tensor->raw_data());
  for (size_t i = 0; i < tensor->TotalBytes(); ++i) bytes[i] = bytes[i] != 0 ? 1 : 0;
}

}  // namespace clab
