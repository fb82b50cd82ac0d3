// What one task of a protected cluster needs on the machine it runs on, and how the
// launchers put it there: the cluster CA's certificate, the task's own certificate and key
// (JOB-INDEX.crt/.key, as `clab cert` names them) and the cluster token, taken from the
// project's security folder on the machine that launches (security.tls_dir, token_file).
// Each task gets a private directory of its own (mode 0700) holding exactly these four
// files (mode 0600), never another task's key, and runs with --tls_dir pointing there and
// --token_file naming the token file in it: the token itself never appears on a command
// line.
//
//   DIR/ca.crt  DIR/worker-1.crt  DIR/worker-1.key  DIR/cluster.token
#pragma once

#include "clab/core/Status.h"
#include "launch/project/ProjectSecurity.h"

#include <string>
#include <vector>

namespace clab::launch {

struct TaskCredentials {
  struct File {
    std::string source;   // on the launching machine
    std::string name;     // in the task's directory
    bool secret = false;  // the key and the token
  };
  std::string cert_name;  // "worker-1"
  std::vector<File> files;

  static constexpr const char* kTokenName = "cluster.token";

  // The files of task `job`/`index` of a project with TLS and token; NOT_FOUND naming the
  // file that is missing and how to make it (`clab cert --project`).
  static StatusOr<TaskCredentials> Find(const ProjectSecurity& security, const std::string& job, int index);
  // The task's security flags once its files lie in `dir` (as the task sees it).
  static ProjectSecurity InDirectory(const ProjectSecurity& security, const std::string& dir);
  // Copies the files into `dir` on this machine (a file system the task's node shares):
  // `dir` is made with mode 0700 (its parent too, when made here), stale files in it are
  // removed, and each file is written with mode 0600.
  Status StageLocally(const std::string& dir) const;
  // The names of the files, in order.
  std::vector<std::string> Names() const;
};

}  // namespace clab::launch
