// `clab launch --via slurm` for real, on a one-node SLURM cluster started for the test
// (SlurmCluster: munged, slurmctld and slurmd from Debian's packages, with a configuration
// of their own): the digits MLP is submitted as a batch job, each task finds its address in
// SLURM's environment, the workers train and report their held-out accuracy, the ps ends
// with them, and the job ends COMPLETED; inside an allocation (salloc) the seed runs as a job
// step; `clab slurm spec` in a real job step gives every rank the same cluster; `clab launch
// --stop` cancels a running job; a protected project's tasks each get their own credentials
// in a private directory of the work directory and run with TLS, the token never on a
// command line. Skipped (exit 77,
// saying why) where the daemons cannot run; by hand:
//   ctest --test-dir build/dev -R tst_launch_slurm --output-on-failure
#include "ClabProcess.h"
#include "LaunchProcess.h"
#include "SlurmCluster.h"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QThread>
#include <QtTest>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <sys/stat.h>

#include <cstdio>

using clab::testing::LaunchProcess;
using clab::testing::SlurmCluster;
using Json = nlohmann::json;

namespace {

SlurmCluster* g_slurm = nullptr;

bool PortFree(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return free;
}

// A base with `count` free ports from it (the node's tasks take base, base + 1, ...).
int FreePortBase(int count) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    const int base = ntohs(addr.sin_port);
    bool all = base + count < 65536;
    for (int i = 0; all && i < count; ++i) all = PortFree(base + i);
    if (all) return base;
  }
  return 0;
}

QString WriteProject(const QString& name, int64_t last_step, const QString& example = "digits-mlp.clab") {
  QFile source(ClabProcess::sourceDir() + "/examples/projects/" + example);
  source.open(QIODevice::ReadOnly);
  Json project = Json::parse(source.readAll().toStdString());
  project["run"]["last_step"] = last_step;
  project["launch"] = {{"method", "slurm"},
                       {"slurm",
                        {{"port_base", FreePortBase(3)},
                         {"overcommit", true},
                         {"work_dir", (g_slurm->dir() + "/jobs-" + name).toStdString()}}}};
  const QString path = g_slurm->dir() + "/" + name + ".clab";
  QFile file(path);
  file.open(QIODevice::WriteOnly | QIODevice::Truncate);
  file.write(QByteArray::fromStdString(project.dump(2)));
  return path;
}

