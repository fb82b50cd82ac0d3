#include "run/ClusterSimulation.h"

#include "platform/SimPlatform.h"
#include "run/ActivityRecorder.h"
#include "run/StepRunner.h"

#include <absl/strings/str_cat.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

namespace clab::sim {
namespace {

namespace sg4 = simgrid::s4u;

struct StepRecord {
  double start = 0, end = 0, compute = 0, transfer = 0, waiting = 0;
};

// What every actor of one simulation shares.
struct Cluster {
  const StepModel* model = nullptr;
  const BoundPlatform* bound = nullptr;
  SimulationConfig config;
  SimPlatform* platform = nullptr;
  ActivityRecorder* recorder = nullptr;
  TaskActivity* tasks = nullptr;
  std::map<std::string, size_t> task_index;
  std::vector<size_t> worker_tasks;
  std::vector<std::vector<StepRecord>> steps;  // per worker
  // Synchronous replicas.
  sg4::Mailbox* gradients = nullptr;  // the chief's aggregation hears of each worker's gradients
  sg4::Mailbox* release = nullptr;    // the token queue's ps hears that a step was applied
  std::vector<sg4::Mailbox*> tokens;  // each worker waits for its token
  size_t token_task = 0;
  double step_estimate = 0;  // a step alone on the platform: the range of the workers' starts
};

int kPayload = 0;  // mailboxes carry no data of their own: the bytes are what the flows model

double Flops(double seconds) { return std::max(seconds, 0.0) * kReferenceFlops; }

// The step's activities as `worker` (an index into bound->tasks) plays them: its own work on
// its CPU, the other tasks' on theirs, messages between their hosts. A group of workers does
// its members' work at once (on as many cores as they can use) and moves their bytes.
std::vector<SimActivity> Plan(const Cluster& c, size_t worker) {
  const int m = c.bound->Multiplicity(worker);
  const StepModel& model = *c.model;
  auto index_of = [&](const std::string& task) { return task == model.worker_task ? worker : c.task_index.at(task); };
  std::vector<SimActivity> plan;
  for (const StepActivity& a : model.activities) {
    SimActivity s;
    s.after = a.after;
    s.label = a.label;
    s.worker_compute = a.worker_compute;
    const size_t task = index_of(a.task);
    s.task = c.bound->tasks[task];
    if (a.kind == StepActivity::Kind::kMessage) {
      s.message = true;
      const size_t to = index_of(a.to);
      const double bytes = static_cast<double>(a.bytes + kCallOverheadBytes);
      // A message within both limiters' buckets passes them at once.
      const bool bursts = c.platform->burst_host(task) && c.platform->burst_host(to) &&
                          bytes <= std::min(c.platform->burst(task), c.platform->burst(to));
      s.from = bursts ? c.platform->burst_host(task) : c.platform->net_host(task);
      s.to = bursts ? c.platform->burst_host(to) : c.platform->net_host(to);
      s.wakes = c.platform->cpu_host(to);
      s.amount = static_cast<double>(m) * bytes;
    } else {
      s.cpu = c.platform->cpu_host(task);
      s.task_index = static_cast<int>(task);
      s.threads = std::max(1, std::min(m, s.cpu->get_core_count()));
      // SimGrid counts an execution's FLOPs per thread.
      s.amount = m * Flops(a.seconds) / s.threads;
      s.background = m * Flops(a.background) / s.threads;
      s.jitters = a.worker_compute;
      if (a.serves_call) s.saving = m * Flops(model.awake_saving_seconds) / s.threads;
    }
    plan.push_back(std::move(s));
  }
  return plan;
}

// SyncReplicas' aggregation step on the chief: each ps applies the mean gradient.
std::vector<SimActivity> ApplyPlan(const Cluster& c, size_t chief) {
  std::vector<SimActivity> plan;
  sg4::Host* from = c.platform->net_host(chief);
  for (const auto& [task, seconds] : c.model->apply_seconds) {
    const size_t ps = c.task_index.at(task);
    const int base = static_cast<int>(plan.size());
    SimActivity request, apply, reply;
    request.message = reply.message = true;
    request.from = reply.to = from;
    request.to = reply.from = c.platform->net_host(ps);
    request.wakes = apply.cpu;
    reply.wakes = c.platform->cpu_host(chief);
    request.amount = reply.amount = kCallOverheadBytes;
    request.task = c.bound->tasks[chief];
    apply.task = reply.task = task;
    request.label = "RunGraph request: apply the mean gradient";
    reply.label = "RunGraph reply";
    apply.label = TaskLabel(task) + ": apply the mean gradient";
    apply.cpu = c.platform->cpu_host(ps);
    apply.task_index = static_cast<int>(ps);
    apply.amount = Flops(seconds + c.model->call_server_seconds);
    apply.after = {base};
    reply.after = {base + 1};
    plan.push_back(request);
    plan.push_back(apply);
    plan.push_back(reply);
  }
  return plan;
}

// A step's length on an idle platform, roughly: its CPU and its bytes over the slowest link.
double EstimatedStepSeconds(const StepModel& model, const PlatformSpec& platform) {
  double seconds = model.idle_seconds;
  double slowest = platform.host.link.bandwidth;
  for (const HostSpec& host : platform.hosts) slowest = std::min(slowest, host.link.bandwidth);
  for (const StepActivity& a : model.activities)
    seconds +=
        a.kind == StepActivity::Kind::kCompute
            ? a.seconds
            : static_cast<double>(a.bytes + kCallOverheadBytes) / (slowest * platform.payload_fraction) + model.latency;
  return seconds;
}

// A normal deviate from the worker's own stream (Box-Muller, so that it is the same
// everywhere, unlike std::normal_distribution).
double Normal(std::mt19937_64& rng) {
  const double u1 = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
  const double u2 = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;
  return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

void WorkerActor(Cluster* c, int w) {
  const size_t task = c->worker_tasks[static_cast<size_t>(w)];
  const std::string& name = c->bound->tasks[task];
  const StepModel& model = *c->model;
  std::mt19937_64 rng(c->config.seed * 1000003ULL + static_cast<uint64_t>(w));
  const std::vector<SimActivity> plan = Plan(*c, task);
  StepRunner runner(c->recorder, c->tasks, c->model->busy_wake_latency);
  // Workers do not start together: the others wait for the chief to initialise the model,
  // and each then starts when it is ready, at no particular point of the chief's step. A
  // start anywhere within one step keeps identical workers from moving in lockstep (all
  // reading the weights at once, then all sending gradients at once).
  if (w > 0) {
    const double u = static_cast<double>(rng() >> 11) / 9007199254740992.0;
    sg4::this_actor::sleep_for(u * c->step_estimate);
  }
  for (int step = 0; step < c->config.steps; ++step) {
    const bool traced = w < c->config.trace_workers && step < c->config.trace_steps;
    StepRecord record;
    record.start = sg4::Engine::get_clock();
    const double factor = std::clamp(1 + model.jitter * Normal(rng), 0.5, 2.0);
    const StepOutcome outcome = runner.Run(plan, factor, traced ? name : "");
    const double ran = sg4::Engine::get_clock();
    if (c->config.sync) {
      c->gradients->put(&kPayload, kCallOverheadBytes);
      c->tokens[static_cast<size_t>(w)]->get<int>();
    }
    if (model.idle_seconds > 0) sg4::this_actor::sleep_for(model.idle_seconds);
    record.end = sg4::Engine::get_clock();
    record.compute = outcome.compute;
    record.transfer = outcome.transfer;
    record.waiting = (record.end - record.start) - record.compute - record.transfer;
    if (traced && c->config.sync) c->recorder->Span(name, "step", "wait for the other workers", ran, record.end);
    c->steps[static_cast<size_t>(w)].push_back(record);
  }
}

// SyncReplicas' aggregation on the chief: all the gradients in, each ps applies their mean.
void AggregatorActor(Cluster* c) {
  const size_t chief = c->worker_tasks[0];
  const std::vector<SimActivity> plan = ApplyPlan(*c, chief);
  StepRunner runner(c->recorder, c->tasks, c->model->busy_wake_latency);
  for (int step = 0; step < c->config.steps; ++step) {
    for (size_t w = 0; w < c->worker_tasks.size(); ++w) c->gradients->get<int>();
    runner.Run(plan, 1.0, step < c->config.trace_steps ? c->bound->tasks[chief] : "");
    c->release->put(&kPayload, kCallOverheadBytes);
  }
}

// The ps holding the token queue: one token per worker for each applied step.
void TokenQueueActor(Cluster* c) {
  for (int step = 0; step < c->config.steps; ++step) {
    c->release->get<int>();
    std::vector<sg4::CommPtr> sent;
    for (sg4::Mailbox* mailbox : c->tokens) sent.push_back(mailbox->put_async(&kPayload, kCallOverheadBytes));
    sg4::Comm::wait_all(sent);
  }
}

}  // namespace

StatusOr<SimulationResult> RunClusterSimulation(const SimulationInput& input) {
  const auto wall_start = std::chrono::steady_clock::now();
  const BoundPlatform& bound = *input.bound;
  const std::string bandwidth_factor =
      absl::StrCat("--cfg=network/bandwidth-factor:", input.platform->payload_fraction);
  // SimGrid's TCP model (LV08) with the calibrated latencies as they are (no latency factor),
  // the payload share of the links' rate as the bandwidth factor, and without its cross
  // traffic term: with many request-reply flows through one NIC, it leaves the NIC idle a
  // third of the time where TCP's acknowledgements (2-3% of the reverse direction) do not.
  std::vector<std::string> args = {"clab-simulate",  "--log=root.thres:critical",    "--cfg=network/latency-factor:1",
                                   bandwidth_factor, "--cfg=network/crosstraffic:0", "--cfg=contexts/stack-size:256"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());
  CLAB_ASSIGN_OR_RETURN(SimPlatform platform, SimPlatform::Build(*input.platform, bound, input.model->latency));
  ActivityRecorder recorder(&platform);
  TaskActivity tasks(bound.tasks.size());

  Cluster cluster;
  cluster.model = input.model;
  cluster.bound = input.bound;
  cluster.config = input.config;
  cluster.platform = &platform;
  cluster.recorder = &recorder;
  cluster.tasks = &tasks;
  for (size_t t = 0; t < bound.tasks.size(); ++t) {
    cluster.task_index[bound.tasks[t]] = t;
    if (bound.tasks[t].rfind("/job:worker/", 0) == 0) cluster.worker_tasks.push_back(t);
  }
  if (cluster.worker_tasks.empty()) return errors::InvalidArgument("the simulated cluster has no worker");
  for (const std::string& task : input.model->CalledTasks())
    if (!cluster.task_index.count(task))
      return errors::InvalidArgument("the step involves ", task, ", which the simulated cluster does not have");
  cluster.steps.resize(cluster.worker_tasks.size());
  cluster.step_estimate = EstimatedStepSeconds(*input.model, *input.platform);
  const int workers = static_cast<int>(cluster.worker_tasks.size());
  for (int w = 0; w < workers; ++w) {
    const size_t task = cluster.worker_tasks[static_cast<size_t>(w)];
    sg4::Actor::create(TaskLabel(bound.tasks[task]), platform.net_host(task), WorkerActor, &cluster, w);
  }
  if (input.config.sync && !input.model->apply_seconds.empty()) {
    cluster.gradients = sg4::Mailbox::by_name("gradients");
    cluster.release = sg4::Mailbox::by_name("release");
    for (int w = 0; w < workers; ++w) cluster.tokens.push_back(sg4::Mailbox::by_name(absl::StrCat("token ", w)));
    cluster.token_task = cluster.task_index.at(input.model->apply_seconds.begin()->first);
    sg4::Actor::create("sync", platform.net_host(cluster.worker_tasks[0]), AggregatorActor, &cluster)->daemonize();
    sg4::Actor::create("tokens", platform.net_host(cluster.token_task), TokenQueueActor, &cluster)->daemonize();
  } else {
    cluster.config.sync = false;
  }
  engine.run();

  SimulationResult result;
  result.config = input.config;
  result.simulated_seconds = sg4::Engine::get_clock();
  result.bytes_per_step = input.model->BytesPerStep();
  result.calls_per_step = input.model->CallsPerStep();
  for (int w = 0; w < workers; ++w) {
    const std::vector<StepRecord>& steps = cluster.steps[static_cast<size_t>(w)];
    const size_t task = cluster.worker_tasks[static_cast<size_t>(w)];
    WorkerSteps out;
    out.host = platform.net_host(task)->get_name();
    out.steps = static_cast<int64_t>(steps.size());
    // The first step starts with every worker at once: the rate counts from its end.
    const size_t first = steps.size() > 1 ? 1 : 0;
    if (!steps.empty()) {
      const double span =
          steps.size() > 1 ? steps.back().end - steps.front().end : steps.front().end - steps.front().start;
      out.steps_per_second = span > 0 ? static_cast<double>(steps.size() - first) / span : 0;
      for (size_t s = first; s < steps.size(); ++s) {
        out.compute += steps[s].compute;
        out.transfer += steps[s].transfer;
        out.waiting += steps[s].waiting;
      }
      const double n = static_cast<double>(steps.size() - first);
      out.compute /= n;
      out.transfer /= n;
      out.waiting /= n;
    }
    // A group's members each did what the group did.
    for (const std::string& member : bound.members[task]) {
      out.task = member;
      result.total_steps_per_second += out.steps_per_second;
      result.workers.push_back(out);
    }
  }
  int64_t worker_steps = 0;
  for (const WorkerSteps& w : result.workers) worker_steps += w.steps;
  double served_cpu = 0;
  for (size_t t = 0; t < bound.tasks.size(); ++t)
    if (std::find(cluster.worker_tasks.begin(), cluster.worker_tasks.end(), t) == cluster.worker_tasks.end())
      served_cpu += tasks.cpu_seconds[t];
  result.served_cpu_per_step = worker_steps > 0 ? served_cpu / static_cast<double>(worker_steps) : 0;
  result.awake_call_share =
      tasks.served_calls > 0 ? static_cast<double>(tasks.awake_calls) / static_cast<double>(tasks.served_calls) : 0;
  std::sort(result.workers.begin(), result.workers.end(), [](const WorkerSteps& a, const WorkerSteps& b) {
    return std::make_pair(a.task.size(), a.task) < std::make_pair(b.task.size(), b.task);
  });
  // Loads are averaged over the window where every worker runs (from the last one's first
  // step to the first one's last), not over the start and the end.
  double window_start = 0, window_end = result.simulated_seconds;
  for (const std::vector<StepRecord>& steps : cluster.steps) {
    if (steps.empty()) continue;
    window_start = std::max(window_start, steps.front().end);
    window_end = std::min(window_end, steps.back().end);
  }
  if (window_end <= window_start) {
    window_start = 0;
    window_end = result.simulated_seconds;
  }
  const bool few_workers = result.workers.size() <= 16;
  result.resources = recorder.Loads(
      window_start, window_end, &result.timeline_bin_seconds,
      [few_workers](const SimResource& resource) { return few_workers || resource.owner.rfind("worker", 0) != 0; });
  result.trace = recorder.TakeSpans();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace clab::sim
