// The gRPC side of ClusterAccess: TLS credentials of channels and servers, the token that
// every call carries (a call-credentials plugin) and its check on every call of every
// service of a server (an auth metadata processor, which runs before any service sees the
// call).
#include "clab/distributed/ClusterAccess.h"

#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace clab {
namespace {

// Adds the cluster token to every call's metadata.
class TokenCallCredentials final : public grpc::MetadataCredentialsPlugin {
 public:
  explicit TokenCallCredentials(std::string token) : token_(std::move(token)) {}
  bool IsBlocking() const override { return false; }
  const char* GetType() const override { return "clab-cluster-token"; }
  grpc::Status GetMetadata(grpc::string_ref /*service_url*/, grpc::string_ref /*method_name*/,
                           const grpc::AuthContext& /*channel_auth_context*/,
                           std::multimap<grpc::string, grpc::string>* metadata) override {
    metadata->emplace(ClusterAccess::kTokenMetadataKey, token_);
    return grpc::Status::OK;
  }

 private:
  const std::string token_;
};

// Fails every call whose token is missing or wrong with UNAUTHENTICATED, before the call
// reaches a service. The messages never contain the expected token.
class TokenCheck final : public grpc::AuthMetadataProcessor {
 public:
  explicit TokenCheck(std::string token) : token_(std::move(token)) {}
  bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& auth_metadata, grpc::AuthContext* /*context*/,
                       OutputMetadata* consumed_auth_metadata, OutputMetadata* /*response_metadata*/) override {
    const auto found = auth_metadata.find(ClusterAccess::kTokenMetadataKey);
    if (found == auth_metadata.end())
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "This cluster requires its cluster token on every call, and this call carried none "
                          "(a client passes the token with --token_file)");
    const std::string presented(found->second.data(), found->second.size());
    if (!TokensEqual(presented, token_))
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "The call's cluster token is wrong: it is not this cluster's token (check --token_file)");
    // The token goes no further than this check: services never see it.
    consumed_auth_metadata->emplace(ClusterAccess::kTokenMetadataKey, presented);
    return grpc::Status::OK;
  }

 private:
  const std::string token_;
};

}  // namespace

bool TokensEqual(const std::string& presented, const std::string& expected) {
  // Digests first: equal lengths, so neither the length nor the position of the first
  // difference shows in the time the comparison takes.
  unsigned char a[SHA256_DIGEST_LENGTH];
  unsigned char b[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(presented.data()), presented.size(), a);
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
  return CRYPTO_memcmp(a, b, sizeof(a)) == 0;
}

std::shared_ptr<grpc::ChannelCredentials> ClusterChannelCredentials(const ClusterAccess& access) {
  if (!access.secured()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = access.ca_pem;
  tls.pem_private_key = access.key_pem;
  tls.pem_cert_chain = access.cert_pem;
  return grpc::CompositeChannelCredentials(
      grpc::SslCredentials(tls),
      grpc::MetadataCredentialsFromPlugin(std::make_unique<TokenCallCredentials>(access.token)));
}

std::shared_ptr<grpc::ServerCredentials> ClusterServerCredentials(const ClusterAccess& access) {
  if (!access.secured()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions tls(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  tls.pem_root_certs = access.ca_pem;
  tls.pem_key_cert_pairs.push_back({access.key_pem, access.cert_pem});
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::SslServerCredentials(tls);
  credentials->SetAuthMetadataProcessor(std::make_shared<TokenCheck>(access.token));
  return credentials;
}

}  // namespace clab
