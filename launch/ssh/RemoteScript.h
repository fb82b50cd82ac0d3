// The POSIX shell scripts a launch runs on a host over ssh. They print lines that start
// with "clab-launch: " to tell the launcher what happened; everything else is the task's
// own output.
//
// - Setup: makes the data directory (with logs/ and, for a copy of ClusterLab, clusterlab/)
//   and says where it is.
//       clab-launch: data-dir /home/ana/clusterlab
// - Check: finds the ClusterLab program (a path, or a name on PATH) and runs `clab version`
//   with it, so that a missing program or a broken one (missing libraries) is named before
//   anything starts.
//       clab-launch: ready PROGRAM ClusterLab 0.1.0 | no-binary PROGRAM | broken-binary PROGRAM: WHY
//       clab-launch: host HOSTNAME
// - Start: starts one task detached from the connection (its own session, output to a log
//   file in the data directory, a small shell that records its exit status), prints its
//   process id, then streams the log until the task ends and prints its exit status. A
//   dropped connection does not end the task; `clab launch --stop` does.
//       clab-launch: pid PID ... the task's lines ... clab-launch: exit STATUS
// - Stop: SIGTERM to the given processes (only if they still run this program), SIGKILL
//   to those left after the grace period.
//       clab-launch: stopped PID | killed PID | gone PID
// - PrivateDirs: makes the tasks' credential directories below one base (every directory
//   from the data directory's tls/ down mode 0700, owned by the user, no symbolic link,
//   emptied of stale files), before their files are copied in.
//       clab-launch: private-dirs-ready | no-private-dir DIR
// - LockFiles: sets every file in those directories to mode 0600 and checks the modes.
//       clab-launch: locked | not-locked FILE
#pragma once

#include <string>
#include <vector>

namespace clab::launch {

class RemoteScript {
 public:
  static constexpr const char* kMarker = "clab-launch: ";

  static std::string Setup(const std::string& data_dir);
  // `library_dir`: a directory for LD_LIBRARY_PATH ("" : none), where a copied program's
  // engine library is.
  static std::string Check(const std::string& binary, const std::string& library_dir);
  static std::string Start(const std::string& binary, const std::string& library_dir,
                           const std::vector<std::string>& args, const std::string& log_path);
  static std::string Stop(const std::vector<long>& pids, const std::string& binary, int grace_seconds);
  // `dirs`: absolute directories, each below `top` (the data directory's tls/), which is
  // made private too.
  static std::string PrivateDirs(const std::string& top, const std::vector<std::string>& dirs);
  static std::string LockFiles(const std::vector<std::string>& dirs);

  // The command string for ssh: `sh -c '<script>'`, whatever the remote login shell is.
  static std::string AsCommand(const std::string& script);
};

}  // namespace clab::launch
