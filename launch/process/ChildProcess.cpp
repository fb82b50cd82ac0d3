#include "launch/process/ChildProcess.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_split.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace clab::launch {

std::string ChildProcess::SelfPath() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "clab";
  return std::string(path, static_cast<size_t>(n));
}

StatusOr<std::string> ChildProcess::FindProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  const std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (const absl::string_view dir : absl::StrSplit(dirs, ':')) {
    const std::string candidate = absl::StrCat(dir.empty() ? "." : dir, "/", program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return errors::NotFound("cannot find the program '", program, "' in PATH (", dirs, ")");
}

StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(const std::string& name,
                                                            const std::vector<std::string>& args, LineFn on_line,
                                                            Options options) {
  // Looked up before fork: between fork and exec only async-signal-safe calls may run.
  CLAB_ASSIGN_OR_RETURN(const std::string program, FindProgram(name));
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    return errors::Internal("cannot start ", program, ": pipe failed: ", std::strerror(errno));
  // The child reports a failed exec through this pipe; a successful exec closes it.
  int exec_fds[2];
  if (::pipe2(exec_fds, O_CLOEXEC) != 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return errors::Internal("cannot start ", program, ": pipe failed: ", std::strerror(errno));
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {pipe_fds[0], pipe_fds[1], exec_fds[0], exec_fds[1]}) ::close(fd);
    return errors::Internal("cannot start ", program, ": fork failed: ", std::strerror(errno));
  }
  if (pid == 0) {
    // Only async-signal-safe calls from here to exec.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (options.own_process_group) ::setpgid(0, 0);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    // A parent waiting for signals may have changed their dispositions.
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::execv(program.c_str(), argv.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t written = ::write(exec_fds[1], &error, sizeof(error));
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  ::close(exec_fds[1]);
  int exec_error = 0;
  const ssize_t n = ::read(exec_fds[0], &exec_error, sizeof(exec_error));
  ::close(exec_fds[0]);
  std::unique_ptr<ChildProcess> child(new ChildProcess(pid, pipe_fds[0], std::move(on_line)));
  if (n == static_cast<ssize_t>(sizeof(exec_error))) {
    child->Wait(std::chrono::milliseconds(5000));
    return errors::FailedPrecondition("cannot start ", program, ": ", std::strerror(exec_error));
  }
  return child;
}

ChildProcess::ChildProcess(pid_t pid, int output_fd, LineFn on_line)
    : pid_(pid), output_fd_(output_fd), on_line_(std::move(on_line)) {
  reader_ = std::thread([this] { ReadOutput(); });
}

ChildProcess::~ChildProcess() {
  Stop();
  if (reader_.joinable()) reader_.join();
  ::close(output_fd_);
}

void ChildProcess::ReadOutput() {
  std::string pending;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(output_fd_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<size_t>(n));
    size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      if (on_line_) on_line_(line);
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(std::move(line));
      cv_.notify_all();
    }
  }
  if (!pending.empty()) {
    if (on_line_) on_line_(pending);
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(std::move(pending));
  }
  std::lock_guard<std::mutex> lock(mu_);
  output_closed_ = true;
  cv_.notify_all();
}

bool ChildProcess::WaitForLine(const std::string& text, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  size_t checked = 0;
  bool found = false;
  cv_.wait_for(lock, timeout, [&] {
    for (; checked < lines_.size() && !found; ++checked) found = lines_[checked].find(text) != std::string::npos;
    return found || output_closed_;
  });
  return found;
}

void ChildProcess::Reap(bool block) {
  std::lock_guard<std::mutex> lock(mu_);
  if (exit_status_) return;
  int status = 0;
  const pid_t done = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (done != pid_) return;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::optional<int> ChildProcess::Wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    Reap(false);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (exit_status_) return exit_status_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

int ChildProcess::Stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (exit_status_) return *exit_status_;
  }
  ::kill(pid_, SIGTERM);
  if (std::optional<int> status = Wait(grace)) return *status;
  ::kill(pid_, SIGKILL);
  Reap(true);
  std::lock_guard<std::mutex> lock(mu_);
  return exit_status_.value_or(128 + SIGKILL);
}

std::vector<std::string> ChildProcess::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

}  // namespace clab::launch
