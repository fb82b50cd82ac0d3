#include "clab/core/TerminationSignal.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace clab {
namespace {

// The handler's only state: the pipe of the live instance.
std::atomic<int> g_signal_pipe{-1};

void OnTerminationSignal(int signal_number) {
  const int saved_errno = errno;
  const int fd = g_signal_pipe.load();
  if (fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(signal_number);
    [[maybe_unused]] const ssize_t written = ::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

}  // namespace

TerminationSignal::TerminationSignal() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) == 0) {
    read_fd_ = fds[0];
    write_fd_ = fds[1];
    // A burst of signals must never block the handler.
    ::fcntl(write_fd_, F_SETFL, O_NONBLOCK);
  }
  g_signal_pipe.store(write_fd_);
  struct sigaction action {};
  action.sa_handler = OnTerminationSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &previous_int_);
  ::sigaction(SIGTERM, &action, &previous_term_);
}

TerminationSignal::~TerminationSignal() {
  ::sigaction(SIGINT, &previous_int_, nullptr);
  ::sigaction(SIGTERM, &previous_term_, nullptr);
  g_signal_pipe.store(-1);
  if (read_fd_ >= 0) ::close(read_fd_);
  if (write_fd_ >= 0) ::close(write_fd_);
}

int TerminationSignal::Wait() {
  if (read_fd_ < 0) return 0;
  unsigned char byte = 0;
  for (;;) {
    const ssize_t n = ::read(read_fd_, &byte, 1);
    if (n == 1) return byte;
    if (n < 0 && errno == EINTR) continue;
    return 0;
  }
}

void TerminationSignal::Cancel() {
  if (write_fd_ < 0) return;
  const unsigned char zero = 0;
  [[maybe_unused]] const ssize_t written = ::write(write_fd_, &zero, 1);
}

const char* TerminationSignal::Name(int signal_number) {
  switch (signal_number) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "signal";
  }
}

}  // namespace clab
