// Two hosts in network namespaces this test creates: "ps" at 192.0.2.1 and "worker" at
// 192.0.2.2 (TEST-NET-1, reachable only inside these namespaces), joined by a veth pair.
// The seed program runs across them as a protected cluster (TLS and token); then the link is cut and the worker's next
// step must fail within seconds, naming the ps; the monitored session waits for the ps and goes on training once the
// link is mended. Where the machine does not allow network namespaces (not root, no `ip`, a restricted container) the
// suite is skipped (exit 77) with a line saying why.
#include "TaskProcess.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

using namespace clab::testing;

namespace {

struct Command {
  int exitCode = -1;
  QString output;
};

Command Ip(const QStringList& args) {
  QProcess ip;
  ip.setProcessChannelMode(QProcess::MergedChannels);
  ip.start("ip", args);
  Command result;
  if (!ip.waitForStarted(5000)) {
    result.output = "cannot run 'ip': " + ip.errorString();
    return result;
  }
  ip.waitForFinished(10000);
  result.output = QString::fromUtf8(ip.readAll()).trimmed();
  result.exitCode = ip.exitStatus() == QProcess::NormalExit ? ip.exitCode() : -1;
  return result;
}

// Names unique to this run, so parallel runs and leftovers of a crashed run never clash.
const QString kSuffix = QString::number(::getpid());
const QString kPsNamespace = "clab-ps-" + kSuffix;
const QString kWorkerNamespace = "clab-wk-" + kSuffix;
const QString kPsLink = "clp" + kSuffix;
const QString kWorkerLink = "clw" + kSuffix;
const QString kCluster = "ps=192.0.2.1:2223;worker=192.0.2.2:2222";

void DeleteNamespaces() {
  Ip({"netns", "del", kPsNamespace});
  Ip({"netns", "del", kWorkerNamespace});
}

// Creates both namespaces and the link; an empty string on success, else what failed.
QString CreateHosts() {
  const QList<QStringList> steps = {
      {"netns", "add", kPsNamespace},
      {"netns", "add", kWorkerNamespace},
      {"link", "add", kPsLink, "netns", kPsNamespace, "type", "veth", "peer", "name", kWorkerLink, "netns",
       kWorkerNamespace},
      {"-n", kPsNamespace, "addr", "add", "192.0.2.1/24", "dev", kPsLink},
      {"-n", kWorkerNamespace, "addr", "add", "192.0.2.2/24", "dev", kWorkerLink},
      {"-n", kPsNamespace, "link", "set", kPsLink, "up"},
      {"-n", kWorkerNamespace, "link", "set", kWorkerLink, "up"},
      {"-n", kPsNamespace, "link", "set", "lo", "up"},
      {"-n", kWorkerNamespace, "link", "set", "lo", "up"},
  };
  for (const QStringList& step : steps) {
    const Command result = Ip(step);
    if (result.exitCode != 0) return QString("'ip %1' failed: %2").arg(step.join(' '), result.output);
  }
  return {};
}

QStringList InNamespace(const QString& name) { return {"ip", "netns", "exec", name}; }

}  // namespace

class TwoHostsTest : public QObject {
  Q_OBJECT

 private slots:
  void cleanupTestCase() { DeleteNamespaces(); }

  void seedRunsAcrossTwoHostsAndRecoversWhenTheLinkIsCut() {
    // A protected cluster: mutual TLS against its own CA and the cluster token.
    QTemporaryDir certs;
    QVERIFY(certs.isValid());
    const ProgramResult made = ClabProcess::clab({"cert", "--out", certs.path(), "--cluster", kCluster});
    QVERIFY2(made.exitCode == 0, qPrintable(made.out + made.err));
    const QStringList access{"--tls_dir", certs.path(), "--token_file", certs.filePath("cluster.token")};

    TaskProcess ps("clab", QStringList{"server", "--cluster", kCluster, "--job_name", "ps"} + access,
                   InNamespace(kPsNamespace));
    QVERIFY2(ps.waitUntilServing(), qPrintable(ps.output()));
    // A protected non-loopback task listens on every interface of its host.
    QVERIFY2(ps.output().contains("Serving /job:ps/replica:0/task:0 at grpc://192.0.2.1:2223"),
             qPrintable(ps.output()));
    QVERIFY2(ps.output().contains("Listening on 0.0.0.0:2223 with TLS"), qPrintable(ps.output()));

    TaskProcess worker("clab",
                       QStringList{"example", "seed", "--cluster", kCluster, "--job_name", "worker", "--faithful",
                                   "--max_seconds", "120", "--wait_for_ps_ms", "10000"} +
                           access,
                       InNamespace(kWorkerNamespace));
    QVERIFY2(worker.waitForOutput("[[20]]\n[[20]]\n[[20]]", 30000), qPrintable(worker.output().left(4000)));
    const QString placement = worker.output();
    QVERIFY2(placement.contains("w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"),
             qPrintable(placement.left(4000)));
    QVERIFY2(placement.contains("MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0"),
             qPrintable(placement.left(4000)));

    // Cut the link on the ps's side: packets vanish, nothing says goodbye. The step in
    // flight fails within seconds (keepalive), naming the ps; the monitored session then
    // says it will recreate its session and waits for the ps, saying which task it waits for.
    QElapsedTimer cut;
    cut.start();
    const Command down = Ip({"-n", kPsNamespace, "link", "set", kPsLink, "down"});
    QVERIFY2(down.exitCode == 0, qPrintable(down.output));
    QVERIFY2(worker.waitForOutput("An error was raised", 10000), qPrintable(worker.output().right(2000)));
    const qint64 elapsed = cut.elapsed();
    const QString output = worker.output();
    const QString error = output.mid(output.lastIndexOf("An error was raised")).section('\n', 0, 0);
    qInfo("the step failed %lld ms after the cut: %s", elapsed, qPrintable(error));
    QVERIFY2(elapsed < 8000, qPrintable(QString("the step failed %1 ms after the cut").arg(elapsed)));
    QVERIFY2(error.contains("/job:ps/replica:0/task:0"), qPrintable(error));
    QVERIFY2(worker.waitForOutput("still waiting for response from worker: /job:ps/replica:0/task:0 at 192.0.2.1:2223",
                                  15000),
             qPrintable(worker.output().right(2000)));

    // Mend the link: the worker finds the ps again and training goes on.
    const int steps_before = worker.output().count("[[20]]");
    const Command up = Ip({"-n", kPsNamespace, "link", "set", kPsLink, "up"});
    QVERIFY2(up.exitCode == 0, qPrintable(up.output));
    QElapsedTimer mended;
    mended.start();
    QVERIFY2(worker.waitForCount("[[20]]", steps_before + 3, 30000), qPrintable(worker.output().right(2000)));
    qInfo("training resumed %lld ms after the link came back", mended.elapsed());
    // The ps is unharmed and stops cleanly.
    QVERIFY(ps.running());
    QCOMPARE(ps.terminate(), 0);
  }
};

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (::geteuid() != 0) {
    std::puts("SKIP: network namespaces need root; this test runs only as root");
    return 77;
  }
  DeleteNamespaces();
  const QString problem = CreateHosts();
  if (!problem.isEmpty()) {
    DeleteNamespaces();
    std::printf("SKIP: this machine does not allow the test's network namespaces: %s\n", qPrintable(problem));
    return 77;
  }
  TwoHostsTest test;
  const int result = QTest::qExec(&test, argc, argv);
  DeleteNamespaces();
  return result;
}

#include "tst_two_hosts.moc"
