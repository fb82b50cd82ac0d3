// The digits MLP's training step written directly in Eigen, with no graph, no session and no
// threads: the floor `clab bench compute` holds ClusterLab's one-process step against. The
// maths is the same as tools::BuildClassifier's graph with one hidden layer: ReLU, sparse
// softmax cross-entropy averaged over the batch, plain gradient descent on both layers'
// weights and biases.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

namespace clab::cli {

class PlainEigenMlp {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

  // Weights from a normal distribution scaled by sqrt(2 / fan_in), biases zero.
  PlainEigenMlp(int features, int hidden, int classes, float learning_rate, uint64_t seed);

  // One step on `x` [batch, features] and `labels` [batch]; the batch's mean loss before the
  // update.
  float Step(const Matrix& x, const std::vector<int32_t>& labels);

 private:
  float learning_rate_;
  Matrix w1_, w2_;
  RowVector b1_, b2_;
  // Scratch for the step, kept between steps as any hand-written trainer would.
  Matrix hidden_, logits_, d_hidden_;
};

}  // namespace clab::cli
