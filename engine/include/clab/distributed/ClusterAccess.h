// Who may use a cluster, and how its tasks talk: mutual TLS against the cluster's own CA,
// a shared cluster token carried by every call, whether an unprotected task may listen
// beyond loopback, and the largest message a channel or server accepts.
//
// A process has one default (SetDefaultClusterAccess, set by the command-line flags
// --tls_dir, --token_file, --insecure_listen_all and --max_message_bytes); servers whose
// ServerOptions carry no access of their own, and every channel the process opens, use it.
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace grpc {
class ChannelCredentials;
class ServerCredentials;
}  // namespace grpc

namespace clab {

struct ClusterAccess {
  // 512 MiB: far above any tensor of ClusterLab's examples, far below what would exhaust a
  // host's memory when a stranger sends one message.
  static constexpr int64_t kDefaultMaxMessageBytes = int64_t{512} << 20;
  // The call metadata key that carries the cluster token.
  static constexpr const char* kTokenMetadataKey = "clab-cluster-token";

  // PEM text: the cluster CA's certificate, this process's certificate (signed by the CA;
  // it serves as the server certificate of a task and as the client certificate of its
  // channels) and its private key. All three or none.
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
  // The shared secret every call carries; required together with TLS.
  std::string token;
  // Where the TLS files and the token came from, for messages.
  std::string tls_dir;
  std::string token_file;
  // Listen on every interface even without TLS and a token (a non-loopback task address).
  bool insecure_listen_all = false;
  int64_t max_message_bytes = kDefaultMaxMessageBytes;

  bool secured() const { return !ca_pem.empty(); }

  // Reads DIR/ca.crt, DIR/<cert_name>.crt and DIR/<cert_name>.key, and the token (the file's
  // text without surrounding white space). Both or neither of tls_dir and token_file must be
  // given: TLS without a token lets anyone holding any certificate of the CA in, and a
  // token without TLS would cross the network in clear. Errors name the file or flag.
  static StatusOr<ClusterAccess> Load(const std::string& tls_dir, const std::string& cert_name,
                                      const std::string& token_file);
};

// The certificate name of a task in a --tls_dir folder: "worker-0" for /job:worker/task:0.
std::string TaskCertificateName(const std::string& job, int task_index);
// The certificate name a client that is no task uses (clab watch, the studio).
inline constexpr const char* kClientCertificateName = "client";

void SetDefaultClusterAccess(ClusterAccess access);
std::shared_ptr<const ClusterAccess> DefaultClusterAccess();

// The credentials of a channel to a task: TLS with this process's certificate plus the
// token on every call when `access` is secured, else insecure.
std::shared_ptr<grpc::ChannelCredentials> ClusterChannelCredentials(const ClusterAccess& access);
// The credentials of a task's server: TLS that requires a client certificate of the CA and
// a token check on every call of every service when secured, else insecure.
std::shared_ptr<grpc::ServerCredentials> ClusterServerCredentials(const ClusterAccess& access);

// Whether `presented` equals `expected`, in time that does not depend on where they differ.
bool TokensEqual(const std::string& presented, const std::string& expected);

}  // namespace clab
