#include "launch/security/ClusterCertificates.h"

#include "clab/distributed/ClusterAccess.h"
#include "launch/project/TextFile.h"

#include <absl/strings/str_join.h>
#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

namespace clab::launch {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

constexpr int kCaDays = 3650;

Status OpenSslError(const std::string& what) {
  std::string detail;
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof(buffer));
    detail += detail.empty() ? buffer : std::string("; ") + buffer;
  }
  return errors::Internal("OpenSSL could not ", what, detail.empty() ? "" : ": ", detail);
}

StatusOr<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("make an EC P-256 key");
  return key;
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr extension(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!extension || X509_add_ext(cert, extension.get(), -1) != 1)
    return OpenSslError(StrCat("add the extension ", OBJ_nid2sn(nid), " = ", value));
  return OkStatus();
}

Status SetName(X509_NAME* name, const std::string& common_name) {
  const auto* org = reinterpret_cast<const unsigned char*>("ClusterLab");
  const auto* cn = reinterpret_cast<const unsigned char*>(common_name.c_str());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, org, -1, -1, 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, cn, -1, -1, 0) != 1)
    return OpenSslError(StrCat("set the certificate name ", common_name));
  return OkStatus();
}

// A certificate for `key` named `common_name`, valid from an hour ago (clocks of hosts
// differ) for `days`; issued by `issuer` (nullptr: self-signed).
StatusOr<CertPtr> NewCertificate(EVP_PKEY* key, const std::string& common_name, int days, X509* issuer) {
  CertPtr cert(X509_new());
  if (!cert) return OpenSslError("allocate a certificate");
  unsigned char serial_bytes[16];
  if (RAND_bytes(serial_bytes, sizeof(serial_bytes)) != 1) return OpenSslError("draw a serial number");
  serial_bytes[0] &= 0x7f;  // positive
  std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>> serial(BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr));
  if (X509_set_version(cert.get(), 2) != 1 || !serial ||
      !BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) ||
      !X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) ||
      !X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 24 * 3600) ||
      X509_set_pubkey(cert.get(), key) != 1)
    return OpenSslError(StrCat("fill in the certificate ", common_name));
  CLAB_RETURN_IF_ERROR(SetName(X509_get_subject_name(cert.get()), common_name));
  const X509_NAME* issuer_name = X509_get_subject_name(issuer ? issuer : cert.get());
  if (X509_set_issuer_name(cert.get(), issuer_name) != 1) return OpenSslError("set the issuer");
  return cert;
}

Status Sign(X509* cert, EVP_PKEY* signer) {
  if (X509_sign(cert, signer, EVP_sha256()) <= 0) return OpenSslError("sign the certificate");
  return OkStatus();
}

StatusOr<std::string> KeyPem(EVP_PKEY* key) {
  std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    return OpenSslError("write a private key");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

StatusOr<std::string> CertPem(X509* cert) {
  std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return OpenSslError("write a certificate");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

StatusOr<KeyPtr> ReadKey(const std::string& path) {
  CLAB_ASSIGN_OR_RETURN(const std::string pem, ReadTextFile(path));
  std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return errors::InvalidArgument(path, " holds no PEM private key");
  return key;
}

StatusOr<CertPtr> ReadCert(const std::string& path) {
  CLAB_ASSIGN_OR_RETURN(const std::string pem, ReadTextFile(path));
  std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return errors::InvalidArgument(path, " holds no PEM certificate");
  return cert;
}

// A key and a certificate signed by the CA, written as DIR/<name>.key and DIR/<name>.crt.
Status WriteLeaf(const std::string& dir, const std::string& name, const std::vector<std::string>& alt_names, int days,
                 X509* ca, EVP_PKEY* ca_key, ClusterCertificateReport& report) {
  CLAB_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  CLAB_ASSIGN_OR_RETURN(CertPtr cert, NewCertificate(key.get(), name, days, ca));
  CLAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca, NID_basic_constraints, "critical,CA:FALSE"));
  CLAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca, NID_key_usage, "critical,digitalSignature,keyEncipherment"));
  // A task's certificate serves its server and its channels to the other tasks.
  CLAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca, NID_ext_key_usage, "serverAuth,clientAuth"));
  CLAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca, NID_subject_key_identifier, "hash"));
  CLAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca, NID_authority_key_identifier, "keyid:always"));
  if (!alt_names.empty())
    CLAB_RETURN_IF_ERROR(AddExtension(cert.get(), ca, NID_subject_alt_name, absl::StrJoin(alt_names, ",")));
  CLAB_RETURN_IF_ERROR(Sign(cert.get(), ca_key));
  CLAB_ASSIGN_OR_RETURN(const std::string key_pem, KeyPem(key.get()));
  CLAB_ASSIGN_OR_RETURN(const std::string cert_pem, CertPem(cert.get()));
  const std::string key_path = dir + "/" + name + ".key";
  const std::string cert_path = dir + "/" + name + ".crt";
  CLAB_RETURN_IF_ERROR(WriteTextFile(key_path, key_pem, 0600));
  CLAB_RETURN_IF_ERROR(WriteTextFile(cert_path, cert_pem, 0644));
  report.written.insert(report.written.end(), {key_path, cert_path});
  return OkStatus();
}

}  // namespace

