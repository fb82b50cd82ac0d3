#include "bench/PlainEigenMlp.h"

#include <cmath>
#include <random>

namespace clab::cli {
namespace {

PlainEigenMlp::Matrix Normal(int rows, int cols, std::mt19937_64& random) {
  std::normal_distribution<float> normal(0.0f, std::sqrt(2.0f / static_cast<float>(rows)));
  PlainEigenMlp::Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(random);
  return m;
}

}  // namespace

PlainEigenMlp::PlainEigenMlp(int features, int hidden, int classes, float learning_rate, uint64_t seed)
    : learning_rate_(learning_rate) {
  std::mt19937_64 random(seed);
  w1_ = Normal(features, hidden, random);
  w2_ = Normal(hidden, classes, random);
  b1_ = RowVector::Zero(hidden);
  b2_ = RowVector::Zero(classes);
}

float PlainEigenMlp::Step(const Matrix& x, const std::vector<int32_t>& labels) {
  const Eigen::Index batch = x.rows();
  hidden_.noalias() = x * w1_;
  hidden_.rowwise() += b1_;
  hidden_ = hidden_.cwiseMax(0.0f);
  logits_.noalias() = hidden_ * w2_;
  logits_.rowwise() += b2_;

  // Softmax cross-entropy; logits_ becomes d(loss)/d(logits).
  float loss = 0;
  const float scale = 1.0f / static_cast<float>(batch);
  for (Eigen::Index i = 0; i < batch; ++i) {
    auto row = logits_.row(i);
    const float top = row.maxCoeff();
    row = (row.array() - top).exp();
    const float sum = row.sum();
    const int32_t label = labels[static_cast<size_t>(i)];
    loss -= std::log(row(label) / sum);
    row *= scale / sum;
    row(label) -= scale;
  }

  d_hidden_.noalias() = logits_ * w2_.transpose();
  d_hidden_ = (hidden_.array() > 0.0f).select(d_hidden_, 0.0f);
  w2_.noalias() -= learning_rate_ * (hidden_.transpose() * logits_);
  b2_.noalias() -= learning_rate_ * logits_.colwise().sum();
  w1_.noalias() -= learning_rate_ * (x.transpose() * d_hidden_);
  b1_.noalias() -= learning_rate_ * d_hidden_.colwise().sum();
  return loss * scale;
}

}  // namespace clab::cli
