// The certificates of a protected cluster (mutual TLS, ClusterAccess), made with OpenSSL:
// a cluster CA (ca.key, ca.crt; an existing pair in the folder is kept and reused, so that
// tasks added later join the same cluster), a certificate per task signed by the CA with
// the task's host as subjectAltName (IP or DNS), a client certificate for programs that are
// no task (clab watch, the studio), and the cluster token (cluster.token), unless present.
//
//   DIR/ca.crt ca.key  ps-0.crt ps-0.key  worker-0.crt worker-0.key ...  client.crt client.key
//   DIR/cluster.token
//
// Every file is written to a temporary file and renamed into place; keys and the token are
// readable by their owner only (0600). A task needs ca.crt, its own .crt/.key and the token;
// ca.key stays with whoever makes certificates.
#pragma once

#include "clab/core/Status.h"
#include "clab/distributed/ClusterSpec.h"

#include <string>
#include <vector>

namespace clab::launch {

struct ClusterCertificateOptions {
  std::string dir;
  ClusterSpec cluster;
  int days = 825;  // validity of the task and client certificates (the CA: 10 years)
};

struct ClusterCertificateReport {
  bool ca_created = false;           // false: the folder's CA was reused
  bool token_created = false;        // false: the folder's token was kept
  std::vector<std::string> written;  // paths, in the order written
};

StatusOr<ClusterCertificateReport> MakeClusterCertificates(const ClusterCertificateOptions& options);

// The subjectAltName entries of a task's certificate for `host`: "IP:10.0.0.5",
// "DNS:node-3"; localhost also gets IP:127.0.0.1 and IP:::1.
std::vector<std::string> SubjectAltNames(const std::string& host);

}  // namespace clab::launch