unsigned Mode(const QString& path) {
  struct stat info {};
  if (::lstat(path.toLocal8Bit().constData(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

// Processes whose command line mentions `text`.
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

QString JobState(const QString& job) {
  const QString shown = g_slurm->Client("scontrol", {"-o", "show", "job", job});
  const QRegularExpressionMatch state = QRegularExpression("JobState=(\\S+).*ExitCode=(\\S+)").match(shown);
  return state.hasMatch() ? state.captured(1) + " " + state.captured(2) : shown;
}

}  // namespace

class LaunchSlurmTest : public QObject {
  Q_OBJECT

 private slots:
  void digitsMlpTrainsAsABatchJob() {
    const QString project = WriteProject("digits", 3000);
    LaunchProcess launch({"launch", project, "--via", "slurm"});
    QCOMPARE(launch.finish(240000), 0);
    const QString output = launch.output();
    const QRegularExpressionMatch submitted = QRegularExpression("as job (\\d+);").match(output);
    QVERIFY2(submitted.hasMatch(), qPrintable(output));
    const QString job = submitted.captured(1);
    QVERIFY2(output.contains("clab launch: job " + job + " is RUNNING"), qPrintable(output));
    QVERIFY2(output.contains("clab launch: job " + job + " is COMPLETED"), qPrintable(output.right(2000)));
    // Each rank found its task and address in SLURM's environment.
    QVERIFY2(QRegularExpression("\\[ps/0\\] clab slurm task: rank 0 is /job:ps/replica:0/task:0 at localhost:\\d+")
                 .match(output)
                 .hasMatch(),
             qPrintable(output.left(3000)));
    QVERIFY2(output.contains("[worker/1] clab slurm task: rank 2 is /job:worker/replica:0/task:1 at localhost:"),
             qPrintable(output.left(3000)));
    QVERIFY2(output.contains("[ps/0] Every worker has finished: stopping /job:ps/replica:0/task:0"),
             qPrintable(output.right(3000)));
    // The workers learnt the digits.
    for (int worker = 0; worker < 2; ++worker) {
      const QRegularExpressionMatch learnt =
          QRegularExpression(
              QStringLiteral("\\[worker/%1\\] Worker %1 ran \\d+ steps; held-out accuracy ([0-9.]+)").arg(worker))
              .match(output);
      QVERIFY2(learnt.hasMatch(), qPrintable(output.right(3000)));
      const double accuracy = learnt.captured(1).toDouble();
      qInfo("worker %d: held-out accuracy %.3f", worker, accuracy);
      QVERIFY2(accuracy > 0.85, qPrintable(learnt.captured(0)));
    }
    // SLURM says the same.
    QCOMPARE(JobState(job), QString("COMPLETED 0:0"));
    QVERIFY(QFile::exists(g_slurm->dir() + "/jobs-digits/digits.sbatch"));
  }

  void everyRankOfAStepGetsTheSameCluster() {
    const int base = FreePortBase(3);
    const QString output = g_slurm->Client("srun",
                                           {"-n3", "--overcommit", "--label", ClabProcess::programPath("clab"), "slurm",
                                            "spec", "--jobs", "ps:1,worker:2", "--port_base", QString::number(base)},
                                           60000);
    const QString cluster = QStringLiteral(R"({"ps":["localhost:%1"],"worker":["localhost:%2","localhost:%3"]})")
                                .arg(base)
                                .arg(base + 1)
                                .arg(base + 2);
    for (const char* rank : {"0", "1", "2"})
      QVERIFY2(output.contains(QString(rank) + ": cluster: " + cluster), qPrintable(output));
    QVERIFY2(
        output.contains(QStringLiteral("0: this task (rank 0): /job:ps/replica:0/task:0 at localhost:%1").arg(base)),
        qPrintable(output));
    QVERIFY2(output.contains(
                 QStringLiteral("2: this task (rank 2): /job:worker/replica:0/task:1 at localhost:%1").arg(base + 2)),
             qPrintable(output));
  }

  // Inside an allocation (salloc) the launch runs the step there with srun.
  void seedRunsInsideAnAllocation() {
    const QString project = WriteProject("seed", 200, "seed.clab");
    const QString output = g_slurm->Client(
        "salloc", {"-n2", "--overcommit", ClabProcess::programPath("clab"), "launch", project, "--via", "slurm"},
        120000);
    QVERIFY2(QRegularExpression("clab launch: running the step in allocation \\d+").match(output).hasMatch(),
             qPrintable(output));
    QVERIFY2(output.count("[worker/0] [[20]]") >= 100, qPrintable(output.right(3000)));
    QVERIFY2(output.contains("[ps/0] Every worker has finished"), qPrintable(output.right(3000)));
    QVERIFY2(output.contains("clab launch: the run is over."), qPrintable(output.right(3000)));
  }

  // The seed as a protected batch job: certificates for the node (localhost) made with
  // `clab cert`, staged per task into WORK/tls/JOB-INDEX/ (0700, files 0600), the tasks
  // listening with TLS from there.
  void protectedSeedRunsWithItsOwnCredentials() {
    const QString project = WriteProject("guarded", 200, "seed.clab");
    const QString certs = g_slurm->dir() + "/guarded-certs";
    const ProgramResult made =
        ClabProcess::clab({"cert", "--out", certs, "--cluster", "ps=localhost:1;worker=localhost:2"});
    QVERIFY2(made.exitCode == 0, qPrintable(made.out + made.err));
    QFile file(project);
    QVERIFY(file.open(QIODevice::ReadOnly));
    Json json = Json::parse(file.readAll().toStdString());
    file.close();
    json["security"] = {{"tls_dir", certs.toStdString()}, {"token_file", (certs + "/cluster.token").toStdString()}};
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QByteArray::fromStdString(json.dump(2)));
    file.close();
    QFile token_file(certs + "/cluster.token");
    QVERIFY(token_file.open(QIODevice::ReadOnly));
    const QString token = QString::fromUtf8(token_file.readAll()).trimmed();

    LaunchProcess launch({"launch", project, "--via", "slurm"});
    int looks = 0;
    while (launch.running() && looks < 3000) {
      QVERIFY2(ProcessesMentioning(token).isEmpty(), qPrintable(ProcessesMentioning(token).join('\n')));
      ++looks;
      QThread::msleep(20);
    }
    QCOMPARE(launch.finish(240000), 0);
    const QString output = launch.output();
    const QString tls = g_slurm->dir() + "/jobs-guarded/tls";
    for (const QString& task : {QString("ps-0"), QString("worker-0")}) {
      QCOMPARE(Mode(tls + "/" + task), 0700u);
      QCOMPARE(QDir(tls + "/" + task).entryList(QDir::Files | QDir::Hidden, QDir::Name),
               QStringList({"ca.crt", "cluster.token", task + ".crt", task + ".key"}));
      for (const QString& name : QDir(tls + "/" + task).entryList(QDir::Files))
        QCOMPARE(Mode(tls + "/" + task + "/" + name), 0600u);
    }
    QCOMPARE(Mode(tls), 0700u);
    QVERIFY2(QRegularExpression("\\[ps/0\\] Listening on 127\\.0\\.0\\.1:\\d+ with TLS \\(certificates from " +
                                QRegularExpression::escape(tls + "/ps-0") + "\\)")
                 .match(output)
                 .hasMatch(),
             qPrintable(output.left(3000)));
    QVERIFY2(output.count("[worker/0] [[20]]") >= 100, qPrintable(output.right(3000)));
    QVERIFY2(!output.contains(token), "the token was printed");
  }

  void stopCancelsTheJob() {
    const QString project = WriteProject("long", 100000000);
    LaunchProcess launch({"launch", project, "--via", "slurm"});
    QVERIFY2(launch.waitFor("is RUNNING", 60000), qPrintable(launch.output()));
    QVERIFY2(launch.waitFor("[worker/0] clab slurm task:", 60000), qPrintable(launch.output()));
    const QString job = QRegularExpression("as job (\\d+);").match(launch.output()).captured(1);
    LaunchProcess stop({"launch", project, "--stop"});
    QCOMPARE(stop.finish(120000), 0);
    QVERIFY(launch.finish(120000) != 0);
    QVERIFY2(launch.output().contains("job " + job + " was cancelled"), qPrintable(launch.output().right(2000)));
    QVERIFY2(JobState(job).startsWith("CANCELLED"), qPrintable(JobState(job)));
  }
};

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  SlurmCluster slurm;
  const QString problem = slurm.SetUp();
  if (!problem.isEmpty()) {
    std::printf("SKIP: cannot run SLURM's daemons here: %s\n", qPrintable(problem));
    return 77;
  }
  g_slurm = &slurm;
  // The test's cluster for every clab and SLURM command it runs; launch records in its
  // directory; no allocation of an outer SLURM mistaken for the test's.
  for (const QString& name : QProcessEnvironment::systemEnvironment().keys())
    if (name.startsWith("SLURM_")) qunsetenv(qPrintable(name));
  qputenv("SLURM_CONF", slurm.environment().value("SLURM_CONF").toUtf8());
  qputenv("XDG_STATE_HOME", (slurm.dir() + "/state").toUtf8());
  LaunchSlurmTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_launch_slurm.moc"
