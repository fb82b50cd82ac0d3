// What a DT_VARIANT tensor holds: each element is a shared, immutable object of some kind
// (a tf.data dataset, for now). Copying the tensor shares the objects; the last tensor that
// refers to one frees it. Variant tensors live on the host and never cross a process: they
// have no TensorProto form.
#pragma once

#include <memory>
#include <string>

namespace clab {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  // What the object is, for messages and DebugString ("TensorSliceDataset").
  virtual std::string TypeName() const = 0;
};

using Variant = std::shared_ptr<const VariantValue>;

}  // namespace clab
