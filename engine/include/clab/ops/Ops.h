// C++ wrappers that add one op each to a GraphBuilder, named and defaulted like TensorFlow's
// Python API. `name` empty means the op name. They are defined in engine/ops/cc/ (the client
// API), apart from the ops' definitions and kernels in engine/ops/.
#pragma once

#include "clab/core/Tensor.h"
#include "clab/graph/GraphBuilder.h"

#include <string>
#include <vector>

namespace clab::ops {

// array
Output Const(GraphBuilder& g, const Tensor& value, std::string_view name = "");
Output Placeholder(GraphBuilder& g, DataType dtype, const PartialShape& shape = PartialShape(),
                   std::string_view name = "");
Output Identity(GraphBuilder& g, const Output& x, std::string_view name = "");
Output NoOp(GraphBuilder& g, const std::vector<Output>& control_inputs = {}, std::string_view name = "");
Output Reshape(GraphBuilder& g, const Output& x, const Output& shape, std::string_view name = "");
Output Transpose(GraphBuilder& g, const Output& x, const Output& perm, std::string_view name = "");
// x's shape when the step runs, as an int32 (or int64) vector.
Output Shape(GraphBuilder& g, const Output& x, DataType out_type = DT_INT32, std::string_view name = "");
Output Cast(GraphBuilder& g, const Output& x, DataType dtype, std::string_view name = "");
Output Fill(GraphBuilder& g, const Output& dims, const Output& value, std::string_view name = "");
Output ZerosLike(GraphBuilder& g, const Output& x, std::string_view name = "");
Output OnesLike(GraphBuilder& g, const Output& x, std::string_view name = "");

// state
Output VariableV2(GraphBuilder& g, const PartialShape& shape, DataType dtype, std::string_view name = "");
Output Assign(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name = "");
Output AssignAdd(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name = "");
Output AssignSub(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name = "");

// math
Output MatMul(GraphBuilder& g, const Output& a, const Output& b, bool transpose_a = false, bool transpose_b = false,
              std::string_view name = "");
Output Add(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");  // AddV2
Output Sub(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
Output Mul(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
Output RealDiv(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
Output Neg(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Square(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Sqrt(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Exp(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Log(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Sum(GraphBuilder& g, const Output& x, const Output& axes, bool keep_dims = false, std::string_view name = "");
Output Mean(GraphBuilder& g, const Output& x, const Output& axes, bool keep_dims = false, std::string_view name = "");

// nn
Output Relu(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Sigmoid(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Tanh(GraphBuilder& g, const Output& x, std::string_view name = "");
Output Softmax(GraphBuilder& g, const Output& logits, std::string_view name = "");
Output LogSoftmax(GraphBuilder& g, const Output& logits, std::string_view name = "");
Output BiasAdd(GraphBuilder& g, const Output& value, const Output& bias, std::string_view name = "");
Output L2Loss(GraphBuilder& g, const Output& t, std::string_view name = "");
// The index (int64) of the largest value along `axis`.
Output ArgMax(GraphBuilder& g, const Output& input, int axis, std::string_view name = "");
Output Equal(GraphBuilder& g, const Output& x, const Output& y, std::string_view name = "");
// Each example's cross-entropy loss ([batch]) for int32/int64 labels ([batch]).
Output SparseSoftmaxCrossEntropyWithLogits(GraphBuilder& g, const Output& logits, const Output& labels,
                                           std::string_view name = "");
// Each example's cross-entropy loss ([batch]) for labels given as distributions ([batch, classes]).
Output SoftmaxCrossEntropyWithLogits(GraphBuilder& g, const Output& logits, const Output& labels,
                                     std::string_view name = "");

// convolution and pooling (NHWC images; strides and ksize [1, height, width, 1]; padding
// "SAME" or "VALID")
Output Conv2D(GraphBuilder& g, const Output& input, const Output& filter, const std::vector<int64_t>& strides,
              std::string_view padding, std::string_view name = "");
Output Conv2DBackpropInput(GraphBuilder& g, const Output& input_sizes, const Output& filter, const Output& out_backprop,
                           const std::vector<int64_t>& strides, std::string_view padding, std::string_view name = "");
Output Conv2DBackpropFilter(GraphBuilder& g, const Output& input, const Output& filter_sizes,
                            const Output& out_backprop, const std::vector<int64_t>& strides, std::string_view padding,
                            std::string_view name = "");
Output MaxPool(GraphBuilder& g, const Output& value, const std::vector<int64_t>& ksize,
               const std::vector<int64_t>& strides, std::string_view padding, std::string_view name = "");
Output MaxPoolGrad(GraphBuilder& g, const Output& orig_input, const Output& orig_output, const Output& grad,
                   const std::vector<int64_t>& ksize, const std::vector<int64_t>& strides, std::string_view padding,
                   std::string_view name = "");

// random (seed, seed2 as TensorFlow: both 0 means nondeterministic)
Output RandomUniform(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed = 0, int64_t seed2 = 0,
                     std::string_view name = "");
Output RandomStandardNormal(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed = 0, int64_t seed2 = 0,
                            std::string_view name = "");
Output TruncatedNormal(GraphBuilder& g, const Output& shape, DataType dtype, int64_t seed = 0, int64_t seed2 = 0,
                       std::string_view name = "");

// rows by index
// tf.gather(params, indices, axis): GatherV2.
Output Gather(GraphBuilder& g, const Output& params, const Output& indices, int axis = 0, std::string_view name = "");
Output UnsortedSegmentSum(GraphBuilder& g, const Output& data, const Output& segment_ids, const Output& num_segments,
                          std::string_view name = "");
Output ScatterSub(GraphBuilder& g, const Output& ref, const Output& indices, const Output& updates,
                  std::string_view name = "");
Output ScatterAdd(GraphBuilder& g, const Output& ref, const Output& indices, const Output& updates,
                  std::string_view name = "");

// queues (handles are [container, name] string vectors; ops using one run on its device)
Output FIFOQueue(GraphBuilder& g, const std::vector<DataType>& component_types,
                 const std::vector<PartialShape>& shapes = {}, int64_t capacity = -1, std::string_view shared_name = "",
                 std::string_view name = "fifo_queue");
Output QueueEnqueue(GraphBuilder& g, const Output& handle, const std::vector<Output>& components,
                    std::string_view name = "");
Output QueueEnqueueMany(GraphBuilder& g, const Output& handle, const std::vector<Output>& components,
                        std::string_view name = "");
std::vector<Output> QueueDequeue(GraphBuilder& g, const Output& handle, const std::vector<DataType>& component_types,
                                 std::string_view name = "");
Output QueueClose(GraphBuilder& g, const Output& handle, bool cancel_pending_enqueues = false,
                  std::string_view name = "");
Output QueueSize(GraphBuilder& g, const Output& handle, std::string_view name = "");

// gradient accumulators (synchronous replicas)
Output ConditionalAccumulator(GraphBuilder& g, DataType dtype, const PartialShape& shape,
                              std::string_view shared_name = "", std::string_view name = "ConditionalAccumulator");
Output AccumulatorApplyGradient(GraphBuilder& g, const Output& handle, const Output& local_step, const Output& gradient,
                                std::string_view name = "");
Output AccumulatorTakeGradient(GraphBuilder& g, const Output& handle, const Output& num_required, DataType dtype,
                               std::string_view name = "");
Output AccumulatorSetGlobalStep(GraphBuilder& g, const Output& handle, const Output& new_global_step,
                                std::string_view name = "");
Output AccumulatorNumAccumulated(GraphBuilder& g, const Output& handle, std::string_view name = "");

// data: MinibatchDataset, the next minibatch of labelled examples from a CSV or IDX file
// each time it runs (engine/ops/DatasetOps.cpp, clab/io/ExampleSet.h). Defaults as the op's.
struct MinibatchDatasetOptions {
  std::string path;         // .csv/.csv.gz (last column the class) or .idx/.idx.gz features
  std::string labels_path;  // the IDX labels file (IDX sources only)
  int64_t batch_size = 32;
  int64_t seed = 0;  // the shuffle's seed (any value, 0 included, is deterministic)
  bool shuffle = true;
  int64_t shard_index = 0;  // example j of the split belongs to shard j % num_shards
  int64_t num_shards = 1;
  int64_t held_out_every = 0;   // every k-th example (i % k == k - 1) is held out; 0: none
  std::string split = "train";  // or "held_out"
  std::string scale = "none";   // or "standardize" (training split's statistics), "divide:X"
  int64_t num_features = -1;    // declares d; -1: read from the file's header when building
  std::string container;
  std::string shared_name;  // empty: the node's name
};
struct Minibatch {
  Output features;  // float [batch_size, d]
  Output labels;    // int32 [batch_size]
};
Minibatch MinibatchDataset(GraphBuilder& g, const MinibatchDatasetOptions& options, std::string_view name = "");

// Python-level helpers.
// tf.Variable(initial_value, name=): a VariableV2 "name", its initializer "name/Assign" and
// "name/read" (an Identity colocated with it); registered in the "variables" collection
// (and "trainable_variables" when trainable).
struct Variable {
  Output var;          // the ref output of the VariableV2
  Output initializer;  // the Assign
  Output read;         // the value, for use in computations
};
Variable MakeVariable(GraphBuilder& g, const Output& initial_value, std::string_view name = "", bool trainable = true);
// A NoOp depending on every initializer in the "variables" collection.
Output GlobalVariablesInitializer(GraphBuilder& g, std::string_view name = "init");

}  // namespace clab::ops
