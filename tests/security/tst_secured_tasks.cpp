// The command line of a protected cluster, run as a user runs it: `clab cert` writes a CA,
// task and client certificates and a token that read back as they should (the chain
// verifies against the CA, the task's host is the subjectAltName, keys and token are 0600);
// `clab server` listens on 127.0.0.1 only when its address is not loopback and it has no TLS
// and token, on every interface with them or with --insecure_listen_all, and says which;
// `clab watch` reaches a TLS task with the client certificate and token, and not without.
// Servers only bind: the only traffic goes to 127.0.0.1.
#include "ClabProcess.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <sys/stat.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

namespace {

// The non-loopback address the tasks are given (TEST-NET-2, never routed): only bound to.
const QString kFarHost = QStringLiteral("198.51.100.7");

X509* ReadCert(const QString& path) {
  FILE* file = std::fopen(path.toLocal8Bit().constData(), "r");
  if (!file) return nullptr;
  X509* cert = PEM_read_X509(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  return cert;
}

EVP_PKEY* ReadKey(const QString& path) {
  FILE* file = std::fopen(path.toLocal8Bit().constData(), "r");
  if (!file) return nullptr;
  EVP_PKEY* key = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  return key;
}

// Whether `cert` verifies against `ca` alone (purpose: a TLS server).
bool VerifiesAgainst(X509* cert, X509* ca, QString* error) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, cert, nullptr);
  X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
  const bool ok = X509_verify_cert(ctx) == 1;
  if (!ok) *error = QString::fromUtf8(X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return ok;
}

// The subjectAltName entries as "IP:a.b.c.d" / "DNS:name".
QStringList AltNames(X509* cert) {
  QStringList names;
  auto* general = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (!general) return names;
  for (int i = 0; i < sk_GENERAL_NAME_num(general); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(general, i);
    if (name->type == GEN_DNS) {
      names << "DNS:" + QString::fromUtf8(reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
                                          ASN1_STRING_length(name->d.dNSName));
    } else if (name->type == GEN_IPADD && ASN1_STRING_length(name->d.iPAddress) == 4) {
      const unsigned char* ip = ASN1_STRING_get0_data(name->d.iPAddress);
      names << QStringLiteral("IP:%1.%2.%3.%4").arg(ip[0]).arg(ip[1]).arg(ip[2]).arg(ip[3]);
    }
  }
  GENERAL_NAMES_free(general);
  return names;
}

unsigned ModeOf(const QString& path) {
  struct stat info {};
  if (::stat(path.toLocal8Bit().constData(), &info) != 0) return 0;
  return info.st_mode & 0777;
}

QString V4FromProc(const QString& hex) {
  const uint32_t raw = hex.toUInt(nullptr, 16);  // the address's bytes, read as a little-endian word
  return QStringLiteral("%1.%2.%3.%4").arg(raw & 0xff).arg((raw >> 8) & 0xff).arg((raw >> 16) & 0xff).arg(raw >> 24);
}

// The local address of the TCP socket listening on `port`, from /proc/net/tcp and tcp6:
// "127.0.0.1", "0.0.0.0", or "::" (gRPC listens on IPv4 addresses through dual-stack IPv6
// sockets: "::" is every interface, a v4-mapped address is that IPv4 address); empty when
// nothing listens there.
QString ListeningAddress(int port) {
  for (const char* path : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    QFile table(path);
    if (!table.open(QIODevice::ReadOnly)) continue;
    const QStringList lines = QString::fromLatin1(table.readAll()).split('\n');
    for (const QString& line : lines.mid(1)) {
      const QStringList fields = line.simplified().split(' ');
      if (fields.size() < 4 || fields[3] != "0A") continue;  // 0A: LISTEN
      const QStringList local = fields[1].split(':');
      if (local.size() != 2 || local[1].toInt(nullptr, 16) != port) continue;
      const QString address = local[0];
      if (address.size() == 8) return V4FromProc(address);
      if (address == QString(32, '0')) return QStringLiteral("::");
      if (address.startsWith("0000000000000000FFFF0000")) return V4FromProc(address.right(8));
      return address;
    }
  }
  return {};
}

bool EveryInterface(const QString& address) { return address == "0.0.0.0" || address == "::"; }

// A `clab server` process, stopped (SIGTERM) when it goes out of scope.
class ServerProcess {
 public:
  explicit ServerProcess(const QStringList& args) {
    process_.setProcessChannelMode(QProcess::MergedChannels);
    process_.setWorkingDirectory(QDir::tempPath());
    process_.start(ClabProcess::programPath("clab"), QStringList{"server"} + args);
  }
  ~ServerProcess() {
    if (process_.state() == QProcess::NotRunning) return;
    ::kill(static_cast<pid_t>(process_.processId()), SIGTERM);
    if (!process_.waitForFinished(10000)) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }
  // Waits for the "Serving ... at grpc://HOST:PORT" line; the port, or 0.
  int WaitServing() {
    static const QRegularExpression serving("Serving \\S+ at grpc://[^:\\s]+:(\\d+)");
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < 60000) {
      const QRegularExpressionMatch match = serving.match(output_);
      if (match.hasMatch()) return match.captured(1).toInt();
      if (process_.state() == QProcess::NotRunning) break;
      process_.waitForReadyRead(200);
      output_ += QString::fromUtf8(process_.readAll());
    }
    output_ += QString::fromUtf8(process_.readAll());
    return 0;
  }
  const QString& output() const { return output_; }

