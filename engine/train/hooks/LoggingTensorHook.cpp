#include "clab/train/hooks/LoggingTensorHook.h"

#include <cstdio>

namespace clab {
namespace {
std::string WithSlot(const std::string& name) { return name.find(':') == std::string::npos ? name + ":0" : name; }
}  // namespace

StatusOr<std::shared_ptr<LoggingTensorHook>> LoggingTensorHook::Create(std::map<std::string, std::string> tensors,
                                                                       int64_t every_n_iter, double every_n_secs,
                                                                       bool at_end, Formatter formatter) {
  const bool by_iter = every_n_iter != 0, by_secs = every_n_secs > 0;
  if (by_iter == by_secs && !(at_end && !by_iter && !by_secs))
    return errors::InvalidArgument(
        "LoggingTensorHook needs exactly one of every_n_iter and every_n_secs (or only at_end)");
  if (every_n_iter < 0)
    return errors::InvalidArgument("LoggingTensorHook: every_n_iter must be positive, got ", every_n_iter);
  if (tensors.empty()) return errors::InvalidArgument("LoggingTensorHook needs at least one tensor");
  std::shared_ptr<LoggingTensorHook> hook(new LoggingTensorHook);
  for (auto& [tag, name] : tensors) hook->tensors_[tag] = WithSlot(name);
  if (by_iter) hook->timer_ = SecondOrStepTimer::EverySteps(every_n_iter);
  if (by_secs) hook->timer_ = SecondOrStepTimer::EverySeconds(every_n_secs);
  hook->at_end_ = at_end;
  hook->formatter_ = std::move(formatter);
  return hook;
}

Status LoggingTensorHook::Begin(HookEnvironment& env) {
  env_ = env;
  return OkStatus();
}

StatusOr<SessionRunArgs> LoggingTensorHook::BeforeRun(SessionRunContext&) {
  triggered_ = timer_ && timer_->ShouldTriggerForStep(iter_);
  SessionRunArgs args;
  if (triggered_)
    for (const auto& [tag, name] : tensors_) args.fetches.push_back(name);
  return args;
}

Status LoggingTensorHook::AfterRun(SessionRunContext&, const SessionRunValues& values) {
  if (triggered_) {
    std::map<std::string, Tensor> named;
    size_t i = 0;
    for (const auto& [tag, name] : tensors_) named[tag] = values.results[i++];
    auto elapsed = timer_->UpdateLastTriggeredStep(iter_);
    Log(named, elapsed ? std::optional<double>(elapsed->first) : std::nullopt);
  }
  ++iter_;
  return OkStatus();
}

Status LoggingTensorHook::End(Session& session) {
  if (!at_end_) return OkStatus();
  std::vector<std::string> fetches;
  for (const auto& [tag, name] : tensors_) fetches.push_back(name);
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(session.Run({}, fetches, {}, &out));
  std::map<std::string, Tensor> named;
  size_t i = 0;
  for (const auto& [tag, name] : tensors_) named[tag] = out[i++];
  Log(named, std::nullopt);
  return OkStatus();
}

std::string LoggingTensorHook::Format(const std::map<std::string, Tensor>& values,
                                      std::optional<double> elapsed) const {
  if (formatter_) return formatter_(values);
  std::string text;
  for (const auto& [tag, value] : values) {
    if (!text.empty()) text += ", ";
    text += tag + " = " + value.DebugString();
  }
  if (elapsed) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), " (%.3f sec)", *elapsed);
    text += buf;
  }
  return text;
}

void LoggingTensorHook::Log(const std::map<std::string, Tensor>& values, std::optional<double> elapsed) {
  std::map<std::string, double> numbers;
  for (const auto& [tag, value] : values) {
    if (value.NumElements() != 1 || !value.OnHost()) continue;
    CLAB_SWITCH_POD_TYPES(value.dtype(), T, numbers[tag] = static_cast<double>(value.data<T>()[0]), {});
  }
  env_.log->Hook(name(), LogLevel::kInfo, Format(values, elapsed), numbers);
}

}  // namespace clab
