#include "run/StepRunner.h"

#include "platform/SimPlatform.h"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>

namespace clab::sim {
namespace {

namespace sg4 = simgrid::s4u;

sg4::ExecPtr StartExec(sg4::Host* cpu, double flops, int threads) {
  sg4::ExecPtr exec = sg4::Exec::init();
  exec->set_flops_amount(flops);
  exec->set_host(cpu);
  if (threads > 1) exec->set_thread_count(threads);
  exec->start();
  return exec;
}

}  // namespace

StepRunner::~StepRunner() {
  for (sg4::ExecPtr& exec : background_) exec->wait();
}

void StepRunner::StartBackground(const SimActivity& a) {
  // Drop those that have ended, so that the list stays short.
  background_.erase(
      std::remove_if(background_.begin(), background_.end(), [](const sg4::ExecPtr& exec) { return exec->test(); }),
      background_.end());
  background_.push_back(StartExec(a.cpu, a.background, a.threads));
  if (a.task_index >= 0)
    tasks_->cpu_seconds[static_cast<size_t>(a.task_index)] += a.background * a.threads / kReferenceFlops;
  recorder_->Work(a.cpu, a.background * a.threads, sg4::Engine::get_clock(), sg4::Engine::get_clock());
}

double StepRunner::WakeDelay(const SimActivity& message) const {
  if (busy_wake_latency_ <= 0 || message.wakes == nullptr) return 0;
  const double cores = message.wakes->get_core_count();
  const double busy = message.wakes->get_load() / message.wakes->get_speed();
  return busy_wake_latency_ * std::clamp(busy / cores, 0.0, 1.0);
}

StepOutcome StepRunner::Run(const std::vector<SimActivity>& plan, double factor, const std::string& trace_task) {
  const double begin = sg4::Engine::get_clock();
  const size_t n = plan.size();
  std::vector<int> waiting(n, 0);
  std::vector<std::vector<int>> users(n);
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = static_cast<int>(plan[i].after.size());
    for (int on : plan[i].after) users[static_cast<size_t>(on)].push_back(static_cast<int>(i));
  }
  std::vector<double> start(n, begin), end(n, begin), amount(n, 0);
  std::vector<sg4::ActivityPtr> active;
  std::vector<int> index_of_active;
  // Messages that have arrived whose receiver is not awake yet: (when it is, which).
  std::vector<std::pair<double, int>> waking;
  auto launch = [&](int i) {
    const SimActivity& a = plan[static_cast<size_t>(i)];
    const size_t k = static_cast<size_t>(i);
    start[k] = sg4::Engine::get_clock();
    if (a.message) {
      amount[k] = a.amount;
      active.push_back(sg4::Comm::sendto_async(a.from, a.to, static_cast<uint64_t>(a.amount)));
    } else {
      amount[k] = a.jitters ? a.amount * factor : a.amount;
      if (a.saving > 0) {
        ++tasks_->served_calls;
        if (tasks_->running[static_cast<size_t>(a.task_index)] > 0) {
          ++tasks_->awake_calls;
          amount[k] = std::max(0.0, amount[k] - a.saving);
        }
      }
      if (a.task_index >= 0) ++tasks_->running[static_cast<size_t>(a.task_index)];
      if (a.background > 0) StartBackground(a);
      active.push_back(StartExec(a.cpu, amount[k], a.threads));
    }
    index_of_active.push_back(i);
  };
  auto arrived = [&](size_t k) {
    for (int user : users[k])
      if (--waiting[static_cast<size_t>(user)] == 0) launch(user);
  };
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) launch(static_cast<int>(i));
  int last = n > 0 ? 0 : -1;
  while (!active.empty() || !waking.empty()) {
    const double next_wake =
        waking.empty() ? -1 : std::min_element(waking.begin(), waking.end())->first - sg4::Engine::get_clock();
    ssize_t done = -1;
    if (active.empty()) {
      sg4::this_actor::sleep_for(std::max(0.0, next_wake));
    } else {
      done = sg4::Activity::wait_any_for(active, waking.empty() ? -1.0 : std::max(0.0, next_wake));
    }
    const double now = sg4::Engine::get_clock();
    if (done >= 0 && static_cast<size_t>(done) < active.size()) {
      const int i = index_of_active[static_cast<size_t>(done)];
      active.erase(active.begin() + done);
      index_of_active.erase(index_of_active.begin() + done);
      const size_t k = static_cast<size_t>(i);
      end[k] = now;
      const SimActivity& a = plan[k];
      if (a.message) {
        recorder_->Message(a.from, a.to, a.amount, start[k], now);
      } else {
        recorder_->Work(a.cpu, amount[k] * a.threads, start[k], now);
        if (a.task_index >= 0) {
          --tasks_->running[static_cast<size_t>(a.task_index)];
          tasks_->cpu_seconds[static_cast<size_t>(a.task_index)] += amount[k] * a.threads / kReferenceFlops;
        }
      }
      if (!trace_task.empty())
        recorder_->Span(a.worker_compute ? trace_task : a.task,
                        a.message ? "calls" : (a.worker_compute ? "step" : "serves"), a.label, start[k], now);
      if (now >= end[static_cast<size_t>(last)]) last = i;
      const double delay = a.message ? WakeDelay(a) : 0;
      if (delay > 0) {
        waking.emplace_back(now + delay, i);
      } else {
        arrived(k);
      }
    }
    // Receivers that are awake by now.
    for (size_t w = 0; w < waking.size();) {
      if (waking[w].first <= sg4::Engine::get_clock() + 1e-12) {
        const size_t k = static_cast<size_t>(waking[w].second);
        waking.erase(waking.begin() + static_cast<ssize_t>(w));
        arrived(k);
      } else {
        ++w;
      }
    }
  }
  StepOutcome outcome;
  outcome.seconds = sg4::Engine::get_clock() - begin;
  // Back along the critical path: each activity's latest-ending predecessor.
  for (int i = last; i >= 0;) {
    const SimActivity& a = plan[static_cast<size_t>(i)];
    const double spent = end[static_cast<size_t>(i)] - start[static_cast<size_t>(i)];
    if (a.message) outcome.transfer += spent;
    if (a.worker_compute) outcome.compute += spent;
    int previous = -1;
    for (int on : a.after)
      if (previous < 0 || end[static_cast<size_t>(on)] > end[static_cast<size_t>(previous)]) previous = on;
    i = previous;
  }
  return outcome;
}

}  // namespace clab::sim
