#include "clab/core/TensorShape.h"

#include "clab/core/TensorSize.h"

#include <absl/strings/str_join.h>

#include <limits>

namespace clab {

StatusOr<TensorShape> TensorShape::FromDims(std::vector<int64_t> dims) {
  CLAB_RETURN_IF_ERROR(TensorSize::NumElements(dims).status());
  return TensorShape(std::move(dims));
}

StatusOr<TensorShape> TensorShape::FromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return errors::InvalidArgument("Expected a fully defined shape, got <unknown>");
  std::vector<int64_t> dims;
  dims.reserve(static_cast<size_t>(proto.dim_size()));
  for (const auto& d : proto.dim()) {
    if (d.size() < 0) {
      return errors::InvalidArgument("Expected a fully defined shape, got ",
                                     PartialShape::FromProto(proto).DebugString());
    }
    dims.push_back(d.size());
  }
  return FromDims(std::move(dims));
}

void TensorShape::AsProto(tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string TensorShape::DebugString() const { return StrCat("[", absl::StrJoin(dims_, ","), "]"); }

PartialShape PartialShape::FromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return PartialShape();
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size() < 0 ? -1 : d.size());
  return PartialShape(std::move(dims));
}

void PartialShape::AsProto(tensorflow::TensorShapeProto* proto) const {
  proto->Clear();
  if (!known_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

bool PartialShape::IsFullyDefined() const {
  if (!known_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t PartialShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

bool PartialShape::IsCompatibleWith(const PartialShape& shape) const {
  if (!known_rank_ || !shape.known_rank_) return true;
  if (dims_.size() != shape.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] >= 0 && shape.dims_[i] >= 0 && dims_[i] != shape.dims_[i]) return false;
  return true;
}

StatusOr<PartialShape> PartialShape::MergeWith(const PartialShape& other) const {
  if (!known_rank_) return other;
  if (!other.known_rank_) return *this;
  if (!IsCompatibleWith(other))
    return errors::InvalidArgument("Shapes ", DebugString(), " and ", other.DebugString(), " are not compatible");
  PartialShape merged = *this;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (merged.dims_[i] < 0) merged.dims_[i] = other.dims_[i];
  return merged;
}

std::string PartialShape::DebugString() const {
  if (!known_rank_) return "<unknown>";
  std::string out = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ",";
    out += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return out + "]";
}

}  // namespace clab
