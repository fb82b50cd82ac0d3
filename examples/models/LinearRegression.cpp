#include "models/LinearRegression.h"

#include "clab/ops/Ops.h"
#include "examplegraphs/Descent.h"

namespace clab::examples {

StatusOr<RegressionGraph> BuildLinearRegression(GraphBuilder& g, int batch, double learning_rate, int64_t seed,
                                                int sync_replicas) {
  RegressionGraph model;
  Output shape = ops::Const(g, Tensor::Vector<int32_t>({batch, 1}), "batch_shape");
  Output x = ops::RandomUniform(g, shape, DT_FLOAT, seed, 1, "x");
  Output noise = ops::Mul(g, ops::Const(g, Tensor::Scalar<float>(0.1f)),
                          ops::RandomStandardNormal(g, shape, DT_FLOAT, seed, 2), "noise");
  Output y = ops::Add(g,
                      ops::Add(g, ops::Mul(g, ops::Const(g, Tensor::Scalar<float>(kRegressionSlope)), x),
                               ops::Const(g, Tensor::Scalar<float>(kRegressionIntercept))),
                      noise, "y");
  ops::Variable w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<float>({{0.0f}})), "w");
  ops::Variable b = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({0.0f})), "b");
  model.w = w.var;
  model.b = b.var;
  Output error = ops::Sub(g, ops::Add(g, ops::MatMul(g, x, w.read), b.read), y);
  model.loss = ops::Mean(g, ops::Square(g, error), ops::Const(g, Tensor::Vector<int32_t>({0, 1})), false, "loss");
  CLAB_ASSIGN_OR_RETURN(model.train,
                        tools::MinimizeWithDescent(g, model.loss, learning_rate, sync_replicas, &model.sync));
  CLAB_RETURN_IF_ERROR(g.status());
  return model;
}

}  // namespace clab::examples
