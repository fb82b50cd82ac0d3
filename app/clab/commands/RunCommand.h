// `clab run --graph FILE --fetch NAME ...`: runs a graph (GraphDef, MetaGraphDef or
// SavedModel) in this process with a local session and prints each fetched value after each
// step, as `print(sess.run(...))` would. "--init auto --target auto --feed_random" trains a
// graph TensorFlow wrote without knowing its node names. A graph with queue runners (the
// "queue_runners" collection) has them started after the init nodes and stopped at the end,
// unless --feed_random cuts its input pipeline; --data_dir runs the graph in an in-process
// task whose readers may open files only beneath those directories.
#pragma once

#include "clab/core/Tensor.h"
#include "clab/runtime/Session.h"
#include "cli/Command.h"
#include "tensorflow/meta_graph.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab {
class Graph;
}

namespace clab::cli {

class RunCommand : public Command {
 public:
  std::string name() const override { return "run"; }
  std::string summary() const override;
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  // "--feed x=[[1,2]]" -> ("x", tensor typed like the fed output).
  StatusOr<FeedList> ParseFeeds(const Graph& graph) const;
  // Names are checked before the session sees them, so a typo is reported with the flag
  // that carries it and the nodes that do exist.
  Status CheckNamesExist(const Graph& graph) const;
  // Replaces "--init auto" and "--target auto" by the nodes the graph's collections or
  // names give, saying where they were found.
  Status ResolveAutomaticNodes(std::ostream& out);
  // Generated values for the placeholders and input pipelines the run needs that no --feed
  // gives; pipelines are cut from `graph` (see GraphRoles::CutPipelines).
  // With `keep_pipelines` only placeholders are fed: the queue runners fill the pipelines.
  Status AddRandomFeeds(FeedList* feeds, tensorflow::GraphDef* graph, bool keep_pipelines) const;
  Status ExplainStepFailure(const Status& status, int64_t step) const;
  void PrintFetches(std::ostream& out, const std::vector<Tensor>& values) const;

  std::string graph_path_;
  std::vector<std::string> fetches_;
  std::vector<std::string> targets_;
  std::vector<std::string> init_nodes_;
  std::vector<std::string> feed_specs_;
  std::vector<std::string> data_dirs_;
  bool feed_random_ = false;
  bool clear_devices_ = false;
  int64_t feed_batch_ = 2;
  tensorflow::MetaGraphDef meta_;
  int64_t steps_ = 1;
  bool log_device_placement_ = false;
  bool allow_soft_placement_ = false;
};

}  // namespace clab::cli
