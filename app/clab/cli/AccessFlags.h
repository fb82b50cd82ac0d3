// The flags that say who may use a cluster, shared by every command that runs a task or
// talks to one: --tls_dir (the cluster CA's certificate and this process's certificate and
// key, as `clab cert` writes them), --token_file (the cluster token), --max_message_bytes
// and, for tasks, --insecure_listen_all. Apply() makes them the process's ClusterAccess, so
// that the task's server and every channel the process opens use them.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class FlagParser;

class AccessFlags {
 public:
  // `task`: the command runs a task (it takes --insecure_listen_all).
  void Declare(FlagParser& flags, bool task);
  // Loads DIR/ca.crt and DIR/<cert_name>.crt/.key and the token; usage errors name the flag
  // or file at fault.
  Status Apply(const std::string& cert_name) const;

 private:
  std::string tls_dir_;
  std::string token_file_;
  bool insecure_listen_all_ = false;
  int64_t max_message_bytes_ = 0;  // 0: not given
};

}  // namespace clab::cli
