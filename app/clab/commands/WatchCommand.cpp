#include "commands/WatchCommand.h"

#include "clab/core/TerminationSignal.h"
#include "clab/distributed/ClusterAccess.h"
#include "clab/monitor.grpc.pb.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <absl/strings/str_join.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <climits>

#include <atomic>
#include <ctime>
#include <ostream>
#include <thread>

namespace clab::cli {
namespace {

std::string ClockTime(double wall_time) {
  const std::time_t seconds = static_cast<std::time_t>(wall_time);
  std::tm parts{};
  ::localtime_r(&seconds, &parts);
  char text[16];
  std::strftime(text, sizeof(text), "%H:%M:%S", &parts);
  return absl::StrFormat("%s.%03d", text, static_cast<int>((wall_time - static_cast<double>(seconds)) * 1000));
}

std::string LevelName(int level) {
  if (level >= 40) return "ERROR";
  if (level >= 30) return "WARNING";
  return "INFO";
}

// "state LISTENING listening at grpc://..." and so on: the kind, then what it says.
std::string Describe(const TaskEvent& event) {
  switch (event.kind_case()) {
    case TaskEvent::kState: {
      std::string text = absl::StrCat("state ", TaskState::Phase_Name(event.state().phase()));
      if (!event.state().detail().empty()) absl::StrAppend(&text, ": ", event.state().detail());
      if (event.state().uninitialized_size() > 0)
        absl::StrAppend(&text, " (uninitialized: ", absl::StrJoin(event.state().uninitialized(), ", "), ")");
      return text;
    }
    case TaskEvent::kStep:
      return absl::StrCat("step global_step=", event.step().global_step(), " local_step=", event.step().local_step(),
                          " run=", event.step().duration_us(), "us", event.step().finished() ? " (finished)" : "");
    case TaskEvent::kHook:
      return absl::StrCat("hook ", event.hook().hook(), " ", LevelName(event.hook().level()), ": ",
                          event.hook().text());
    case TaskEvent::kPlacement:
      return absl::StrCat("placement ", event.placement().node(), " (", event.placement().op(), ") -> ",
                          event.placement().device());
    case TaskEvent::kCheckpoint:
      return absl::StrCat("checkpoint ", event.checkpoint().restored() ? "restored " : "saved ",
                          event.checkpoint().path(), " at step ", event.checkpoint().global_step());
    case TaskEvent::kTraffic:
      return absl::StrCat("traffic with ", event.traffic().peer(), ": sent ", event.traffic().bytes_sent(),
                          " B, received ", event.traffic().bytes_received(), " B");
    case TaskEvent::kError: return absl::StrCat("error ", event.error().code(), ": ", event.error().message());
    case TaskEvent::kLog: return absl::StrCat("log ", LevelName(event.log().level()), ": ", event.log().text());
    case TaskEvent::KIND_NOT_SET: break;
  }
  return "(empty event)";
}

}  // namespace

std::string WatchCommand::description() const {
  return "Connects to a task's server (clab server, clab example seed, or a task the studio\n"
         "started) and prints its events as they happen: state changes, the placement log,\n"
         "hook output (StepCounterHook, LoggingTensorHook, ...), training progress, checkpoints\n"
         "and errors. The server keeps recent events, so a late watcher sees the history\n"
         "first. --no_follow prints what is there and exits; otherwise Ctrl-C ends the watch,\n"
         "and so does the task stopping.\n\n"
         "Example:  clab watch grpc://127.0.0.1:2222 --steps";
}

void WatchCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("TARGET", "the task's address: grpc://host:port or host:port", &target_);
  flags.AddInt("since", "SEQ", "start after this event number (resume a watch)", &since_, 0);
  flags.AddBool("no_follow", "print the events kept so far and exit", &no_follow_);
  flags.AddBool("steps", "also print the step events (several per second while training)", &steps_);
  access_.Declare(flags, /*task=*/false);
}

Status WatchCommand::Run(std::ostream& out) {
  CLAB_RETURN_IF_ERROR(access_.Apply(kClientCertificateName));
  std::string address = target_;
  if (address.rfind("grpc://", 0) == 0) address = address.substr(7);
  // TLS and token of the process's cluster access (--tls_dir, --token_file), if any.
  const std::shared_ptr<const ClusterAccess> access = DefaultClusterAccess();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(access->max_message_bytes, INT_MAX)));
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  auto stub = MonitorService::NewStub(grpc::CreateCustomChannel(address, ClusterChannelCredentials(*access), args));

  grpc::ClientContext info_context;
  info_context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  TaskInfoResponse info;
  const grpc::Status info_status = stub->GetTaskInfo(&info_context, TaskInfoRequest(), &info);
  if (!info_status.ok()) return errors::Unavailable("no task answers at ", target_, ": ", info_status.error_message());
  std::vector<std::string> devices;
  for (const auto& device : info.devices()) devices.push_back(device.name());
  out << info.task() << " (ClusterLab " << info.version() << ", pid " << info.pid() << "), state "
      << TaskState::Phase_Name(info.state().phase()) << ", devices: " << absl::StrJoin(devices, ", ") << std::endl;

  grpc::ClientContext context;
  WatchRequest request;
  request.set_since_seq(since_);
  // Ctrl-C ends the watch cleanly; --no_follow ends it once the backlog is printed.
  TerminationSignal signal;
  std::thread canceller([&] {
    if (signal.Wait() != 0) context.TryCancel();
  });
  std::unique_ptr<grpc::ClientReader<TaskEvent>> reader = stub->Watch(&context, request);
  TaskEvent event;
  int64_t printed = 0;
  // With --no_follow, the watch ends when no event arrives for a moment.
  std::atomic<bool> idle_cancel{false};
  std::thread idle_watch;
  std::atomic<int64_t> last_event_ms{0};
  const auto start = std::chrono::steady_clock::now();
  auto now_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  };
  if (no_follow_) {
    idle_watch = std::thread([&] {
      while (!idle_cancel) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (now_ms() - last_event_ms > 300) {
          context.TryCancel();
          return;
        }
      }
    });
  }
  while (reader->Read(&event)) {
    last_event_ms = now_ms();
    if (event.has_step() && !steps_) continue;
    out << "[" << event.seq() << "] " << ClockTime(event.wall_time()) << " " << Describe(event) << std::endl;
    ++printed;
  }
  const grpc::Status finished = reader->Finish();
  idle_cancel = true;
  if (idle_watch.joinable()) idle_watch.join();
  signal.Cancel();
  canceller.join();
  if (!finished.ok() && finished.error_code() != grpc::StatusCode::CANCELLED)
    return errors::Unavailable("the watch of ", target_, " ended: ", finished.error_message());
  if (!no_follow_) out << "(the watch ended after " << printed << " events)" << std::endl;
  return OkStatus();
}

}  // namespace clab::cli
