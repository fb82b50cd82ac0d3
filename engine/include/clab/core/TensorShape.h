// Shapes: TensorShape is fully known (every tensor has one); PartialShape may have unknown
// dimensions (-1) or an unknown rank, as shape inference sees them before a run.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/tensor_shape.pb.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace clab {

class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Rejects negative dimensions and element counts that overflow int64.
  static StatusOr<TensorShape> FromDims(std::vector<int64_t> dims);
  static StatusOr<TensorShape> FromProto(const tensorflow::TensorShapeProto& proto);
  void AsProto(tensorflow::TensorShapeProto* proto) const;

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;
  bool IsScalar() const { return dims_.empty(); }
  bool IsVector() const { return dims_.size() == 1; }
  bool IsMatrix() const { return dims_.size() == 2; }

  void AddDim(int64_t size) { dims_.push_back(size); }
  void set_dim(int i, int64_t size) { dims_[static_cast<size_t>(i)] = size; }

  // "[2,3]", "[]" for a scalar: the form TensorFlow's error messages use.
  std::string DebugString() const;

  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

class PartialShape {
 public:
  PartialShape() : known_rank_(false) {}  // unknown rank
  PartialShape(std::initializer_list<int64_t> dims) : known_rank_(true), dims_(dims) {}
  explicit PartialShape(std::vector<int64_t> dims) : known_rank_(true), dims_(std::move(dims)) {}
  PartialShape(const TensorShape& shape) : known_rank_(true), dims_(shape.dims()) {}  // NOLINT

  static PartialShape Unknown() { return PartialShape(); }
  // A known rank-0 shape. (PartialShape{} is the unknown shape, not a scalar.)
  static PartialShape Scalar() { return PartialShape(std::vector<int64_t>{}); }
  static PartialShape UnknownOfRank(int rank) { return PartialShape(std::vector<int64_t>(rank, -1)); }
  static PartialShape FromProto(const tensorflow::TensorShapeProto& proto);
  void AsProto(tensorflow::TensorShapeProto* proto) const;

  bool known_rank() const { return known_rank_; }
  int rank() const { return known_rank_ ? static_cast<int>(dims_.size()) : -1; }
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }  // -1 = unknown
  const std::vector<int64_t>& dims() const { return dims_; }
  bool IsFullyDefined() const;
  // Only valid when IsFullyDefined().
  TensorShape AsTensorShape() const { return TensorShape(dims_); }
  // -1 unless fully defined.
  int64_t num_elements() const;

  // True when `shape` fits this partial shape.
  bool IsCompatibleWith(const PartialShape& shape) const;
  // The most specific shape compatible with both, or INVALID_ARGUMENT.
  StatusOr<PartialShape> MergeWith(const PartialShape& other) const;

  // "[2,?]", "<unknown>" for an unknown rank.
  std::string DebugString() const;
  bool operator==(const PartialShape& other) const { return known_rank_ == other.known_rank_ && dims_ == other.dims_; }

 private:
  bool known_rank_ = false;
  std::vector<int64_t> dims_;
};

}  // namespace clab