std::vector<std::string> SubjectAltNames(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  if (::inet_pton(AF_INET, host.c_str(), buffer) == 1 || ::inet_pton(AF_INET6, host.c_str(), buffer) == 1)
    return {"IP:" + host};
  if (host == "localhost") return {"DNS:localhost", "IP:127.0.0.1", "IP:::1"};
  return {"DNS:" + host};
}

StatusOr<ClusterCertificateReport> MakeClusterCertificates(const ClusterCertificateOptions& options) {
  if (options.dir.empty()) return errors::InvalidArgument("No folder given for the certificates");
  if (options.cluster.empty()) return errors::InvalidArgument("The cluster has no tasks to make certificates for");
  if (options.days < 1)
    return errors::InvalidArgument("Certificates must be valid for at least a day, not ", options.days);
  const std::string& dir = options.dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return errors::FailedPrecondition("Cannot make the folder ", dir, ": ", error.message());
  ClusterCertificateReport report;

  const std::string ca_key_path = dir + "/ca.key";
  const std::string ca_cert_path = dir + "/ca.crt";
  const bool have_key = std::filesystem::exists(ca_key_path);
  const bool have_cert = std::filesystem::exists(ca_cert_path);
  if (have_key != have_cert)
    return errors::FailedPrecondition(dir, " holds ", have_key ? "ca.key without ca.crt" : "ca.crt without ca.key",
                                      ": remove it to make a new cluster CA, or restore the other file");
  KeyPtr ca_key;
  CertPtr ca;
  if (have_key) {
    CLAB_ASSIGN_OR_RETURN(ca_key, ReadKey(ca_key_path));
    CLAB_ASSIGN_OR_RETURN(ca, ReadCert(ca_cert_path));
    if (X509_check_private_key(ca.get(), ca_key.get()) != 1)
      return errors::FailedPrecondition(ca_key_path, " is not the key of ", ca_cert_path);
  } else {
    CLAB_ASSIGN_OR_RETURN(ca_key, NewKey());
    CLAB_ASSIGN_OR_RETURN(ca, NewCertificate(ca_key.get(), "ClusterLab cluster CA", kCaDays, nullptr));
    CLAB_RETURN_IF_ERROR(AddExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
    CLAB_RETURN_IF_ERROR(AddExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
    CLAB_RETURN_IF_ERROR(AddExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash"));
    CLAB_RETURN_IF_ERROR(Sign(ca.get(), ca_key.get()));
    CLAB_ASSIGN_OR_RETURN(const std::string key_pem, KeyPem(ca_key.get()));
    CLAB_ASSIGN_OR_RETURN(const std::string cert_pem, CertPem(ca.get()));
    CLAB_RETURN_IF_ERROR(WriteTextFile(ca_key_path, key_pem, 0600));
    CLAB_RETURN_IF_ERROR(WriteTextFile(ca_cert_path, cert_pem, 0644));
    report.written.insert(report.written.end(), {ca_key_path, ca_cert_path});
    report.ca_created = true;
  }

  for (const auto& [job, tasks] : options.cluster.all_jobs()) {
    for (const auto& [index, address_text] : tasks) {
      CLAB_ASSIGN_OR_RETURN(const HostPort address, HostPort::Parse(address_text));
      CLAB_RETURN_IF_ERROR(WriteLeaf(dir, TaskCertificateName(job, index), SubjectAltNames(address.host), options.days,
                                     ca.get(), ca_key.get(), report));
    }
  }
  CLAB_RETURN_IF_ERROR(WriteLeaf(dir, kClientCertificateName, {}, options.days, ca.get(), ca_key.get(), report));

  const std::string token_path = dir + "/cluster.token";
  if (!std::filesystem::exists(token_path)) {
    unsigned char secret[32];
    if (RAND_bytes(secret, sizeof(secret)) != 1) return OpenSslError("draw the cluster token");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string token;
    for (unsigned char byte : secret) token += {kHex[byte >> 4], kHex[byte & 15]};
    CLAB_RETURN_IF_ERROR(WriteTextFile(token_path, token + "\n", 0600));
    report.written.push_back(token_path);
    report.token_created = true;
  }
  return report;
}

}  // namespace clab::launch
