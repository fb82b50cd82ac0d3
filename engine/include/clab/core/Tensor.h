// A typed, shaped, reference-counted buffer. Copying a Tensor shares its buffer; DeepCopy
// makes a new one. Eigen views live in clab/core/TensorEigen.h to keep this header light.
#pragma once

#include "clab/core/Allocator.h"
#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "clab/core/TensorShape.h"
#include "tensorflow/tensor.pb.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace clab {

// Owns one allocation. For DT_STRING the elements are std::string objects built in place.
class TensorBuffer {
 public:
  TensorBuffer(Allocator* allocator, DataType dtype, int64_t num_elements, size_t bytes);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return bytes_; }
  Allocator* allocator() const { return allocator_; }

 private:
  Allocator* allocator_;
  DataType dtype_;
  int64_t num_elements_;
  size_t bytes_;
  void* data_;
};

class Tensor {
 public:
  Tensor() = default;  // dtype DT_INVALID, no buffer
  // Zero-filled (empty strings for DT_STRING) when the allocator is on the host.
  Tensor(DataType dtype, const TensorShape& shape, Allocator* allocator = CpuAllocator());

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeOf<T>::value, TensorShape{});
    *t.data<T>() = std::move(value);
    return t;
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, const TensorShape& shape) {
    Tensor t(DataTypeOf<T>::value, shape);
    for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.NumElements()); ++i) t.data<T>()[i] = values[i];
    return t;
  }
  template <typename T>
  static Tensor Vector(const std::vector<T>& values) {
    return FromVector(values, TensorShape{static_cast<int64_t>(values.size())});
  }
  // A row-major matrix from nested rows; all rows must have the same length.
  template <typename T>
  static Tensor Matrix(const std::vector<std::vector<T>>& rows) {
    const int64_t cols = rows.empty() ? 0 : static_cast<int64_t>(rows[0].size());
    Tensor t(DataTypeOf<T>::value, TensorShape{static_cast<int64_t>(rows.size()), cols});
    T* out = t.data<T>();
    for (const auto& row : rows)
      for (int64_t c = 0; c < cols; ++c) *out++ = row[static_cast<size_t>(c)];
    return t;
  }

  // Parses a TensorProto (tensor_content or the typed repeated fields; a single value fills
  // the whole shape, as TensorFlow does). Errors name the dtype and the sizes that disagree.
  static StatusOr<Tensor> FromProto(const tensorflow::TensorProto& proto);
  // Writes tensor_content (compact, for any size) or, with `use_typed_fields`, float_val etc.
  void AsProto(tensorflow::TensorProto* proto, bool use_typed_fields = false) const;

  bool IsInitialized() const { return dtype_ != DT_INVALID; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int64_t NumElements() const { return shape_.num_elements(); }
  size_t TotalBytes() const { return buffer_ ? buffer_->size() : 0; }
  bool OnHost() const { return !buffer_ || buffer_->allocator()->OnHost(); }
  Allocator* allocator() const { return buffer_ ? buffer_->allocator() : nullptr; }

  void* raw_data() { return buffer_ ? buffer_->data() : nullptr; }
  const void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  T* data() {
    return static_cast<T*>(raw_data());
  }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  T& scalar() {
    return *data<T>();
  }
  template <typename T>
  const T& scalar() const {
    return *data<T>();
  }

  // A tensor sharing this buffer with a new shape of the same element count.
  StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A copy with its own buffer. Host tensors only: a device tensor gives an uninitialised
  // Tensor (devices copy their memory with Device::CopyDeviceToHost).
  Tensor DeepCopy() const;
  bool SharesBufferWith(const Tensor& other) const { return buffer_ != nullptr && buffer_ == other.buffer_; }
  // Number of Tensors sharing the buffer (0 without one): lets a writer update in place
  // when it holds the only reference.
  long BufferUseCount() const { return buffer_.use_count(); }

  // numpy-style text: "[[20]]", "[1.5 2]", "b'abc'"; at most `max_entries` values, then "...".
  std::string DebugString(int max_entries = 64) const;
  // "Tensor<type: float shape: [2,3] values: [[1 2 3]...]>"
  std::string SummarizeValue(int max_entries = 10) const;

  // Same dtype, shape and bytes (strings compared by value).
  bool Equals(const Tensor& other) const;

 private:
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buffer_;
};

}  // namespace clab
