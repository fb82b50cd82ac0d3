#include "clab/train/TrainingEvents.h"

#include "clab/io/EventFileWriter.h"

#include <cstdio>

namespace clab {

TrainingLog::TrainingLog(std::string task, bool print) : task_(std::move(task)), print_(print) {}

void TrainingLog::AddSink(EventSink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sinks_.push_back(std::move(sink));
}

void TrainingLog::Print(LogLevel level, const std::string& text) {
  if (!print_) return;
  const char* name = level == LogLevel::kError ? "ERROR" : level == LogLevel::kWarning ? "WARNING" : "INFO";
  std::fprintf(stderr, "%s:clab:%s\n", name, text.c_str());
}

void TrainingLog::Emit(TaskEvent event) {
  std::vector<EventSink> sinks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    event.set_seq(++seq_);
    sinks = sinks_;
  }
  if (event.wall_time() == 0) event.set_wall_time(WallTimeSeconds());
  if (event.task().empty()) event.set_task(task_);
  for (const auto& sink : sinks) sink(event);
}

void TrainingLog::Hook(const std::string& hook, LogLevel level, const std::string& text,
                       const std::map<std::string, double>& values, int64_t global_step) {
  Print(level, text);
  TaskEvent event;
  auto* h = event.mutable_hook();
  h->set_hook(hook);
  h->set_level(static_cast<int>(level));
  h->set_text(text);
  for (const auto& [k, v] : values) (*h->mutable_values())[k] = v;
  h->set_global_step(global_step);
  Emit(std::move(event));
}

void TrainingLog::Log(LogLevel level, const std::string& text) {
  Print(level, text);
  TaskEvent event;
  event.mutable_log()->set_level(static_cast<int>(level));
  event.mutable_log()->set_text(text);
  Emit(std::move(event));
}

void TrainingLog::State(TaskState::Phase phase, const std::string& detail,
                        const std::vector<std::string>& uninitialized) {
  TaskEvent event;
  auto* s = event.mutable_state();
  s->set_phase(phase);
  s->set_detail(detail);
  for (const auto& name : uninitialized) s->add_uninitialized(name);
  Emit(std::move(event));
}

void TrainingLog::Step(int64_t global_step, int64_t local_step, int64_t duration_us) {
  TaskEvent event;
  auto* s = event.mutable_step();
  s->set_global_step(global_step);
  s->set_local_step(local_step);
  s->set_duration_us(duration_us);
  s->set_finished(true);
  Emit(std::move(event));
}

void TrainingLog::Checkpoint(const std::string& path, int64_t global_step, int64_t bytes, int variables,
                             bool restored) {
  TaskEvent event;
  auto* c = event.mutable_checkpoint();
  c->set_path(path);
  c->set_global_step(global_step);
  c->set_bytes(bytes);
  c->set_variables(variables);
  c->set_restored(restored);
  Emit(std::move(event));
}

void TrainingLog::Error(const std::string& code, const std::string& message) {
  Print(LogLevel::kError, code + ": " + message);
  TaskEvent event;
  event.mutable_error()->set_code(code);
  event.mutable_error()->set_message(message);
  Emit(std::move(event));
}

}  // namespace clab
