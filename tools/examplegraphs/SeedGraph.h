// The graph of the seed program (a Chinese tutorial on TensorFlow's distributed session):
//
//   x = tf.Variable([[1, 2, 3, 4]])          (int32, 1x4)
//   w = tf.Variable([[2], [2], [2], [2]])    (int32, 4x1)
//   mat = tf.matmul(x, w)                    -> [[20]]
//
// Built here once so that every front end (`clab demo`, the studio, the distributed seed
// program) shows the same node names. Device placement is left to the caller: the
// distributed program wraps the call in a replica_device_setter scope, the local demo uses
// none.
#pragma once

#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"

namespace clab::tools {

struct SeedGraph {
  ops::Variable x;  // the variable [[1, 2, 3, 4]]
  ops::Variable w;  // the variable [[2], [2], [2], [2]]
  Output product;   // MatMul(x, w): fetch this to get [[20]]
  Output init;      // tf.global_variables_initializer(): assigns x and w
};

// Adds the seed nodes to `g` ("x/initial_value", "x", "x/Assign", "x/read", the same for
// "w", "MatMul", "init"). Errors are recorded in g.status(), as for every GraphBuilder call.
SeedGraph BuildSeedGraph(GraphBuilder& g);

// The value the seed program prints each step: x . w = 1*2 + 2*2 + 3*2 + 4*2.
inline constexpr int32_t kSeedExpectedProduct = 20;

}  // namespace clab::tools