 private:
  QProcess process_;
  QString output_;
};

}  // namespace

class SecuredTasksTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    far_ = dir_.filePath("far");
    near_ = dir_.filePath("near");
    const ProgramResult far = ClabProcess::clab(
        {"cert", "--out", far_, "--cluster", QStringLiteral("worker=%1:2222;ps=node-3.example:2222").arg(kFarHost)});
    QVERIFY2(far.exitCode == 0, qPrintable(far.out + far.err));
    QVERIFY2(far.out.contains("Made a new cluster CA in " + far_), qPrintable(far.out));
    const ProgramResult near = ClabProcess::clab({"cert", "--out", near_, "--cluster", "worker=127.0.0.1:2222"});
    QVERIFY2(near.exitCode == 0, qPrintable(near.out + near.err));
  }

  void certificatesReadBack() {
    std::unique_ptr<X509, decltype(&X509_free)> ca(ReadCert(far_ + "/ca.crt"), X509_free);
    QVERIFY(ca);
    QVERIFY(X509_check_ca(ca.get()) >= 1);
    QCOMPARE(ModeOf(far_ + "/ca.key"), 0600u);
    QCOMPARE(ModeOf(far_ + "/cluster.token"), 0600u);
    QFile token(far_ + "/cluster.token");
    QVERIFY(token.open(QIODevice::ReadOnly));
    QVERIFY(QRegularExpression("^[0-9a-f]{64}\n$").match(QString::fromLatin1(token.readAll())).hasMatch());

    const QList<QPair<QString, QString>> expected = {
        {"worker-0", "IP:" + kFarHost}, {"ps-0", "DNS:node-3.example"}, {"client", ""}};
    for (const auto& [name, alt_name] : expected) {
      std::unique_ptr<X509, decltype(&X509_free)> cert(ReadCert(far_ + "/" + name + ".crt"), X509_free);
      std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(ReadKey(far_ + "/" + name + ".key"), EVP_PKEY_free);
      QVERIFY2(cert && key, qPrintable(name));
      QString error;
      QVERIFY2(VerifiesAgainst(cert.get(), ca.get(), &error), qPrintable(name + ": " + error));
      QVERIFY2(X509_check_private_key(cert.get(), key.get()) == 1, qPrintable(name));
      QCOMPARE(ModeOf(far_ + "/" + name + ".key"), 0600u);
      if (!alt_name.isEmpty()) QCOMPARE(AltNames(cert.get()), QStringList{alt_name});
    }
    // The other folder's CA is another CA: its certificates do not verify against this one.
    std::unique_ptr<X509, decltype(&X509_free)> stranger(ReadCert(near_ + "/worker-0.crt"), X509_free);
    QString error;
    QVERIFY(!VerifiesAgainst(stranger.get(), ca.get(), &error));
    // No temporary file is left behind.
    const QStringList files = QDir(far_).entryList(QDir::Files);
    for (const QString& file : files) QVERIFY2(!file.contains(".tmp"), qPrintable(file));
  }

  void secondRunKeepsTheCaAndToken() {
    QFile ca(far_ + "/ca.crt"), token(far_ + "/cluster.token");
    QVERIFY(ca.open(QIODevice::ReadOnly) && token.open(QIODevice::ReadOnly));
    const QByteArray ca_before = ca.readAll(), token_before = token.readAll();
    const ProgramResult again = ClabProcess::clab(
        {"cert", "--out", far_, "--cluster", QStringLiteral("worker=%1:2222;ps=node-3.example:2222").arg(kFarHost)});
    QVERIFY2(again.exitCode == 0, qPrintable(again.out + again.err));
    QVERIFY2(again.out.contains("Reused the cluster CA"), qPrintable(again.out));
    ca.seek(0);
    token.seek(0);
    QCOMPARE(ca.readAll(), ca_before);
    QCOMPARE(token.readAll(), token_before);
  }

  void unprotectedFarTaskListensOnLoopbackOnly() {
    ServerProcess server({"--cluster", "worker=" + kFarHost + ":0", "--job_name", "worker"});
    const int port = server.WaitServing();
    QVERIFY2(port > 0, qPrintable(server.output()));
    QVERIFY2(server.output().contains(QStringLiteral("Listening on 127.0.0.1:%1 only: no TLS and no token").arg(port)),
             qPrintable(server.output()));
    QVERIFY2(server.output().contains("--insecure_listen_all"), qPrintable(server.output()));
    QCOMPARE(ListeningAddress(port), QStringLiteral("127.0.0.1"));
  }

  void insecureListenAllListensEverywhere() {
    ServerProcess server({"--cluster", "worker=" + kFarHost + ":0", "--job_name", "worker", "--insecure_listen_all"});
    const int port = server.WaitServing();
    QVERIFY2(port > 0, qPrintable(server.output()));
    QVERIFY2(
        server.output().contains(QStringLiteral("Listening on 0.0.0.0:%1 (every interface) WITHOUT TLS").arg(port)),
        qPrintable(server.output()));
    QVERIFY2(EveryInterface(ListeningAddress(port)), qPrintable(ListeningAddress(port)));
  }

  void protectedFarTaskListensEverywhere() {
    ServerProcess server({"--cluster", "worker=" + kFarHost + ":0", "--job_name", "worker", "--tls_dir", far_,
                          "--token_file", far_ + "/cluster.token"});
    const int port = server.WaitServing();
    QVERIFY2(port > 0, qPrintable(server.output()));
    QVERIFY2(server.output().contains(QStringLiteral("Listening on 0.0.0.0:%1 with TLS").arg(port)),
             qPrintable(server.output()));
    QVERIFY2(EveryInterface(ListeningAddress(port)), qPrintable(ListeningAddress(port)));
  }

  void halfTheAccessFlagsIsAUsageError() {
    const ProgramResult result =
        ClabProcess::clab({"server", "--cluster", "worker=127.0.0.1:0", "--tls_dir", near_}, 30000);
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains("--tls_dir needs --token_file"), qPrintable(result.err));
  }

  void watchNeedsTheClientCertificateAndToken() {
    ServerProcess server({"--cluster", "worker=127.0.0.1:0", "--job_name", "worker", "--tls_dir", near_, "--token_file",
                          near_ + "/cluster.token"});
    const int port = server.WaitServing();
    QVERIFY2(port > 0, qPrintable(server.output()));
    const QString target = QStringLiteral("grpc://127.0.0.1:%1").arg(port);
    const ProgramResult watched = ClabProcess::clab(
        {"watch", "--no_follow", "--tls_dir", near_, "--token_file", near_ + "/cluster.token", target}, 30000);
    QVERIFY2(watched.exitCode == 0, qPrintable(watched.out + watched.err));
    QVERIFY2(watched.out.contains("listening"), qPrintable(watched.out));

    const ProgramResult plain = ClabProcess::clab({"watch", "--no_follow", target}, 30000);
    QVERIFY2(plain.exitCode != 0, qPrintable(plain.out + plain.err));
    // The other cluster's client certificate and token do not get in either.
    const ProgramResult stranger = ClabProcess::clab(
        {"watch", "--no_follow", "--tls_dir", far_, "--token_file", far_ + "/cluster.token", target}, 30000);
    QVERIFY2(stranger.exitCode != 0, qPrintable(stranger.out + stranger.err));
  }

 private:
  QTemporaryDir dir_;
  QString far_;
  QString near_;
};

QTEST_GUILESS_MAIN(SecuredTasksTest)
#include "tst_secured_tasks.moc"
