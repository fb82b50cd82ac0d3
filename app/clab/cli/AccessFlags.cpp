#include "cli/AccessFlags.h"

#include "clab/distributed/ClusterAccess.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

#include <absl/strings/str_cat.h>

#include <climits>

namespace clab::cli {

void AccessFlags::Declare(FlagParser& flags, bool task) {
  flags.AddString("tls_dir", "DIR",
                  "mutual TLS: DIR holds ca.crt (the cluster CA) and this process's certificate and key "
                  "(JOB-INDEX.crt/.key for a task, client.crt/.key otherwise), as `clab cert` writes them; "
                  "needs --token_file",
                  &tls_dir_);
  flags.AddString("token_file", "FILE", "the cluster token every call carries (checked on every call); needs --tls_dir",
                  &token_file_);
  flags.AddInt("max_message_bytes", "BYTES",
               absl::StrCat("the largest gRPC message sent or received; a larger one fails with "
                            "RESOURCE_EXHAUSTED (default ",
                            ClusterAccess::kDefaultMaxMessageBytes, ")"),
               &max_message_bytes_, 1024, INT_MAX);
  if (task)
    flags.AddBool("insecure_listen_all",
                  "listen on every interface even without TLS and token (else a task whose address is not "
                  "loopback listens on 127.0.0.1 only); anyone who reaches the host can then use the cluster",
                  &insecure_listen_all_);
}

Status AccessFlags::Apply(const std::string& cert_name) const {
  auto access = ClusterAccess::Load(tls_dir_, cert_name, token_file_);
  if (!access.ok()) return UsageError(access.status().message());
  access->insecure_listen_all = insecure_listen_all_;
  if (max_message_bytes_ > 0) access->max_message_bytes = max_message_bytes_;
  SetDefaultClusterAccess(*std::move(access));
  return OkStatus();
}

}  // namespace clab::cli
