#pragma once

#include "clab/train/SecondOrStepTimer.h"
#include "clab/train/SessionRunHook.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab {

class EventFileWriter;

// Writes summaries to the event file every N steps or seconds, and a SessionLog START on the
// first run, for TensorBoard: the scalars given (tag -> tensor name) become ScalarSummary
// nodes of the graph's "summaries" collection, and every node of that collection is fetched
// and written, as tf.train.SummarySaverHook writes tf.summary.merge_all().
class SummarySaverHook : public SessionRunHook {
 public:
  SummarySaverHook(SecondOrStepTimer timer, std::string output_dir, std::map<std::string, std::string> scalars);
  std::string name() const override { return "SummarySaverHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;

 private:
  SecondOrStepTimer timer_;
  std::string output_dir_;
  std::map<std::string, std::string> scalars_;
  std::vector<std::string> summaries_;  // tensors of serialised Summaries
  HookEnvironment env_;
  std::shared_ptr<EventFileWriter> writer_;
  bool first_run_ = true;
  bool requested_ = false;
  int64_t next_step_ = 0;  // the step the next run is expected to reach
};

}  // namespace clab
