#include "model/StepModel.h"

#include "model/OpCosts.h"
#include "platform/PlatformSpec.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <deque>
#include <set>

namespace clab::sim {
namespace {

using Key = std::vector<int>;  // the transfers a stage waits for

struct Stage {
  std::string task;
  Key waits;
  double seconds = 0;
  int part = 1;  // 2: the second part of a cut ps partition
};

// Activities by name while the graph is made; sorted and numbered at the end.
class Builder {
 public:
  StepActivity& Add(const std::string& id, StepActivity activity) {
    auto [it, inserted] = activities_.try_emplace(id, std::move(activity));
    if (inserted) order_.push_back(id);
    return it->second;
  }
  bool Has(const std::string& id) const { return activities_.count(id) > 0; }
  StepActivity& Get(const std::string& id) { return activities_.at(id); }
  void Depend(const std::string& id, const std::string& on) {
    if (id != on) deps_[id].insert(on);
  }
  StatusOr<std::vector<StepActivity>> Sorted() {
    std::map<std::string, int> waiting;
    std::map<std::string, std::vector<std::string>> users;
    for (const std::string& id : order_) {
      waiting[id] = 0;
      for (const std::string& on : deps_[id]) {
        if (!activities_.count(on)) return errors::Internal("the step's model waits for an unknown activity ", on);
        ++waiting[id];
        users[on].push_back(id);
      }
    }
    std::deque<std::string> ready;
    for (const std::string& id : order_)
      if (waiting[id] == 0) ready.push_back(id);
    std::map<std::string, int> index;
    std::vector<StepActivity> sorted;
    while (!ready.empty()) {
      const std::string id = ready.front();
      ready.pop_front();
      index[id] = static_cast<int>(sorted.size());
      StepActivity activity = activities_.at(id);
      for (const std::string& on : deps_[id]) activity.after.push_back(index.at(on));
      sorted.push_back(std::move(activity));
      for (const std::string& user : users[id])
        if (--waiting[user] == 0) ready.push_back(user);
    }
    if (sorted.size() != order_.size()) return errors::Internal("the step's model has a cycle");
    return sorted;
  }

