#include "clab/core/Tensor.h"
#include "core/BoolBytes.h"

#include "clab/core/MemoryBudget.h"
#include "clab/core/TensorAllocation.h"
#include "clab/core/TensorSize.h"
#include "clab/core/VariantValue.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace clab {
namespace {

// Elements that are std::string objects: strings, and resource handles (a variable's or a
// queue's [container, name]).
bool HoldsStrings(DataType dtype) { return dtype == DT_STRING || dtype == tensorflow::DT_RESOURCE; }
// Elements that are Variant objects (shared pointers to datasets and the like).
bool HoldsVariants(DataType dtype) { return dtype == tensorflow::DT_VARIANT; }

}  // namespace

TensorBuffer::TensorBuffer(Allocator* allocator, DataType dtype, int64_t num_elements, size_t bytes)
    : allocator_(allocator), dtype_(dtype), num_elements_(num_elements), bytes_(bytes) {
  data_ = allocator_->Allocate(bytes_);
  if (data_ == nullptr) throw std::bad_alloc();
  if (HoldsStrings(dtype_)) {
    auto* strings = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) new (strings + i) std::string();
  } else if (HoldsVariants(dtype_)) {
    auto* variants = static_cast<Variant*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) new (variants + i) Variant();
  } else if (allocator_->OnHost()) {
    std::memset(data_, 0, bytes_);
  }
}

TensorBuffer::~TensorBuffer() {
  if (HoldsStrings(dtype_)) {
    auto* strings = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) strings[i].~basic_string();
  } else if (HoldsVariants(dtype_)) {
    auto* variants = static_cast<Variant*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) variants[i].~Variant();
  }
  allocator_->Deallocate(data_, bytes_);
}

Tensor::Tensor(DataType dtype, const TensorShape& shape, Allocator* allocator)
    : dtype_(BaseType(dtype)), shape_(shape) {
  StatusOr<TensorSize> size = TensorSize::ForAllocation(dtype_, shape.dims());
  if (!size.ok()) throw TensorAllocationError(size.status());
  try {
    buffer_ = std::make_shared<TensorBuffer>(allocator, dtype_, size->elements, static_cast<size_t>(size->bytes));
  } catch (const std::bad_alloc&) {
    const uint64_t limit = MemoryBudget::Limit();
    const uint64_t in_use = MemoryBudget::InUse();
    const bool over_budget = allocator->OnHost() && (size->bytes > limit || in_use > limit - size->bytes);
    if (over_budget)
      throw TensorAllocationError(
          errors::ResourceExhausted("Cannot allocate ", size->bytes, " bytes for a ", DataTypeName(dtype_),
                                    " tensor of shape ", shape.DebugString(), ": this task's tensors hold ", in_use,
                                    " bytes of its limit of ", limit, " bytes (--max_memory_bytes)"));
    throw TensorAllocationError(errors::ResourceExhausted("Cannot allocate ", size->bytes, " bytes for a ",
                                                          DataTypeName(dtype_), " tensor of shape ",
                                                          shape.DebugString(), " on ", allocator->Name()));
  }
}

StatusOr<Tensor> AllocateTensor(DataType dtype, const TensorShape& shape, Allocator* allocator) {
  try {
    return Tensor(dtype, shape, allocator);
  } catch (const TensorAllocationError& e) {
    return e.status();
  }
}

namespace {

template <typename T, typename Repeated>
Status FillFromRepeated(const Repeated& values, const tensorflow::TensorProto& proto, Tensor* t) {
  const int64_t n = t->NumElements();
  const int64_t given = values.size();
  if (given == 0) return OkStatus();  // all zeros
  if (given > n)
    return errors::InvalidArgument("TensorProto of dtype ", DataTypeName(proto.dtype()), " and shape ",
                                   t->shape().DebugString(), " has ", given, " values, more than its ", n, " elements");
  T* out = t->data<T>();
  int64_t i = 0;
  for (; i < given; ++i) out[i] = static_cast<T>(values.Get(static_cast<int>(i)));
  // TensorFlow repeats the last value to fill the shape ("a single value fills the whole shape").
  for (; i < n; ++i) out[i] = out[given - 1];
  return OkStatus();
}

// How many values the typed fields of `proto` carry for its dtype.
int64_t TypedValueCount(const tensorflow::TensorProto& proto) {
  switch (proto.dtype()) {
    case tensorflow::DT_FLOAT: return proto.float_val_size();
    case tensorflow::DT_DOUBLE: return proto.double_val_size();
    case tensorflow::DT_INT32:
    case tensorflow::DT_UINT8: return proto.int_val_size();
    case tensorflow::DT_INT64: return proto.int64_val_size();
    case tensorflow::DT_BOOL: return proto.bool_val_size();
    case tensorflow::DT_STRING:
    case tensorflow::DT_RESOURCE: return proto.string_val_size();
    default: return 0;
  }
}

}  // namespace

