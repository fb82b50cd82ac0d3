// Who may use a cluster, checked on real servers in this process on free loopback ports: a
// protected cluster (mutual TLS against its CA, the cluster token on every call) runs a
// step; clients without the token, with a wrong one, without TLS, or with a certificate of
// another CA are refused on the master, worker, monitor (Publish) and probe services; the
// message limit fails an oversized message on either side with a message naming the flag.
#include "ServerFixture.h"

#include "clab/distributed/ClusterAccess.h"
#include "clab/distributed/LinkProbe.h"
#include "clab/monitor.grpc.pb.h"
#include "clab/probe.grpc.pb.h"
#include "clab/runtime/Session.h"
#include "distributed/GrpcSession.h"
#include "launch/security/ClusterCertificates.h"
#include "tensorflow/master.grpc.pb.h"
#include "tensorflow/worker.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>

using namespace clab;
using namespace clab::testing;

namespace {

struct CallResult {
  grpc::StatusCode code;
  std::string message;
};

std::chrono::system_clock::time_point Deadline() { return std::chrono::system_clock::now() + std::chrono::seconds(10); }

// One call of each service of the task at `address` over `credentials`.
std::map<std::string, CallResult> CallEveryService(const std::string& address,
                                                   const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  auto channel = grpc::CreateChannel(address, credentials);
  std::map<std::string, CallResult> results;
  {
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    tensorflow::ListDevicesResponse response;
    grpc::Status s =
        tensorflow::MasterService::NewStub(channel)->ListDevices(&context, tensorflow::ListDevicesRequest(), &response);
    results["master"] = {s.error_code(), s.error_message()};
  }
  {
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    tensorflow::GetStatusResponse response;
    grpc::Status s =
        tensorflow::WorkerService::NewStub(channel)->GetStatus(&context, tensorflow::GetStatusRequest(), &response);
    results["worker"] = {s.error_code(), s.error_message()};
  }
  {
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    PublishRequest request;
    request.add_events()->mutable_log()->set_text("a line from a client");
    PublishResponse response;
    grpc::Status s = MonitorService::NewStub(channel)->Publish(&context, request, &response);
    results["monitor"] = {s.error_code(), s.error_message()};
  }
  {
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    EchoRequest request;
    request.set_payload("ping");
    EchoResponse response;
    grpc::Status s = ProbeService::NewStub(channel)->Echo(&context, request, &response);
    results["probe"] = {s.error_code(), s.error_message()};
  }
  return results;
}

std::shared_ptr<const ClusterAccess> Shared(ClusterAccess access) {
  return std::make_shared<const ClusterAccess>(std::move(access));
}

}  // namespace

class ClusterAccessTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    auto cluster =
        ClusterSpec::FromDict({{"ps", {LoopbackAddress(FreePort())}}, {"worker", {LoopbackAddress(FreePort())}}});
    QVERIFY(cluster.ok());
    cluster_ = *cluster;
    certs_ = dir_.filePath("certs").toStdString();
    other_ = dir_.filePath("other").toStdString();
    for (const std::string& folder : {certs_, other_}) {
      launch::ClusterCertificateOptions options;
      options.dir = folder;
      options.cluster = cluster_;
      auto made = launch::MakeClusterCertificates(options);
      QVERIFY2(made.ok(), made.status().ToString().c_str());
    }
    token_ = certs_ + "/cluster.token";
    auto client = ClusterAccess::Load(certs_, kClientCertificateName, token_);
    QVERIFY2(client.ok(), client.status().ToString().c_str());
    client_ = *client;
    QVERIFY(client_.secured());
    QCOMPARE(client_.token.size(), size_t(64));

    for (const auto& [job, index] : std::vector<std::pair<std::string, int>>{{"ps", 0}, {"worker", 0}}) {
      auto access = ClusterAccess::Load(certs_, TaskCertificateName(job, index), token_);
      QVERIFY2(access.ok(), access.status().ToString().c_str());
      ServerOptions options;
      options.cluster = cluster_;
      options.job_name = job;
      options.task_index = index;
      options.access = Shared(*access);
      auto server = GrpcServer::Create(options, log_.sink());
      QVERIFY2(server.ok(), server.status().ToString().c_str());
      servers_.push_back(*std::move(server));
    }
    QVERIFY2(log_.Contains("with TLS (certificates from " + certs_), log_.All().c_str());
    worker_address_ = *cluster_.TaskAddress("worker", 0);
  }

  void cleanupTestCase() {
    for (auto& server : servers_) server->Stop().IgnoreError();
    servers_.clear();
    SetDefaultClusterAccess(ClusterAccess());
  }

  void protectedClusterRunsAStep() {
    // The session's channel takes the process's access: the client certificate and token.
    SetDefaultClusterAccess(client_);
    auto seed = BuildSeedGraph(cluster_.ToDict());
    QVERIFY(seed.ok());
    SessionOptions options;
    options.target = servers_[1]->target();
    // Over gRPC, not to the master in this process: the worker reaches the ps over TLS too.
    auto session = GrpcSession::Open(options, /*allow_in_process_master=*/false);
    QVERIFY2(session.ok(), session.status().ToString().c_str());
    QVERIFY((*session)->Create(seed->graph).ok());
    std::vector<Tensor> outputs;
    Status init = (*session)->Run({}, {}, {seed->init}, &outputs);
    QVERIFY2(init.ok(), init.ToString().c_str());
    Status run = (*session)->Run({}, {seed->product}, {}, &outputs);
    QVERIFY2(run.ok(), run.ToString().c_str());
    QCOMPARE(outputs.size(), size_t(1));
    QCOMPARE(outputs[0].DebugString(), std::string("[[20]]"));
    QVERIFY((*session)->Close().ok());
    SetDefaultClusterAccess(ClusterAccess());
  }

  void clientWithCertificateAndTokenIsServed() {
    for (const auto& [service, result] : CallEveryService(worker_address_, ClusterChannelCredentials(client_)))
      QVERIFY2(result.code == grpc::StatusCode::OK, (service + ": " + result.message).c_str());
  }

  void clientWithoutTokenIsUnauthenticated() {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = client_.ca_pem;
    tls.pem_private_key = client_.key_pem;
    tls.pem_cert_chain = client_.cert_pem;
    for (const auto& [service, result] : CallEveryService(worker_address_, grpc::SslCredentials(tls))) {
      QVERIFY2(result.code == grpc::StatusCode::UNAUTHENTICATED, (service + ": " + result.message).c_str());
      QVERIFY2(result.message.find("requires its cluster token") != std::string::npos, result.message.c_str());
      QVERIFY2(result.message.find("carried none") != std::string::npos, result.message.c_str());
    }
  }

  void clientWithWrongTokenIsUnauthenticated() {
    ClusterAccess wrong = client_;
    wrong.token = client_.token.substr(0, 63) + (client_.token.back() == '0' ? "1" : "0");
    for (const auto& [service, result] : CallEveryService(worker_address_, ClusterChannelCredentials(wrong))) {
      QVERIFY2(result.code == grpc::StatusCode::UNAUTHENTICATED, (service + ": " + result.message).c_str());
      QVERIFY2(result.message.find("token is wrong") != std::string::npos, result.message.c_str());
      // Neither the expected token nor the one sent is echoed.
      QVERIFY(result.message.find(client_.token) == std::string::npos);
      QVERIFY(result.message.find(wrong.token) == std::string::npos);
    }
  }

  void clientWithoutTlsIsRefused() {
    for (const auto& [service, result] : CallEveryService(worker_address_, grpc::InsecureChannelCredentials())) {
      // The TLS handshake fails: the connection never carries a call.
      QVERIFY2(result.code == grpc::StatusCode::UNAVAILABLE, (service + ": " + result.message).c_str());
      qInfo("%s without TLS: %s", service.c_str(), result.message.c_str());
    }
  }

  void clientCertificateOfAnotherCaIsRefused() {
    auto stranger = ClusterAccess::Load(other_, kClientCertificateName, other_ + "/cluster.token");
    QVERIFY(stranger.ok());
    // Trusting this cluster's CA (so the server's certificate passes) but presenting a
    // certificate of another CA, and even the right token: the server refuses the handshake.
    ClusterAccess forged = *stranger;
    forged.ca_pem = client_.ca_pem;
    forged.token = client_.token;
    for (const auto& [service, result] : CallEveryService(worker_address_, ClusterChannelCredentials(forged))) {
      QVERIFY2(result.code == grpc::StatusCode::UNAVAILABLE, (service + ": " + result.message).c_str());
      qInfo("%s with a certificate of another CA: %s", service.c_str(), result.message.c_str());
    }
    // A client of the other cluster does not trust this cluster's server either.
    for (const auto& [service, result] : CallEveryService(worker_address_, ClusterChannelCredentials(*stranger))) {
      QVERIFY2(result.code == grpc::StatusCode::UNAVAILABLE, (service + ": " + result.message).c_str());
    }
  }

  void tokensCompare() {
    QVERIFY(TokensEqual("abc", "abc"));
    QVERIFY(!TokensEqual("abd", "abc"));
    QVERIFY(!TokensEqual("ab", "abc"));
    QVERIFY(!TokensEqual("", "abc"));
    QVERIFY(!TokensEqual("abcd", "abc"));
  }

  void loadNamesWhatIsMissing() {
    auto alone = ClusterAccess::Load(certs_, "client", "");
    QVERIFY(!alone.ok());
    QVERIFY2(alone.status().message().find("--tls_dir needs --token_file") != std::string_view::npos,
             alone.status().ToString().c_str());
    auto token_alone = ClusterAccess::Load("", "client", token_);
    QVERIFY(!token_alone.ok());
    QVERIFY(token_alone.status().message().find("--token_file needs --tls_dir") != std::string_view::npos);
    auto no_cert = ClusterAccess::Load(certs_, "worker-7", token_);
    QVERIFY(!no_cert.ok());
    QVERIFY2(no_cert.status().message().find(certs_ + "/worker-7.crt") != std::string_view::npos,
             no_cert.status().ToString().c_str());
  }

  void oversizedMessagesFailOnEitherSide() {
    ClusterAccess small;
    small.max_message_bytes = 64 << 10;
    auto cluster = ClusterSpec::FromDict({{"worker", {LoopbackAddress(0)}}});
    QVERIFY(cluster.ok());
    ServerOptions options;
    options.cluster = *cluster;
    options.job_name = "worker";
    options.access = Shared(small);
    auto server = GrpcServer::Create(options, [](const std::string&) {});
    QVERIFY2(server.ok(), server.status().ToString().c_str());
    const std::string address = "127.0.0.1:" + std::to_string((*server)->bound_port());

    // The sender with the same limit fails before sending, naming the flag.
    SetDefaultClusterAccess(small);
    auto probe = LinkProbe::Connect(address);
    QVERIFY(probe.ok());
    QVERIFY((*probe)->Echo(1000).ok());
    Status sent = (*probe)->Echo(100 << 10);
    QCOMPARE(sent.code(), absl::StatusCode::kResourceExhausted);
    QVERIFY2(sent.message().find("--max_message_bytes") != std::string_view::npos, sent.ToString().c_str());
    SetDefaultClusterAccess(ClusterAccess());

    // A sender without the limit: the server refuses to receive it.
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(-1);
    auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    EchoRequest request;
    request.set_payload(std::string(100 << 10, 'x'));
    EchoResponse response;
    grpc::Status received = ProbeService::NewStub(channel)->Echo(&context, request, &response);
    QCOMPARE(received.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    QVERIFY2(received.error_message().find("larger than max") != std::string::npos, received.error_message().c_str());
    (*server)->Stop().IgnoreError();
  }

 private:
  QTemporaryDir dir_;
  ClusterSpec cluster_;
  std::string certs_;
  std::string other_;
  std::string token_;
  ClusterAccess client_;
  LogCapture log_;
  std::vector<std::unique_ptr<GrpcServer>> servers_;
  std::string worker_address_;
};

QTEST_GUILESS_MAIN(ClusterAccessTest)
#include "tst_cluster_access.moc"
