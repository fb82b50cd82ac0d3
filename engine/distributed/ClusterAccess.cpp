#include "clab/distributed/ClusterAccess.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace clab {
namespace {

StatusOr<std::string> ReadText(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound("Cannot read ", what, " ", path, ": ", std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return errors::DataLoss("Cannot read ", what, " ", path, ": read error");
  return text.str();
}

StatusOr<std::string> ReadPem(const std::string& path, const char* what, const char* marker) {
  CLAB_ASSIGN_OR_RETURN(std::string pem, ReadText(path, what));
  if (pem.find(marker) == std::string::npos)
    return errors::InvalidArgument(what, " ", path, " is not PEM text (no \"", marker, "\" line)");
  return pem;
}

std::string Trim(const std::string& text) {
  const char* space = " \t\r\n";
  const size_t begin = text.find_first_not_of(space);
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(space) - begin + 1);
}

std::mutex default_mu;
std::shared_ptr<const ClusterAccess>& DefaultSlot() {
  static std::shared_ptr<const ClusterAccess> slot = std::make_shared<ClusterAccess>();
  return slot;
}

}  // namespace

StatusOr<ClusterAccess> ClusterAccess::Load(const std::string& tls_dir, const std::string& cert_name,
                                            const std::string& token_file) {
  ClusterAccess access;
  if (tls_dir.empty() && token_file.empty()) return access;
  if (tls_dir.empty())
    return errors::InvalidArgument(
        "--token_file needs --tls_dir as well: without TLS the cluster token would "
        "cross the network in clear");
  if (token_file.empty())
    return errors::InvalidArgument(
        "--tls_dir needs --token_file as well: every call of a protected cluster "
        "carries the cluster token (`clab cert` writes one, DIR/cluster.token)");
  const std::string dir = tls_dir.back() == '/' ? tls_dir : tls_dir + "/";
  CLAB_ASSIGN_OR_RETURN(access.ca_pem, ReadPem(dir + "ca.crt", "the cluster CA certificate", "CERTIFICATE"));
  CLAB_ASSIGN_OR_RETURN(access.cert_pem,
                        ReadPem(dir + cert_name + ".crt", "the certificate of this process", "CERTIFICATE"));
  CLAB_ASSIGN_OR_RETURN(access.key_pem,
                        ReadPem(dir + cert_name + ".key", "the private key of this process", "PRIVATE KEY"));
  CLAB_ASSIGN_OR_RETURN(std::string token, ReadText(token_file, "the cluster token file"));
  access.token = Trim(token);
  if (access.token.empty()) return errors::InvalidArgument("The cluster token file ", token_file, " is empty");
  if (access.token.find_first_of(" \t\r\n") != std::string::npos)
    return errors::InvalidArgument("The cluster token file ", token_file,
                                   " holds more than one word: a token is one line without spaces");
  access.tls_dir = tls_dir;
  access.token_file = token_file;
  return access;
}

std::string TaskCertificateName(const std::string& job, int task_index) { return StrCat(job, "-", task_index); }

void SetDefaultClusterAccess(ClusterAccess access) {
  auto shared = std::make_shared<const ClusterAccess>(std::move(access));
  std::lock_guard<std::mutex> lock(default_mu);
  DefaultSlot() = std::move(shared);
}

std::shared_ptr<const ClusterAccess> DefaultClusterAccess() {
  std::lock_guard<std::mutex> lock(default_mu);
  return DefaultSlot();
}

}  // namespace clab
