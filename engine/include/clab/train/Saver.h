// Saves and restores variables. The graph gets the subgraph tf.train.Saver builds
// (save/Const, save/SaveV2, save/control_dependency, save/RestoreV2, save/Assign*,
// save/restore_all), so a graph exported from ClusterLab saves and restores in TensorFlow,
// and its saver_def names them. Unlike TensorFlow's sharded saver, whose ps tasks write their
// own shards to their own disks, ClusterLab's chief fetches every variable through its
// session and writes the checkpoint into its own directory, and restores by feeding the
// values it read as save/RestoreV2's outputs: a cluster of real hosts needs no shared file
// system. Each checkpoint gets its MetaGraphDef (P.meta) once SetMetaGraph gave one.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"
#include "tensorflow/meta_graph.pb.h"

#include <memory>
#include <string>
#include <vector>

namespace clab {

struct SaverOptions {
  // Variable node names; empty: every variable in the "variables" collection.
  std::vector<std::string> var_list;
  int max_to_keep = 5;  // 0: keep all
  std::string name = "save";
};

class Saver {
 public:
  // Adds the save and restore ops under `options.name` to the graph under construction;
  // must be called before the session is created.
  static StatusOr<Saver> Build(GraphBuilder& graph, const SaverOptions& options = {});

  // Writes "<base>-<global_step>" (e.g. dir/model.ckpt-200: .index, .data-00000-of-00001 and,
  // with a meta graph set, .meta), updates the directory's "checkpoint" file and deletes
  // checkpoints beyond max_to_keep (all three files). Returns the prefix.
  StatusOr<std::string> Save(Session& session, const std::string& base, int64_t global_step);
  // Loads every variable of the list from `prefix`. NOT_FOUND names a variable the
  // checkpoint lacks; INVALID_ARGUMENT a shape or dtype that differs; DATA_LOSS a corrupt file.
  Status Restore(Session& session, const std::string& prefix);
  // Re-reads the retention list from the directory's state file (after a restart).
  void RecoverLastCheckpoints(const std::vector<std::string>& newest_first);

  // The names of the saver's nodes, as tf.train.Saver's SaverDef gives them (format V2).
  tensorflow::SaverDef saver_def() const;
  // The MetaGraphDef written beside each checkpoint (see ExportMetaGraph).
  void SetMetaGraph(tensorflow::MetaGraphDef meta_graph);
  const tensorflow::MetaGraphDef* meta_graph() const { return meta_graph_.get(); }

  const std::vector<std::string>& variables() const { return variables_; }
  const std::vector<std::string>& last_checkpoints() const { return last_checkpoints_; }

 private:
  std::vector<std::string> variables_;
  std::vector<DataType> dtypes_;
  std::vector<std::string> restored_tensors_;  // save/RestoreV2:i, fed on restore
  std::string filename_tensor_;
  std::string save_tensor_;
  std::string restore_op_;
  std::shared_ptr<const tensorflow::MetaGraphDef> meta_graph_;
  int max_to_keep_ = 5;
  std::vector<std::string> last_checkpoints_;  // oldest first
};

}  // namespace clab
