#pragma once

#include "clab/train/SecondOrStepTimer.h"
#include "clab/train/SessionRunHook.h"

#include <functional>
#include <map>

namespace clab {

// Prints "tag1 = v1, tag2 = v2 (0.532 sec)" every N local iterations or seconds, and/or at
// the end. Tags print in sorted order; values as numpy prints them.
class LoggingTensorHook : public SessionRunHook {
 public:
  using Formatter = std::function<std::string(const std::map<std::string, Tensor>&)>;
  // `tensors`: tag -> tensor name ("loss" or "loss:0"). Exactly one of every_n_iter /
  // every_n_secs unless only `at_end`.
  static StatusOr<std::shared_ptr<LoggingTensorHook>> Create(std::map<std::string, std::string> tensors,
                                                             int64_t every_n_iter, double every_n_secs,
                                                             bool at_end = false, Formatter formatter = nullptr);
  std::string name() const override { return "LoggingTensorHook"; }
  Status Begin(HookEnvironment& env) override;
  StatusOr<SessionRunArgs> BeforeRun(SessionRunContext& context) override;
  Status AfterRun(SessionRunContext& context, const SessionRunValues& values) override;
  Status End(Session& session) override;

  // The line for `values`, with the elapsed time when known.
  std::string Format(const std::map<std::string, Tensor>& values, std::optional<double> elapsed) const;

 private:
  LoggingTensorHook() = default;
  void Log(const std::map<std::string, Tensor>& values, std::optional<double> elapsed);
  std::map<std::string, std::string> tensors_;
  std::optional<SecondOrStepTimer> timer_;
  bool at_end_ = false;
  Formatter formatter_;
  HookEnvironment env_;
  int64_t iter_ = 0;
  bool triggered_ = false;
};

}  // namespace clab
