#include "distributed/TaskDiscovery.h"
#include "core/BoundedMillis.h"

#include "clab/core/DeviceName.h"
#include "core/LogLine.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace clab {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A task that has not started refuses connections at once; asking again soon lets the
// session start within a fraction of a second of the task coming up, without hammering it.
constexpr int64_t kFirstRetryMs = 100;
constexpr int64_t kMaxRetryMs = 1000;
// A task on an unreachable host never refuses, it just does not answer: bound each attempt.
constexpr int64_t kMinAttemptMs = 1000;
// How often a wait without any other reason to wake checks whether the server is stopping.
constexpr int64_t kStopPollMs = 100;

struct TaskProbe {
  std::string task;
  WorkerInterface* worker = nullptr;
  bool answered = false;
  bool in_flight = false;
  int failures = 0;
  Clock::time_point next_attempt;
  Status last_error;
  tensorflow::GetStatusRequest request;
  tensorflow::GetStatusResponse response;
};

// Shared with the calls in flight, which may finish after the waiter has given up.
struct DiscoveryState {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::unique_ptr<TaskProbe>> probes;
  bool cancelled = false;
};

// Wakes the waiter when its call is cancelled; deregisters when the wait ends.
class CancelWake {
 public:
  CancelWake(CallCancellation* cancellation, const std::shared_ptr<DiscoveryState>& state)
      : cancellation_(cancellation) {
    if (cancellation_ == nullptr) return;
    id_ = cancellation_->Register([state] {
      std::lock_guard<std::mutex> lock(state->mu);
      state->cancelled = true;
      state->cv.notify_all();
    });
  }
  ~CancelWake() {
    if (cancellation_ != nullptr) cancellation_->Deregister(id_);
  }
  CancelWake(const CancelWake&) = delete;
  CancelWake& operator=(const CancelWake&) = delete;

 private:
  CallCancellation* cancellation_;
  int id_ = -1;
};

void Log(const TaskDiscoveryOptions& options, const std::string& line) { WriteLogLine(options.log, line); }

std::string DescribeMissing(const TaskDiscoveryOptions& options, const TaskProbe& probe) {
  std::string text = StrCat(probe.task, " at ", options.workers->AddressOf(probe.task));
  if (!probe.last_error.ok()) {
    text += StrCat(" (", FormatStatus(probe.last_error), ")");
  } else {
    text += " (no answer yet)";
  }
  return text;
}

// "--job_name=ps --task_index=0" for the first missing task, to make the advice concrete.
std::string StartCommandFor(const std::string& task) {
  auto name = DeviceName::Parse(task);
  if (!name.ok() || !name->has_job) return "clab server --cluster=... --job_name=<job> --task_index=<i>";
  return StrCat("clab server --cluster=... --job_name=", name->job, " --task_index=", name->task);
}

Status GaveUp(const TaskDiscoveryOptions& options, const std::vector<const TaskProbe*>& missing, int64_t waited_ms) {
  std::vector<std::string> described;
  for (const TaskProbe* probe : missing) described.push_back(DescribeMissing(options, *probe));
  return errors::Unavailable(
      options.waiter, " gave up after ", waited_ms, " ms waiting for ", missing.size(),
      missing.size() == 1 ? " task" : " tasks", " of the cluster to answer: ", absl::StrJoin(described, "; "),
      ". Start the missing ", missing.size() == 1 ? "task" : "tasks", " (for example `",
      StartCommandFor(missing.front()->task),
      "`), check that the addresses in the cluster spec are right and reachable from this host, or "
      "leave out tasks this session does not need with ConfigProto.device_filters. "
      "ConfigProto.clusterlab.wait_for_tasks_ms sets how long to wait (negative: forever).");
}

}  // namespace