StatusOr<Tensor> Tensor::FromProto(const tensorflow::TensorProto& proto) {
  const DataType dtype = proto.dtype();
  if (dtype == tensorflow::DT_VARIANT)
    return errors::InvalidArgument(
        "A variant tensor (a tf.data dataset) exists only in the process that made it and cannot be sent or read "
        "from a TensorProto: place a pipeline's dataset and iterator ops on one task");
  if (!IsSupportedDataType(dtype) || IsRefType(dtype))
    return errors::InvalidArgument("Tensors of dtype ", DataTypeName(dtype), " are not supported");
  CLAB_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  // The size is checked against the content before any memory is reserved for it.
  CLAB_ASSIGN_OR_RETURN(TensorSize size, TensorSize::Of(dtype, shape.dims()));
  if (!proto.tensor_content().empty()) {
    if (HoldsStrings(dtype)) return errors::InvalidArgument("A string TensorProto cannot use tensor_content");
    if (proto.tensor_content().size() != size.bytes)
      return errors::InvalidArgument("TensorProto of dtype ", DataTypeName(dtype), " and shape ", shape.DebugString(),
                                     " needs ", size.bytes, " bytes of tensor_content, got ",
                                     proto.tensor_content().size());
    CLAB_ASSIGN_OR_RETURN(Tensor t, AllocateTensor(dtype, shape));
    std::memcpy(t.raw_data(), proto.tensor_content().data(), size.bytes);
    NormalizeBoolBytes(&t);
    return t;
  }
  const int64_t n = size.elements;
  const int64_t given = TypedValueCount(proto);
  if (given > n)
    return errors::InvalidArgument("TensorProto of dtype ", DataTypeName(dtype), " and shape ", shape.DebugString(),
                                   " has ", given, " values, more than its ", n, " elements");
  CLAB_ASSIGN_OR_RETURN(Tensor t, AllocateTensor(dtype, shape));
  Status status;
  switch (dtype) {
    case tensorflow::DT_FLOAT: status = FillFromRepeated<float>(proto.float_val(), proto, &t); break;
    case tensorflow::DT_DOUBLE: status = FillFromRepeated<double>(proto.double_val(), proto, &t); break;
    case tensorflow::DT_INT32: status = FillFromRepeated<int32_t>(proto.int_val(), proto, &t); break;
    case tensorflow::DT_UINT8: status = FillFromRepeated<uint8_t>(proto.int_val(), proto, &t); break;
    case tensorflow::DT_INT64: status = FillFromRepeated<int64_t>(proto.int64_val(), proto, &t); break;
    case tensorflow::DT_BOOL: status = FillFromRepeated<bool>(proto.bool_val(), proto, &t); break;
    case tensorflow::DT_STRING:
    case tensorflow::DT_RESOURCE: {
      auto* out = t.data<std::string>();
      for (int64_t i = 0; i < n && given > 0; ++i) out[i] = proto.string_val(static_cast<int>(std::min(i, given - 1)));
      break;
    }
    default: return errors::InvalidArgument("Tensors of dtype ", DataTypeName(dtype), " are not supported");
  }
  CLAB_RETURN_IF_ERROR(status);
  return t;
}

void Tensor::AsProto(tensorflow::TensorProto* proto, bool use_typed_fields) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (!IsInitialized()) return;
  const int64_t n = NumElements();
  if (HoldsStrings(dtype_)) {
    for (int64_t i = 0; i < n; ++i) proto->add_string_val(data<std::string>()[i]);
    return;
  }
  // Variant objects exist only in this process: their proto says dtype and shape alone.
  if (HoldsVariants(dtype_)) return;
  if (!use_typed_fields) {
    proto->set_tensor_content(static_cast<const char*>(raw_data()), TotalBytes());
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype_) {
      case tensorflow::DT_FLOAT: proto->add_float_val(data<float>()[i]); break;
      case tensorflow::DT_DOUBLE: proto->add_double_val(data<double>()[i]); break;
      case tensorflow::DT_INT32: proto->add_int_val(data<int32_t>()[i]); break;
      case tensorflow::DT_UINT8: proto->add_int_val(data<uint8_t>()[i]); break;
      case tensorflow::DT_INT64: proto->add_int64_val(data<int64_t>()[i]); break;
      case tensorflow::DT_BOOL: proto->add_bool_val(data<bool>()[i]); break;
      default: break;
    }
  }
}

StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements())
    return errors::InvalidArgument("Cannot reshape a tensor with ", NumElements(), " elements to shape ",
                                   shape.DebugString(), " (", shape.num_elements(), " elements)");
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::DeepCopy() const {
  if (!IsInitialized()) return Tensor();
  Tensor t(dtype_, shape_, buffer_->allocator());
  if (HoldsStrings(dtype_)) {
    for (int64_t i = 0; i < NumElements(); ++i) t.data<std::string>()[i] = data<std::string>()[i];
  } else if (HoldsVariants(dtype_)) {
    // The objects are immutable: the copy shares them.
    for (int64_t i = 0; i < NumElements(); ++i) t.data<Variant>()[i] = data<Variant>()[i];
  } else if (OnHost()) {
    std::memcpy(t.raw_data(), raw_data(), TotalBytes());
  } else {
    // Device memory can only be copied by its device (Device::CopyDeviceToHost).
    return Tensor();
  }
  return t;
}

