#include "examplegraphs/SeedGraph.h"

#include "clab/core/Tensor.h"

namespace clab::tools {

SeedGraph BuildSeedGraph(GraphBuilder& g) {
  SeedGraph seed;
  // The seed's literals are Python ints, which TensorFlow turns into int32 tensors; keeping
  // int32 makes the printed result read exactly like the tutorial's "[[20]]". tf.Variable
  // names its initial value "<name>/initial_value"; keeping TensorFlow's names lets the
  // placement log be compared line by line with TensorFlow's.
  seed.x = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x/initial_value"), "x");
  seed.w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w/initial_value"), "w");
  seed.product = ops::MatMul(g, seed.x.read, seed.w.read);
  seed.init = ops::GlobalVariablesInitializer(g);
  return seed;
}

}  // namespace clab::tools
