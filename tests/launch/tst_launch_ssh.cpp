// `clab launch --via ssh` for real: two hosts in network namespaces of their own, each with
// its own address, host name and OpenSSH server (LaunchHosts), and the launch client in a
// third. The seed project and the digits MLP run there; an unreachable host, a missing
// program and a port in use are each named with their task; a ps killed on its host is
// started again and the workers recover, as the monitor client (`clab watch`, the service
// the studio watches) shows; `clab launch --stop` ends the run, and nothing of it is left
// running. The cluster is protected: each task's own certificate and key, the CA and the
// token are copied to its host into a private directory (0700, files 0600) and the task runs
// with TLS from there; no host gets another task's key, and no process on any host ever has
// the token on its command line. Skipped (exit 77, saying why) where this machine cannot have the hosts: not
// root, no sshd, no network namespaces; hosts that were made but do not answer fail it.
#include "ClabProcess.h"
#include "LaunchHosts.h"
#include "LaunchProcess.h"
#include "clab/Version.h"

#include <nlohmann/json.hpp>

#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <memory>

using clab::testing::LaunchHosts;
using clab::testing::LaunchProcess;
using Json = nlohmann::json;

namespace {

LaunchHosts* g_hosts = nullptr;

// The folder of a project's certificates and token (WriteProject makes them).
QString CertsOf(const QString& project_name) { return g_hosts->dir() + "/" + project_name + "-certs"; }

// The flags of a client of that project's cluster (clab watch).
QStringList ClientAccess(const QString& project_name) {
  return {"--tls_dir", CertsOf(project_name), "--token_file", CertsOf(project_name) + "/cluster.token"};
}

// A project from an example, with its cluster and launch settings replaced (and its last
// step, when given).
QString WriteProject(const QString& example, const QString& name, const Json& cluster, const Json& launch,
                     int64_t last_step = 0) {
  QFile source(ClabProcess::sourceDir() + "/examples/projects/" + example);
  source.open(QIODevice::ReadOnly);
  Json project = Json::parse(source.readAll().toStdString());
  project["cluster"] = cluster;
  project["launch"] = launch;
  if (last_step > 0) project["run"]["last_step"] = last_step;
  // Tasks on other hosts are a protected cluster (unprotected ones would listen on loopback
  // only): certificates for the project's hosts, which share this file system.
  const QString certs = CertsOf(name);
  QStringList spec;
  for (const auto& [job, addresses] : cluster.items()) {
    QStringList tasks;
    for (const auto& address : addresses) tasks << QString::fromStdString(address.get<std::string>());
    spec << QString::fromStdString(job) + "=" + tasks.join(',');
  }
  const ProgramResult made = ClabProcess::clab({"cert", "--out", certs, "--cluster", spec.join(';')});
  if (made.exitCode != 0) qWarning("clab cert failed: %s", qPrintable(made.out + made.err));
  project["security"] = {{"tls_dir", certs.toStdString()}, {"token_file", (certs + "/cluster.token").toStdString()}};
  const QString path = g_hosts->dir() + "/" + name;
  QFile file(path);
  file.open(QIODevice::WriteOnly | QIODevice::Truncate);
  file.write(QByteArray::fromStdString(project.dump(2)));
  return path;
}

// "198.18.0.2:2223" for host 0.
std::string At(int host, int port) {
  return QStringLiteral("%1:%2").arg(g_hosts->host(host).address).arg(port).toStdString();
}

// Each host: the build's clab (the hosts share this file system) and a data directory.
Json HostSettings(const QString& binary = {}) {
  Json hosts = Json::object();
  for (int i = 0; i < 2; ++i) {
    Json entry = {{"data_dir", (g_hosts->dir() + QStringLiteral("/h%1-data").arg(i + 1)).toStdString()}};
    entry["binary"] = (binary.isEmpty() ? ClabProcess::programPath("clab") : binary).toStdString();
    hosts[g_hosts->host(i).address.toStdString()] = entry;
  }
  return hosts;
}

// A `clab` command in the client's namespace.
std::unique_ptr<LaunchProcess> InClient(const QStringList& args) {
  return std::make_unique<LaunchProcess>(args, g_hosts->inClient());
}

// The pids the launch reported for its tasks ("[ps/0] (started on launch-h1, pid 4711)").
QList<qint64> ReportedPids(const QString& output) {
  QList<qint64> pids;
  static const QRegularExpression started("\\(started on \\S+, pid (\\d+)\\)");
  for (auto it = started.globalMatch(output); it.hasNext();) pids << it.next().captured(1).toLongLong();
  return pids;
}

// A file's permission bits (0: missing).
unsigned Mode(const QString& path) {
  struct stat info {};
  if (::lstat(path.toLocal8Bit().constData(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

// Processes whose command line mentions `text` (the hosts share this machine's processes).
QStringList ProcessesMentioning(const QString& text) {
  QStringList found;
  for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
    if (pid.toLongLong() <= 0 || pid.toLongLong() == QCoreApplication::applicationPid()) continue;
    QFile cmdline("/proc/" + pid + "/cmdline");
    if (!cmdline.open(QIODevice::ReadOnly)) continue;
    const QString line = QString::fromUtf8(cmdline.readAll()).replace(QChar('\0'), ' ');
    if (line.contains(text)) found << pid + ": " + line.trimmed();
  }
  return found;
}

}  // namespace

class LaunchSshTest : public QObject {
  Q_OBJECT

 private slots:
  void unreachableHostAndMissingProgramAreNamed() {
    Json hosts = HostSettings();
    hosts[g_hosts->host(1).address.toStdString()]["binary"] = "/nonexistent/clab";
    // 198.18.0.9 is on the hosts' network, but nobody is there.
    Json launch = {{"method", "ssh"}, {"hosts", hosts}, {"ssh", {{"connect_timeout_s", 5}}}};
    const QString project =
        WriteProject("seed.clab", "unreachable.clab", {{"ps", {"198.18.0.9:2223"}}, {"worker", {At(1, 2222)}}}, launch);
    auto run = InClient({"launch", project, "--ssh_config", g_hosts->sshConfig()});
    const int code = run->finish(60000);
    const QString output = run->output();
    QVERIFY2(code == 1, qPrintable(QStringLiteral("exit %1: %2").arg(code).arg(output)));
    QVERIFY2(
        output.contains("[ps/0] problem: cannot reach 198.18.0.9 over ssh: ssh: connect to host 198.18.0.9 port 22:"),
        qPrintable(output));
    QVERIFY2(output.contains("[worker/0] problem: no ClusterLab program '/nonexistent/clab' on 198.18.0.3 "
                             "(set launch.hosts.198.18.0.3.binary, or copy it with --copy_binary)"),
             qPrintable(output));
    QVERIFY2(!output.contains("(started on"), qPrintable(output));
  }

  void portInUseOnTheHostIsNamed() {
    // Something else already listens on the ps's port on its host.
    QProcess blocker;
    blocker.setProcessChannelMode(QProcess::MergedChannels);
    const QString ps_address = g_hosts->host(0).address + ":2223";
    blocker.start(g_hosts->inHost(0).first(),
                  g_hosts->inHost(0).mid(1) + QStringList{ClabProcess::programPath("clab"), "server", "--cluster",
                                                          "ps=" + ps_address, "--job_name", "ps",
                                                          "--insecure_listen_all"});
    QVERIFY(blocker.waitForStarted(5000));
    QString said;
    QElapsedTimer timer;
    timer.start();
    while (!said.contains("Serving /job:ps") && timer.elapsed() < 20000 && blocker.state() == QProcess::Running) {
      blocker.waitForReadyRead(200);
      said += QString::fromUtf8(blocker.readAll());
    }
    QVERIFY2(said.contains("Serving /job:ps"), qPrintable(said));
    Json launch = {{"method", "ssh"}, {"hosts", HostSettings()}};
    const QString project =
        WriteProject("seed.clab", "port.clab", {{"ps", {At(0, 2223)}}, {"worker", {At(1, 2222)}}}, launch);
    auto run = InClient({"launch", project, "--ssh_config", g_hosts->sshConfig()});
    const int code = run->finish(90000);
    const QString output = run->output();
    QVERIFY2(code == 1, qPrintable(QStringLiteral("exit %1: %2").arg(code).arg(output)));
    QVERIFY2(output.contains("[ps/0] problem: port 2223 is in use on 198.18.0.2: another program listens there"),
             qPrintable(output));
    // Only what the launch started was stopped.
    QCOMPARE(blocker.state(), QProcess::Running);
    blocker.terminate();
    QVERIFY(blocker.waitForFinished(10000));
    for (qint64 pid : ReportedPids(output))
      QVERIFY2(!QFile::exists(QStringLiteral("/proc/%1").arg(pid)), qPrintable(output));
  }

  void seedRunsOnTwoHosts() {
    // The ssh configuration named by the project this time, not on the command line.
    Json launch = {
        {"method", "ssh"}, {"hosts", HostSettings()}, {"ssh", {{"config", g_hosts->sshConfig().toStdString()}}}};
    const QString project =
        WriteProject("seed.clab", "seed.clab", {{"ps", {At(0, 2223)}}, {"worker", {At(1, 2222)}}}, launch);
    auto run = InClient({"launch", project});
    // While it runs, no process of this machine (the hosts share its process table) has the
    // token on its command line.
    QFile token_file(CertsOf("seed.clab") + "/cluster.token");
    QVERIFY(token_file.open(QIODevice::ReadOnly));
    const QString token = QString::fromUtf8(token_file.readAll()).trimmed();
    QVERIFY(!token.isEmpty());
    int looks = 0;
    while (run->running() && looks < 2000) {
      QVERIFY2(ProcessesMentioning(token).isEmpty(), qPrintable(ProcessesMentioning(token).join('\n')));
      ++looks;
      QThread::msleep(20);
    }
    const int code = run->finish(120000);
    const QString output = run->output();
    QVERIFY2(code == 0, qPrintable(QStringLiteral("exit %1: %2").arg(code).arg(output.right(4000))));
    // Each task ran with TLS from its own private directory on its host.
    const QString ps_dir = g_hosts->dir() + "/h1-data/tls/seed/ps-0";
    const QString worker_dir = g_hosts->dir() + "/h2-data/tls/seed/worker-0";
    QVERIFY2(output.contains("[ps/0] Listening on 0.0.0.0:2223 with TLS (certificates from " + ps_dir +
                             ") and the cluster token (from " + ps_dir + "/cluster.token)"),
             qPrintable(output.left(4000)));
    for (const auto& [task_dir, name] :
         {std::pair{ps_dir, QString("ps-0")}, std::pair{worker_dir, QString("worker-0")}}) {
      QCOMPARE(QDir(task_dir).entryList(QDir::Files | QDir::Hidden | QDir::System | QDir::Dirs | QDir::NoDotAndDotDot,
                                        QDir::Name),
               QStringList({"ca.crt", "cluster.token", name + ".crt", name + ".key"}));
      for (const QString& path : {task_dir, QFileInfo(task_dir).path(), QFileInfo(QFileInfo(task_dir).path()).path()})
        QCOMPARE(Mode(path), 0700u);
      for (const QString& file : QDir(task_dir).entryList(QDir::Files)) QCOMPARE(Mode(task_dir + "/" + file), 0600u);
    }
    // No host holds another task's key.
    QVERIFY(!QFileInfo::exists(g_hosts->dir() + "/h1-data/tls/seed/worker-0"));
    QVERIFY(!QFileInfo::exists(g_hosts->dir() + "/h2-data/tls/seed/ps-0"));
    QVERIFY2(output.contains("[ps/0] (started on launch-h1, pid "), qPrintable(output));
    QVERIFY2(output.contains("[worker/0] (started on launch-h2, pid "), qPrintable(output));
    QVERIFY2(output.contains("[ps/0] Serving /job:ps/replica:0/task:0 at grpc://198.18.0.2:2223"), qPrintable(output));
    QVERIFY2(output.count("[worker/0] [[20]]") >= 100, qPrintable(output.right(3000)));
    // The ps saw the worker finish and stopped by itself.
    QVERIFY2(output.contains("[ps/0] Every worker has finished: stopping /job:ps/replica:0/task:0"),
             qPrintable(output.right(3000)));
    QVERIFY2(output.contains("clab launch: the run is over."), qPrintable(output.right(3000)));
    const QList<qint64> pids = ReportedPids(output);
    QCOMPARE(pids.size(), 2);
    for (qint64 pid : pids)
      QVERIFY2(!QFile::exists(QStringLiteral("/proc/%1").arg(pid)), qPrintable(QString::number(pid)));
    QVERIFY2(ProcessesMentioning(g_hosts->dir() + "/h").isEmpty(),
             qPrintable(ProcessesMentioning(g_hosts->dir() + "/h").join('\n')));
    // Its record is gone with it.
    QVERIFY(QDir(g_hosts->dir() + "/state/clusterlab/launches").entryList(QDir::Files).isEmpty());
  }

  void digitsRecoverFromAKilledPsAndStop() {
    // ClusterLab is copied to each host's data directory (scp) and runs from there.
    Json hosts = HostSettings();
    for (auto& [address, entry] : hosts.items()) entry.erase("binary");
    hosts[g_hosts->host(1).address.toStdString()]["checkpoint_dir"] = (g_hosts->dir() + "/h2-data/ckpt").toStdString();
    Json launch = {{"method", "ssh"}, {"hosts", hosts}, {"ssh", {{"copy_binary", true}}}};
    // Long enough to be stopped, not to end.
    const QString project =
        WriteProject("digits-mlp.clab", "digits.clab", {{"ps", {At(0, 2223)}}, {"worker", {At(1, 2222), At(0, 2224)}}},
                     launch, 10000000);
    auto run = InClient({"launch", project, "--ssh_config", g_hosts->sshConfig()});
    QVERIFY2(run->waitFor("[worker/0] (started on launch-h2", 120000), qPrintable(run->output()));
    QVERIFY2(
        run->output().contains("ClusterLab " CLAB_VERSION " at " + g_hosts->dir() + "/h1-data/clusterlab/bin/clab"),
        qPrintable(run->output()));

    // Worker 0 watched as the studio watches it: its monitor service.
    auto watch =
        InClient(QStringList{"watch", g_hosts->host(1).address + ":2222", "--steps"} + ClientAccess("digits.clab"));
    QElapsedTimer timer;
    timer.start();
    while (!watch->waitFor("step global_step=", 2000)) {
      QVERIFY2(timer.elapsed() < 60000, qPrintable(watch->output() + run->output().right(2000)));
      if (!watch->running())  // not listening yet
        watch =
            InClient(QStringList{"watch", g_hosts->host(1).address + ":2222", "--steps"} + ClientAccess("digits.clab"));
    }

    // The ps dies on its host without a word (SIGKILL, over ssh); the launch starts it again.
    auto record = [] {
      QFile file(QDirIterator(g_hosts->dir() + "/state/clusterlab/launches", {"digits-*.json"}).next());
      file.open(QIODevice::ReadOnly);
      return Json::parse(file.readAll().toStdString());
    }();
    long ps_pid = 0;
    for (const Json& task : record["tasks"])
      if (task["name"] == "/job:ps/replica:0/task:0") ps_pid = task["pid"];
    QVERIFY(ps_pid > 0);
    const int steps_before = watch->output().count("step global_step=");
    QVERIFY2(g_hosts->Run(g_hosts->inClient() + QStringList{"ssh", "-F", g_hosts->sshConfig(), g_hosts->host(0).address,
                                                            QStringLiteral("kill -9 %1").arg(ps_pid)}),
             qPrintable(g_hosts->lastOutput()));
    QVERIFY2(run->waitFor("restarting /job:ps/replica:0/task:0 on 198.18.0.2 (it ended with status 137", 30000),
             qPrintable(run->output().right(3000)));
    QVERIFY2(run->waitFor("An error was raised", 30000), qPrintable(run->output().right(3000)));
    // Training goes on: the worker's own event stream shows new steps.
    QVERIFY2(watch->waitForCount("step global_step=", steps_before + 20, 90000),
             qPrintable(watch->output().right(3000) + run->output().right(3000)));
    // ps, two workers, and the ps again.
    QVERIFY2(run->waitForCount("[ps/0] (started on launch-h1", 2, 30000), qPrintable(run->output().right(3000)));
    QCOMPARE(ReportedPids(run->output()).size(), 4);

    // Stopped from elsewhere, through the record: the running launch stops its tasks.
    auto stop = InClient({"launch", project, "--stop"});
    QCOMPARE(stop->finish(120000), 0);
    QVERIFY2(stop->output().contains("Stopped."), qPrintable(stop->output()));
    QVERIFY(run->finish(60000) != 0);
    QVERIFY2(run->output().contains("stopped before the workers finished"), qPrintable(run->output().right(3000)));
    for (qint64 pid : ReportedPids(run->output()))
      QVERIFY2(!QFile::exists(QStringLiteral("/proc/%1").arg(pid)), qPrintable(QString::number(pid)));
    QVERIFY2(ProcessesMentioning(g_hosts->dir() + "/h").isEmpty(),
             qPrintable(ProcessesMentioning(g_hosts->dir() + "/h").join('\n')));
    watch->finish(30000);
  }
};

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  LaunchHosts hosts(2);
  const QString problem = hosts.SetUp();
  if (!problem.isEmpty() && hosts.fault()) {
    std::printf("FAIL: the test's ssh hosts were made but do not work: %s\n", qPrintable(problem));
    return 1;
  }
  if (!problem.isEmpty()) {
    std::printf("SKIP: this machine cannot have the test's ssh hosts: %s\n", qPrintable(problem));
    return 77;
  }
  g_hosts = &hosts;
  // Launch records go to the test's directory, not the home directory.
  qputenv("XDG_STATE_HOME", (hosts.dir() + "/state").toUtf8());
  LaunchSshTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_launch_ssh.moc"
