#include "clab/core/TensorSize.h"
#include "clab/core/VariantValue.h"

#include <absl/strings/str_join.h>

#include <atomic>
#include <limits>
#include <string>

#include <unistd.h>

namespace clab {
namespace {

std::atomic<uint64_t> max_tensor_bytes{0};  // 0: the default

std::string ShapeText(const std::vector<int64_t>& dims) { return StrCat("[", absl::StrJoin(dims, ","), "]"); }

size_t ElementBytes(DataType dtype) {
  const DataType base = BaseType(dtype);
  if (base == tensorflow::DT_VARIANT) return sizeof(Variant);
  return base == DT_STRING || base == tensorflow::DT_RESOURCE ? sizeof(std::string) : DataTypeSize(base);
}

}  // namespace

StatusOr<int64_t> TensorSize::NumElements(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return errors::InvalidArgument("Dimension ", i, " of shape ", ShapeText(dims), " is negative");
    if (__builtin_mul_overflow(count, dims[i], &count))
      return errors::InvalidArgument("Shape ", ShapeText(dims), " has too many elements (more than ",
                                     std::numeric_limits<int64_t>::max(), ")");
  }
  return count;
}

StatusOr<TensorSize> TensorSize::Of(DataType dtype, const std::vector<int64_t>& dims) {
  TensorSize size;
  CLAB_ASSIGN_OR_RETURN(size.elements, NumElements(dims));
  int64_t bytes = 0;
  if (__builtin_mul_overflow(size.elements, static_cast<int64_t>(ElementBytes(dtype)), &bytes))
    return errors::InvalidArgument("A ", DataTypeName(dtype), " tensor of shape ", ShapeText(dims), " (", size.elements,
                                   " elements) would need more than ", std::numeric_limits<int64_t>::max(), " bytes");
  size.bytes = static_cast<uint64_t>(bytes);
  return size;
}

StatusOr<TensorSize> TensorSize::ForAllocation(DataType dtype, const std::vector<int64_t>& dims) {
  CLAB_ASSIGN_OR_RETURN(TensorSize size, Of(dtype, dims));
  const uint64_t limit = MaxTensorBytes();
  if (size.bytes > limit)
    return errors::ResourceExhausted("A ", DataTypeName(dtype), " tensor of shape ", ShapeText(dims), " needs ",
                                     size.bytes, " bytes, more than this task's limit of ", limit,
                                     " bytes per tensor (--max_tensor_bytes)");
  return size;
}

uint64_t TensorSize::DefaultMaxTensorBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{4} << 30;
  return static_cast<uint64_t>(pages) / 2 * static_cast<uint64_t>(page_size);
}

uint64_t TensorSize::MaxTensorBytes() {
  const uint64_t set = max_tensor_bytes.load(std::memory_order_relaxed);
  if (set != 0) return set;
  static const uint64_t fallback = DefaultMaxTensorBytes();
  return fallback;
}

void TensorSize::SetMaxTensorBytes(uint64_t bytes) { max_tensor_bytes.store(bytes, std::memory_order_relaxed); }

}  // namespace clab
