// What a graph that TensorFlow wrote is for, found the way TensorFlow's own tools find it,
// so that `clab run` can initialise and train a user's graph without being told its node
// names: the init op, the training op and the placeholders a step must be fed.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "tensorflow/meta_graph.pb.h"

#include <string>
#include <vector>

namespace clab::tools {

class GraphRoles {
 public:
  explicit GraphRoles(const tensorflow::MetaGraphDef& meta) : meta_(meta) {}

  // The nodes that initialise the graph's state, with where they were found: the
  // "init_op", "local_init_op", "table_initializer" collections and a SavedModel's
  // "saved_model_main_op" or "legacy_init_op" (with the variables' initializers); else the nodes TF's
  // initialisers are named ("init", "init_all_tables", "init_1"...); else every initializer
  // the "variables" collection names; else every Assign writing a VariableV2 that is named
  // "<variable>/Assign". NOT_FOUND when the graph has no state to initialise.
  StatusOr<std::vector<std::string>> InitOps(std::string* found_by) const;
  // The op one training step runs: the "train_op" collection; else the node no other node
  // consumes that reaches the most optimizer updates (Apply*, ResourceApply*); for a graph
  // without updates (inference, serving), its outputs: the nodes no one consumes outside
  // save/ and the initialisers.
  StatusOr<std::vector<std::string>> StepTargets(std::string* found_by) const;
  // Where generated inputs go: a Placeholder, or one output of an input pipeline's last op
  // (a queue's dequeue, an iterator's get-next), whose upstream then need not run.
  struct FeedPoint {
    std::string node;
    int output = 0;
    DataType dtype = DT_INVALID;
    PartialShape shape;
    bool is_placeholder = true;
  };
  // The feed points `targets` depend on, without looking upstream of a pipeline's last op
  // (PlaceholderWithDefault has its default and is left alone). A tf.data pipeline that runs
  // from the graph alone (see InputPipelines) is no feed point: it runs.
  std::vector<FeedPoint> FeedPointsFor(const std::vector<std::string>& targets) const;
  // The nodes that start the iterators of the runnable tf.data pipelines `targets` read
  // (MakeIterator nodes), to run once after the init op.
  std::vector<std::string> PipelineInitializers(const std::vector<std::string>& targets) const;
  // Replaces each pipeline output among `points` by a Placeholder of its own (named
  // "<node>/fed_<output>", returned in `points`), so a run feeds it and the pipeline's
  // queues, readers and iterators drop out of the pruned graph.
  static void CutPipelines(std::vector<FeedPoint>* points, tensorflow::GraphDef* graph);
  // A generated value of the point's dtype and shape, unknown dimensions `batch`: floats
  // uniform in [0, 1) from `seed`, integers 0, bools false, strings empty.
  static StatusOr<Tensor> RandomFeed(const FeedPoint& point, int64_t batch, uint32_t seed);

 private:
  const tensorflow::MetaGraphDef& meta_;
};

}  // namespace clab::tools
