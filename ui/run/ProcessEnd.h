// How a task's process of a local run ended, as data: the studio's states and colours are
// derived from this, never from the words shown for it.
#pragma once

namespace clab::ui {

struct ProcessEnd {
  enum class Kind {
    kRunning,    // not ended (or not a process of this studio: an attached task)
    kExited,     // exited on its own with `code` (0: done)
    kSignalled,  // killed by signal `code` that nobody here sent (a crash, the OOM killer)
    kKilled,     // killed with SIGKILL from the studio (fault injection)
    kStopped,    // ended because the run was stopped (Stop, or the program was done)
  };
  Kind kind = Kind::kRunning;
  int code = 0;  // the exit status or the signal number

  bool ended() const { return kind != Kind::kRunning; }
};

}  // namespace clab::ui
