// `clab cert --out DIR --cluster SPEC` (or --project P.clab): the certificates of a
// protected cluster (launch/security/ClusterCertificates): the cluster CA, one certificate
// per task with the task's host as subjectAltName, a client certificate and the token.
#pragma once

#include "cli/Command.h"

#include <cstdint>
#include <string>

namespace clab::cli {

class CertCommand : public Command {
 public:
  std::string name() const override { return "cert"; }
  std::string summary() const override { return "Make the TLS certificates and token of a protected cluster"; }
  std::string description() const override;
  void DeclareFlags(FlagParser& flags) override;
  Status Run(std::ostream& out) override;

 private:
  std::string out_;
  std::string cluster_;
  std::string project_;
  int64_t days_ = 825;
};

}  // namespace clab::cli
