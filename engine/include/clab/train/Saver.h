// Saves and restores variables. Unlike TensorFlow's sharded saver, whose ps tasks write their
// own shards to their own disks, ClusterLab's chief fetches every variable through its
// session and writes the checkpoint into its own directory, and restores by feeding the
// values back: a cluster of real hosts needs no shared file system.
#pragma once

#include "clab/core/Status.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/runtime/Session.h"

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
  // Adds the restore ops (one Placeholder and Assign per variable, and "<name>/restore_all")
  // to the graph under construction; must be called before the session is created.
  static StatusOr<Saver> Build(GraphBuilder& graph, const SaverOptions& options = {});

  // Writes "<base>-<global_step>" (e.g. dir/model.ckpt-200), updates the directory's
  // "checkpoint" file and deletes checkpoints beyond max_to_keep. Returns the prefix.
  StatusOr<std::string> Save(Session& session, const std::string& base, int64_t global_step);
  // Loads every variable of the list from `prefix`. NOT_FOUND names a variable the
  // checkpoint lacks; INVALID_ARGUMENT a shape or dtype that differs; DATA_LOSS a corrupt file.
  Status Restore(Session& session, const std::string& prefix);
  // Re-reads the retention list from the directory's state file (after a restart).
  void RecoverLastCheckpoints(const std::vector<std::string>& newest_first);

  const std::vector<std::string>& variables() const { return variables_; }
  const std::vector<std::string>& last_checkpoints() const { return last_checkpoints_; }

 private:
  std::vector<std::string> variables_;
  std::vector<DataType> dtypes_;
  std::vector<std::string> restore_placeholders_;  // tensor names to feed
  std::string restore_op_;
  int max_to_keep_ = 5;
  std::vector<std::string> last_checkpoints_;  // oldest first
};

}  // namespace clab