namespace {

template <typename T>
std::string FormatValue(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (std::is_same_v<T, std::string>) {
    std::string out = "b'";
    for (unsigned char c : v) {
      if (c == '\'' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c >= 32 && c < 127) {
        out += static_cast<char>(c);
      } else {
        static const char* hex = "0123456789abcdef";
        out += "\\x";
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out + "'";
  } else if constexpr (std::is_same_v<T, Variant>) {
    return v ? "<" + v->TypeName() + ">" : std::string("<empty variant>");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    std::string s(buf, end);
    // numpy writes integral floats as "20." rather than "20".
    if (s.find_first_of(".e") == std::string::npos) s += ".";
    return s;
  } else {
    return std::to_string(static_cast<int64_t>(v));
  }
}

template <typename T>
void FormatLevel(const T* values, const std::vector<int64_t>& dims, size_t depth, int64_t* offset, int64_t* printed,
                 int max_entries, std::string* out, int64_t* budget) {
  // Every level visited costs one: shapes whose rows hold no entries (a dimension of 0 at
  // the end) would otherwise be walked row by row, exponentially in the rank.
  if (--*budget < 0) {
    if (*budget == -1) out->append("...");
    return;
  }
  if (depth == dims.size()) {
    if (*printed < max_entries) out->append(FormatValue(values[*offset]));
    ++*offset;
    ++*printed;
    return;
  }
  out->push_back('[');
  // Saturating: a tensor with a 0 dimension has no entries, but the product of its other
  // dimensions can still exceed int64 (the offset is never used to read such a tensor).
  int64_t stride = 1;
  for (size_t d = depth + 1; d < dims.size(); ++d) {
    if (__builtin_mul_overflow(stride, dims[d], &stride)) stride = std::numeric_limits<int64_t>::max();
  }
  for (int64_t i = 0; i < dims[depth]; ++i) {
    // Rows are counted too: a shape like [1e15, 0] has no entries but would still loop over
    // every row.
    if (*printed >= max_entries || i >= max_entries) {
      out->append("...");
      int64_t skipped = 0;
      if (__builtin_mul_overflow(dims[depth] - i, stride, &skipped) ||
          __builtin_add_overflow(*offset, skipped, offset)) {
        *offset = std::numeric_limits<int64_t>::max();
      }
      break;
    }
    if (i > 0) {
      if (depth + 1 == dims.size()) {
        out->push_back(' ');
      } else {
        out->append(dims.size() - depth > 2 ? "\n\n" : "\n");
        out->append(depth + 1, ' ');
      }
    }
    FormatLevel(values, dims, depth + 1, offset, printed, max_entries, out, budget);
  }
  out->push_back(']');
}

}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  if (!IsInitialized()) return "<uninitialized tensor>";
  if (!OnHost()) return StrCat("<", DataTypeName(dtype_), " ", shape_.DebugString(), " on device>");
  std::string out;
  int64_t offset = 0, printed = 0;
  int64_t budget = 8 * static_cast<int64_t>(std::max(max_entries, 0)) + 64;
  if (HoldsStrings(dtype_)) {
    FormatLevel(data<std::string>(), shape_.dims(), 0, &offset, &printed, max_entries, &out, &budget);
    return out;
  }
  if (HoldsVariants(dtype_)) {
    FormatLevel(data<Variant>(), shape_.dims(), 0, &offset, &printed, max_entries, &out, &budget);
    return out;
  }
  CLAB_SWITCH_POD_TYPES(dtype_, T,
                        FormatLevel(data<T>(), shape_.dims(), 0, &offset, &printed, max_entries, &out, &budget),
                        return StrCat("<", DataTypeName(dtype_), " ", shape_.DebugString(), ">"));
  return out;
}

std::string Tensor::SummarizeValue(int max_entries) const {
  return StrCat("Tensor<type: ", DataTypeName(dtype_), " shape: ", shape_.DebugString(),
                " values: ", DebugString(max_entries), ">");
}

bool Tensor::Equals(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (!IsInitialized()) return true;
  if (HoldsStrings(dtype_)) {
    for (int64_t i = 0; i < NumElements(); ++i)
      if (data<std::string>()[i] != other.data<std::string>()[i]) return false;
    return true;
  }
  if (HoldsVariants(dtype_)) {
    for (int64_t i = 0; i < NumElements(); ++i)
      if (data<Variant>()[i] != other.data<Variant>()[i]) return false;
    return true;
  }
  return std::memcmp(raw_data(), other.raw_data(), TotalBytes()) == 0;
}

}  // namespace clab
