// Waiting for Ctrl-C (SIGINT) or SIGTERM in a program that must shut down cleanly, such as a
// server task: the handler only writes the signal number to a pipe (all a handler may do
// safely); Wait() reads it on an ordinary thread, which can then stop servers, flush files
// and join threads. Whichever thread the kernel picks to run the handler does not matter.
//
// One instance at a time per process; the previous handlers come back when it is destroyed.
#pragma once

#include <csignal>

namespace clab {

class TerminationSignal {
 public:
  TerminationSignal();
  ~TerminationSignal();
  TerminationSignal(const TerminationSignal&) = delete;
  TerminationSignal& operator=(const TerminationSignal&) = delete;

  // Blocks until SIGINT or SIGTERM arrives (returns its number) or Cancel() is called
  // (returns 0).
  int Wait();
  // Wakes Wait() without a signal; safe from any thread.
  void Cancel();

  // "SIGINT" / "SIGTERM".
  static const char* Name(int signal_number);

 private:
  int read_fd_ = -1;
  int write_fd_ = -1;
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace clab
