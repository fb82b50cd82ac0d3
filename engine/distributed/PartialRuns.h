// The partial runs of one master session (MasterService.PartialRunSetup, then RunStep calls
// with a partial_run_handle): TensorFlow's bookkeeping and errors. Each setup names the
// feeds, fetches and targets of the whole run; each call feeds some of the feeds not yet
// fed and fetches some of the fetches not yet fetched, and the run ends (its handle is
// forgotten) once everything was fed and fetched, or at the first error.
//
// Each call runs as a step of its own: the nodes its fetches need, from every tensor fed so
// far (the targets with the last call). Nodes that the fetches of several calls need run in
// each of those calls, where TensorFlow runs them once per partial run.
#pragma once

#include "clab/core/Mutex.h"
#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"
#include "tensorflow/master.pb.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace clab {

class PartialRuns {
 public:
  // Records a run; answers its handle ("0", "1", ... as TensorFlow numbers them).
  std::string Setup(const tensorflow::PartialRunSetupRequest& setup);

  // Checks one call against its run (INVALID_ARGUMENT, TensorFlow's wording, for an unknown
  // handle, a feed or fetch not named at setup or given before, or a fetch that needs a
  // feed not fed yet), marks its feeds fed and its fetches fetched, and fills `step` with
  // the step to run. `*run_needed` is false when the call only feeds; `*last` when the run
  // is complete after it.
  Status Prepare(const tensorflow::RunStepRequest& call, const tensorflow::GraphDef& graph,
                 tensorflow::RunStepRequest* step, bool* run_needed, bool* last);
  // The call's step ended: the run is forgotten after an error or its last call.
  void Finish(const std::string& handle, const Status& status, bool last);

 private:
  struct Run {
    std::map<std::string, bool> feeds;    // name -> fed already
    std::map<std::string, bool> fetches;  // name -> fetched already
    std::vector<std::string> targets;
    std::vector<tensorflow::NamedTensorProto> fed;  // every tensor fed so far
  };
  static Status CheckComputable(const tensorflow::RunStepRequest& call, const Run& run,
                                const tensorflow::GraphDef& graph);

  Mutex mu_;
  int64_t next_handle_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, Run> runs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace clab