StatusOr<DiscoveredDevices> DiscoverTaskDevices(const std::vector<std::string>& tasks,
                                                const TaskDiscoveryOptions& options) {
  auto state = std::make_shared<DiscoveryState>();
  for (const std::string& task : tasks) {
    auto probe = std::make_unique<TaskProbe>();
    probe->task = task;
    CLAB_ASSIGN_OR_RETURN(probe->worker, options.workers->GetWorker(task));
    state->probes.push_back(std::move(probe));
  }

  const CancelWake cancel_wake(options.cancellation, state);
  const Clock::time_point start = Clock::now();
  const bool forever = options.deadline_ms < 0;
  const Clock::time_point deadline = start + BoundedMillis(options.deadline_ms);
  // From the client's config: a day at most, so that the times below cannot overflow.
  const int64_t log_interval_ms =
      options.log_interval_ms > 0 ? std::min<int64_t>(options.log_interval_ms, int64_t{24} * 3600 * 1000) : 2000;
  Clock::time_point next_log = start + milliseconds(log_interval_ms);
  const int64_t attempt_ms = std::max(kMinAttemptMs, log_interval_ms);

  std::unique_lock<std::mutex> lock(state->mu);
  while (true) {
    const Clock::time_point now = Clock::now();
    // Calls are started without the lock: a worker in this process may answer inline.
    std::vector<TaskProbe*> to_start;
    std::vector<const TaskProbe*> missing;
    Clock::time_point wake = next_log;
    for (auto& probe : state->probes) {
      if (probe->answered) continue;
      missing.push_back(probe.get());
      if (!probe->in_flight && probe->next_attempt <= now) {
        probe->in_flight = true;
        to_start.push_back(probe.get());
      } else if (!probe->in_flight) {
        wake = std::min(wake, probe->next_attempt);
      }
    }
    if (missing.empty()) break;
    if (options.stopping && options.stopping->load())
      return errors::Aborted(options.waiter, " was interrupted: the server is stopping");
    if (state->cancelled)
      return errors::Cancelled(options.waiter, " was cancelled by its client after ",
                               std::chrono::duration_cast<milliseconds>(now - start).count(),
                               " ms of waiting for the tasks of the cluster");
    if (!forever && now >= deadline) {
      if (!options.partial_ok) {
        return GaveUp(options, missing, std::chrono::duration_cast<milliseconds>(now - start).count());
      }
      DiscoveredDevices partial;
      for (auto& probe : state->probes) {
        if (probe->answered) {
          partial.by_task[probe->task].assign(probe->response.device_attributes().begin(),
                                              probe->response.device_attributes().end());
        } else {
          partial.missing.push_back(probe->task);
        }
      }
      return partial;
    }
    if (now >= next_log) {
      for (const TaskProbe* probe : missing)
        Log(options, StrCat(options.waiter, " still waiting for response from worker: ", probe->task, " at ",
                            options.workers->AddressOf(probe->task)));
      while (next_log <= now) next_log += milliseconds(log_interval_ms);
      wake = std::min(wake, next_log);
    }

    if (!to_start.empty()) {
      lock.unlock();
      for (TaskProbe* probe : to_start) {
        int64_t call_ms = attempt_ms;
        if (!forever)
          call_ms = std::clamp<int64_t>(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count(), 1,
                                        attempt_ms);
        probe->worker->GetStatusAsync(probe->request, &probe->response, call_ms, [state, probe](const Status& status) {
          std::lock_guard<std::mutex> guard(state->mu);
          probe->in_flight = false;
          if (status.ok()) {
            probe->answered = true;
          } else {
            probe->last_error = status;
            const int64_t delay = std::min(kMaxRetryMs, kFirstRetryMs << std::min(probe->failures, 4));
            ++probe->failures;
            probe->next_attempt = Clock::now() + milliseconds(delay);
          }
          state->cv.notify_all();
        });
      }
      lock.lock();
      continue;
    }

    if (!forever) wake = std::min(wake, deadline);
    if (options.stopping) wake = std::min(wake, Clock::now() + milliseconds(kStopPollMs));
    state->cv.wait_until(lock, wake);
  }

  DiscoveredDevices found;
  for (auto& probe : state->probes)
    found.by_task[probe->task].assign(probe->response.device_attributes().begin(),
                                      probe->response.device_attributes().end());
  return found;
}

}  // namespace clab
