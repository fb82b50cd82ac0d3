// Eigen views of Tensor buffers, for kernels. Row-major to match the tensor layout.
#pragma once

#include "clab/core/Tensor.h"

#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

namespace clab {

template <typename T, int Rank>
using EigenTensorMap = Eigen::TensorMap<Eigen::Tensor<T, Rank, Eigen::RowMajor, Eigen::DenseIndex>, Eigen::Aligned>;
template <typename T, int Rank>
using ConstEigenTensorMap =
    Eigen::TensorMap<Eigen::Tensor<const T, Rank, Eigen::RowMajor, Eigen::DenseIndex>, Eigen::Aligned>;
template <typename T>
using EigenMatrixMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <typename T>
using ConstEigenMatrixMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

template <typename T>
EigenTensorMap<T, 1> Flat(Tensor& t) {
  return EigenTensorMap<T, 1>(t.data<T>(), t.NumElements());
}
template <typename T>
ConstEigenTensorMap<T, 1> Flat(const Tensor& t) {
  return ConstEigenTensorMap<T, 1>(t.data<T>(), t.NumElements());
}
// The tensor as an Eigen tensor of rank N (its shape must have rank N).
template <typename T, int N>
EigenTensorMap<T, N> Shaped(Tensor& t) {
  Eigen::DSizes<Eigen::DenseIndex, N> dims;
  for (int i = 0; i < N; ++i) dims[i] = t.shape().dim(i);
  return EigenTensorMap<T, N>(t.data<T>(), dims);
}
template <typename T, int N>
ConstEigenTensorMap<T, N> Shaped(const Tensor& t) {
  Eigen::DSizes<Eigen::DenseIndex, N> dims;
  for (int i = 0; i < N; ++i) dims[i] = t.shape().dim(i);
  return ConstEigenTensorMap<T, N>(t.data<T>(), dims);
}
template <typename T>
EigenMatrixMap<T> AsMatrix(Tensor& t) {
  return EigenMatrixMap<T>(t.data<T>(), t.shape().dim(0), t.shape().dim(1));
}
template <typename T>
ConstEigenMatrixMap<T> AsMatrix(const Tensor& t) {
  return ConstEigenMatrixMap<T>(t.data<T>(), t.shape().dim(0), t.shape().dim(1));
}

}  // namespace clab
