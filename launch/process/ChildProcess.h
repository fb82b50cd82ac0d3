// A program this process starts and owns: `clab demo` and `clab bench` run cluster tasks as
// separate processes, and a launch runs ssh, scp and SLURM's commands. Its stdout and stderr
// arrive line by line on a reader thread (handed to `on_line`, e.g. to print them with a
// "ps/0 | " prefix); it is stopped with SIGTERM, then SIGKILL after a grace period, when this
// object goes away; and it dies with its parent (PR_SET_PDEATHSIG), so a killed `clab demo`
// leaves no server behind.
#pragma once

#include "clab/core/Status.h"

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace clab::launch {

class ChildProcess {
 public:
  using LineFn = std::function<void(const std::string& line)>;

  struct Options {
    // In a process group of its own: a Ctrl-C at the terminal reaches only this program,
    // which then decides how its children end (a launch stops its remote tasks first).
    bool own_process_group = false;
  };

  // Starts `program` (a path, or a name looked up in PATH) with `args` (argv[1..]).
  // FAILED_PRECONDITION naming the program when it cannot be started.
  static StatusOr<std::unique_ptr<ChildProcess>> Start(const std::string& program, const std::vector<std::string>& args,
                                                       LineFn on_line, Options options);
  static StatusOr<std::unique_ptr<ChildProcess>> Start(const std::string& program, const std::vector<std::string>& args,
                                                       LineFn on_line) {
    return Start(program, args, std::move(on_line), Options());
  }
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits until a line containing `text` was printed; false when the process ended first
  // or the timeout passed.
  bool WaitForLine(const std::string& text, std::chrono::milliseconds timeout);
  // The exit status (128 + signal for a killed process), or nullopt at the timeout.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  // SIGTERM, then SIGKILL if it has not exited after `grace`; returns the exit status.
  int Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
  // Every line so far.
  std::vector<std::string> lines() const;

  // This executable (/proc/self/exe), for starting more of the same program.
  static std::string SelfPath();
  // The file PATH names for `program` ("ssh" -> "/usr/bin/ssh"); a name with a '/' is
  // returned as it is. NOT_FOUND naming the program and PATH.
  static StatusOr<std::string> FindProgram(const std::string& program);

 private:
  ChildProcess(pid_t pid, int output_fd, LineFn on_line);
  void ReadOutput();
  void Reap(bool block);

  const pid_t pid_;
  const int output_fd_;
  const LineFn on_line_;
  std::thread reader_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> lines_;
  bool output_closed_ = false;
  std::optional<int> exit_status_;
};

}  // namespace clab::launch
