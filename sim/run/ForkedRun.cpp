#include "run/ForkedRun.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace clab::sim {
namespace {

struct Child {
  size_t index = 0;
  pid_t pid = -1;
  int result_fd = -1;
  int error_fd = -1;
  std::string result;
  std::string errors;
};

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// In the child: run, answer "O<text>" or "E<code>:<message>", exit.
[[noreturn]] void RunChild(const ForkedWork& work, int result_fd, int error_fd) {
  ::dup2(error_fd, STDERR_FILENO);
  ::dup2(error_fd, STDOUT_FILENO);
  StatusOr<std::string> answer = errors::Internal("the simulation did not answer");
  try {
    answer = work();
  } catch (const std::exception& e) {
    answer = errors::Internal("the simulation failed: ", e.what());
  }
  if (answer.ok()) {
    WriteAll(result_fd, "O" + *answer);
  } else {
    WriteAll(result_fd, absl::StrCat("E", static_cast<int>(answer.status().code()), ":", answer.status().message()));
  }
  ::_exit(0);
}

StatusOr<Child> Start(const ForkedWork& work, size_t index) {
  int result_pipe[2], error_pipe[2];
  if (::pipe(result_pipe) != 0) return errors::Internal("pipe: ", std::strerror(errno));
  if (::pipe(error_pipe) != 0) {
    ::close(result_pipe[0]);
    ::close(result_pipe[1]);
    return errors::Internal("pipe: ", std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {result_pipe[0], result_pipe[1], error_pipe[0], error_pipe[1]}) ::close(fd);
    return errors::Internal("fork: ", std::strerror(errno));
  }
  if (pid == 0) {
    ::close(result_pipe[0]);
    ::close(error_pipe[0]);
    RunChild(work, result_pipe[1], error_pipe[1]);
  }
  ::close(result_pipe[1]);
  ::close(error_pipe[1]);
  Child child;
  child.index = index;
  child.pid = pid;
  child.result_fd = result_pipe[0];
  child.error_fd = error_pipe[0];
  return child;
}

StatusOr<std::string> Finish(Child& child) {
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!child.result.empty() && child.result[0] == 'O') return child.result.substr(1);
  if (!child.result.empty() && child.result[0] == 'E') {
    const size_t colon = child.result.find(':');
    int code = 0;
    if (colon == std::string::npos || !absl::SimpleAtoi(child.result.substr(1, colon - 1), &code) || code <= 0 ||
        code > static_cast<int>(absl::StatusCode::kUnauthenticated))
      return errors::Internal("the simulation process sent an unreadable result: ", child.result.substr(0, 200));
    return Status(static_cast<absl::StatusCode>(code), child.result.substr(colon + 1));
  }
  std::string tail = child.errors;
  if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  const std::string how = WIFSIGNALED(status) ? absl::StrCat("was killed by signal ", WTERMSIG(status))
                                              : absl::StrCat("exited with status ", WEXITSTATUS(status));
  return errors::Internal("the simulation's process ", how, tail.empty() ? "" : ": ", tail);
}

}  // namespace

std::vector<StatusOr<std::string>> RunForked(const std::vector<ForkedWork>& work, int parallel) {
  std::vector<StatusOr<std::string>> answers(work.size(), errors::Internal("not run"));
  std::vector<Child> running;
  size_t next = 0;
  parallel = std::max(parallel, 1);
  while (next < work.size() || !running.empty()) {
    while (next < work.size() && static_cast<int>(running.size()) < parallel) {
      StatusOr<Child> child = Start(work[next], next);
      if (!child.ok()) {
        answers[next] = child.status();
      } else {
        running.push_back(std::move(*child));
      }
      ++next;
    }
    if (running.empty()) continue;
    std::vector<pollfd> fds;
    for (const Child& child : running) {
      fds.push_back({child.result_fd, POLLIN, 0});
      fds.push_back({child.error_fd, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Child& child = running[i / 2];
      int& fd = i % 2 == 0 ? child.result_fd : child.error_fd;
      std::string& into = i % 2 == 0 ? child.result : child.errors;
      char buffer[65536];
      const ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n > 0) {
        into.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fd);
        fd = -1;
      }
    }
    for (size_t i = running.size(); i-- > 0;) {
      if (running[i].result_fd >= 0 || running[i].error_fd >= 0) continue;
      answers[running[i].index] = Finish(running[i]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return answers;
}

}  // namespace clab::sim