 private:
  std::map<std::string, StepActivity> activities_;
  std::vector<std::string> order_;
  std::map<std::string, std::set<std::string>> deps_;
};

std::string KeyText(const Key& key) { return absl::StrJoin(key, ","); }
std::string StageId(const std::string& task, const Key& key) {
  return absl::StrCat("stage ", task, " [", KeyText(key), "]");
}
std::string PartId(const std::string& task, int part) { return absl::StrCat(task, " part ", part); }

StepActivity Compute(const std::string& task, double seconds, const std::string& label) {
  StepActivity a;
  a.kind = StepActivity::Kind::kCompute;
  a.task = task;
  a.seconds = seconds;
  a.label = label;
  return a;
}

StepActivity Message(const std::string& from, const std::string& to, int64_t bytes, const std::string& label) {
  StepActivity a;
  a.kind = StepActivity::Kind::kMessage;
  a.task = from;
  a.to = to;
  a.bytes = bytes;
  a.label = label;
  return a;
}

}  // namespace

int64_t StepModel::BytesPerStep() const {
  int64_t bytes = 0;
  for (const StepActivity& a : activities)
    if (a.kind == StepActivity::Kind::kMessage && (a.task == worker_task || a.to == worker_task)) bytes += a.bytes;
  return bytes;
}

int StepModel::CallsPerStep() const {
  int calls = 0;
  for (const StepActivity& a : activities)
    if (a.kind == StepActivity::Kind::kMessage && a.label.find("request") != std::string::npos) ++calls;
  return calls;
}

double StepModel::WorkerSeconds() const {
  double seconds = 0;
  for (const StepActivity& a : activities)
    if (a.kind == StepActivity::Kind::kCompute && a.task == worker_task) seconds += a.seconds;
  return seconds;
}

double StepModel::OtherSeconds() const {
  double seconds = 0;
  for (const StepActivity& a : activities)
    if (a.kind == StepActivity::Kind::kCompute && a.task != worker_task) seconds += a.seconds;
  return seconds;
}

int StepModel::MessagesInSequence() const {
  std::vector<int> longest(activities.size(), 0);
  int most = 0;
  for (size_t i = 0; i < activities.size(); ++i) {
    for (int on : activities[i].after) longest[i] = std::max(longest[i], longest[static_cast<size_t>(on)]);
    if (activities[i].kind == StepActivity::Kind::kMessage) ++longest[i];
    most = std::max(most, longest[i]);
  }
  return most;
}

std::vector<std::string> StepModel::CalledTasks() const {
  std::vector<std::string> tasks;
  for (const StepActivity& a : activities)
    for (const std::string* task : {&a.task, &a.to})
      if (!task->empty() && *task != worker_task && std::find(tasks.begin(), tasks.end(), *task) == tasks.end())
        tasks.push_back(*task);
  return tasks;
}

StatusOr<StepModel> BuildStepModel(const StepPlan& step, const Calibration& c) {
  const OpCosts costs(c);
  const RpcCosts& rpc = c.rpc;
  const std::string& worker = step.session_task;
  StepModel model;
  model.worker_task = worker;
  model.idle_seconds = c.step_idle_seconds;
  model.jitter = c.jitter;
  model.latency = rpc.latency;
  model.call_server_seconds = rpc.server_seconds;
  model.awake_saving_seconds = std::min(rpc.awake_saving_seconds, rpc.server_seconds);
  model.busy_wake_latency = rpc.busy_wake_latency;

  // Each task's stages: its nodes grouped by the transfers they wait for.
  std::map<std::string, std::map<Key, Stage>> stages;
  for (const PlanNode& node : step.nodes) {
    Stage& stage = stages[node.task][node.waits_for];
    stage.task = node.task;
    stage.waits = node.waits_for;
    if (node.IsTransfer()) continue;
    (costs.Traced(node) ? model.traced_nodes : model.modelled_nodes) += 1;
    stage.seconds += costs.Seconds(node);
  }
  for (const PlanTransfer& t : step.transfers) {
    for (const auto& [task, key] : {std::pair{t.from_task, t.waits_for}, std::pair{t.to_task, Key{}}}) {
      Stage& stage = stages[task][key];
      stage.task = task;
      stage.waits = key;
    }
  }
  const auto& transfers = step.transfers;
  // How the engine calls each other task's partition: whole, inlining its sends to the worker
  // when it receives nothing, or cut in two when it waits for the worker alone.
  std::map<std::string, bool> cut, inlines;
  for (const auto& [task, task_stages] : stages) {
    if (task == worker) continue;
    std::set<std::string> senders;
    bool early_small = true;
    for (const PlanTransfer& t : transfers) {
      if (t.to_task == task) senders.insert(t.from_task);
      if (t.from_task == task && t.to_task == worker && (!t.waits_for.empty() || t.bytes > kInlineSendBytes))
        early_small = false;
    }
    inlines[task] = senders.empty();
    cut[task] = senders == std::set<std::string>{worker} && early_small && task_stages.count(Key{}) > 0 &&
                task_stages.size() > 1;
    if (cut[task])
      for (auto& [key, stage] : stages[task]) stage.part = key.empty() ? 1 : 2;
  }
  // Where a transfer arrives: with a RunGraph reply (inlined), with a RunGraph request
  // (pushed), or by a RecvTensor call of its own.
  auto inlined = [&](const PlanTransfer& t) {
    return t.to_task == worker && t.bytes <= kInlineSendBytes &&
           (inlines[t.from_task] || (cut[t.from_task] && t.waits_for.empty()));
  };
  auto pushed = [&](const PlanTransfer& t) { return t.from_task == worker && cut[t.to_task]; };

  Builder b;
  int worker_calls = 0;
  int64_t worker_bytes = 0;
  const std::string start = "start";
  b.Add(start, Compute(worker, 0, TaskLabel(worker) + ": client (hooks, session, master)"));
  for (const auto& [task, task_stages] : stages) {
    for (const auto& [key, stage] : task_stages) {
      const std::string id = StageId(task, key);
      StepActivity& a =
          b.Add(id, Compute(task, stage.seconds,
                            absl::StrCat(TaskLabel(task), key.empty() ? ": run" : ": run after its inputs")));
      a.worker_compute = task == worker;
      b.Depend(id, start);
    }
    if (task == worker) continue;
    std::set<int> parts;
    for (const auto& [key, stage] : task_stages) parts.insert(stage.part);
    for (int part : parts) {
      const std::string request = PartId(task, part) + " request", reply = PartId(task, part) + " reply";
      b.Add(request, Message(worker, task, 0, absl::StrCat("RunGraph request to ", TaskLabel(task))));
      b.Add(reply, Message(task, worker, 0, absl::StrCat("RunGraph reply from ", TaskLabel(task))));
      b.Depend(request, start);
      ++worker_calls;
      ++model.server_calls;
      // The partition's first stage also serves the call.
      bool first = true;
      for (const auto& [key, stage] : task_stages) {
        if (stage.part != part) continue;
        const std::string id = StageId(task, key);
        b.Depend(id, request);
        b.Depend(reply, id);
        if (first) {
          b.Get(id).seconds += rpc.server_seconds;
          b.Get(id).background += rpc.server_background_seconds;
          b.Get(id).serves_call = true;
          first = false;
        }
      }
    }
  }
  // A stage that waits for more than another of its part may use what that one made.
  for (const auto& [task, task_stages] : stages)
    for (const auto& [key, stage] : task_stages)
      for (const auto& [earlier, other] : task_stages)
        if (other.part == stage.part && earlier.size() < key.size() &&
            std::includes(key.begin(), key.end(), earlier.begin(), earlier.end()))
          b.Depend(StageId(task, key), StageId(task, earlier));
  for (size_t i = 0; i < transfers.size(); ++i) {
    const PlanTransfer& t = transfers[i];
    const int64_t bytes = t.bytes;
    const std::string made = StageId(t.from_task, t.waits_for);
    const Stage& sender = stages[t.from_task][t.waits_for];
    std::string arrival;
    if (t.from_task == worker || t.to_task == worker) worker_bytes += bytes;
    if (inlined(t)) {
      arrival = PartId(t.from_task, sender.part) + " reply";
      b.Get(arrival).bytes += bytes;
      b.Get(arrival).tensors.insert(b.Get(arrival).tensors.end(), t.tensors.begin(), t.tensors.end());
      b.Get(made).seconds += static_cast<double>(bytes) * rpc.seconds_per_byte;
    } else if (pushed(t)) {
      arrival = PartId(t.to_task, 2) + " request";
      b.Get(arrival).bytes += bytes;
      b.Get(arrival).tensors.insert(b.Get(arrival).tensors.end(), t.tensors.begin(), t.tensors.end());
      b.Depend(arrival, made);
    } else {
      // The receiver asks the sender once its partition runs; the sender answers once the
      // tensor exists.
      const std::string id = absl::StrCat("transfer ", i);
      const std::string receiver_started =
          t.to_task == worker ? start : PartId(t.to_task, stages[t.to_task][Key{}].part) + " request";
      b.Add(id + " request",
            Message(t.to_task, t.from_task, 0, absl::StrCat("RecvTensor request to ", TaskLabel(t.from_task))));
      StepActivity& serve = b.Add(
          id + " serve", Compute(t.from_task, rpc.server_seconds + static_cast<double>(bytes) * rpc.seconds_per_byte,
                                 absl::StrCat(TaskLabel(t.from_task), ": serve RecvTensor")));
      serve.background = rpc.server_background_seconds;
      serve.worker_compute = t.from_task == worker;
      serve.serves_call = t.from_task != worker;
      StepActivity& reply =
          b.Add(id + " reply",
                Message(t.from_task, t.to_task, bytes, absl::StrCat("RecvTensor reply from ", TaskLabel(t.from_task))));
      reply.tensors = t.tensors;
      b.Depend(id + " request", receiver_started);
      b.Depend(id + " serve", id + " request");
      b.Depend(id + " serve", made);
      b.Depend(id + " reply", id + " serve");
      arrival = id + " reply";
      if (t.from_task != worker) ++model.server_calls;
      if (t.to_task == worker) {
        ++worker_calls;
      } else {
        // The receiving task's client side of the call.
        b.Get(StageId(t.to_task, Key{})).seconds += rpc.client_seconds;
      }
    }
    // Whatever waits for this transfer on the receiving side.
    for (const auto& [key, stage] : stages[t.to_task])
      if (std::find(key.begin(), key.end(), static_cast<int>(i)) != key.end())
        b.Depend(StageId(t.to_task, key), arrival);
  }
  StepActivity& client = b.Get(start);
  client.seconds = c.step_client_seconds + worker_calls * rpc.client_seconds +
                   static_cast<double>(worker_bytes) * rpc.seconds_per_byte;
  client.background = c.step_background_seconds;
  client.worker_compute = true;
  CLAB_ASSIGN_OR_RETURN(model.activities, b.Sorted());
  for (const auto& [task, task_stages] : stages) {
    if (task == worker) continue;
    for (const auto& [key, stage] : task_stages)
      if (!key.empty()) model.apply_seconds[task] += stage.seconds;
  }
  return model;
}

}  // namespace clab::sim
