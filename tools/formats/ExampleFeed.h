// Generated tf.Example records for a string placeholder that a ParseExample node parses (a
// serving graph's "tf_example" input), so that `clab run --feed_random` can run graphs whose
// inputs arrive serialized: every example holds each dense key the parser names, with as
// many values as its dense shape needs, and one value for each sparse key.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "tensorflow/graph.pb.h"

#include <cstdint>
#include <optional>
#include <string>

namespace clab::tools {

class ExampleFeed {
 public:
  // `batch` serialized examples (floats uniform in [0, 1) from `seed`, integers 0, strings
  // empty) when a ParseExample reads `placeholder`'s output 0; nullopt when none does.
  // Fails when a parser's keys are not constants (the features cannot be known).
  static StatusOr<std::optional<Tensor>> For(const tensorflow::GraphDef& graph, const std::string& placeholder,
                                             int64_t batch, uint32_t seed);
};

}  // namespace clab::tools
