// A one-node SLURM cluster on this machine for the launch tests: munged (as the munge user,
// with a key, socket and files of its own), slurmctld and slurmd (SLURM 22.05 from Debian)
// in the foreground with a configuration of their own (free ports, state and spool in a
// temporary directory, no cgroups, no accounting, node "localhost" with 2 CPUs), so that it
// meets no other SLURM or munge on the machine. Clients find it through SLURM_CONF
// (environment()). The destructor shuts the daemons down.
#pragma once

#include "network/LoopbackPorts.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <memory>

namespace clab::testing {

class SlurmCluster {
 public:
  ~SlurmCluster() { TearDown(); }

  // "" once the node is idle; else why the daemons cannot run here.
  QString SetUp() {
    if (::geteuid() != 0) return "slurmctld, slurmd and munged are started as root here; this test runs only as root";
    for (const char* program : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch",
                                "/usr/bin/squeue", "/usr/bin/scontrol", "/usr/bin/srun", "/usr/bin/setpriv"})
      if (!QFile::exists(program))
        return QStringLiteral("%1 is not installed (slurmctld, slurmd, slurm-client, munge)").arg(program);
    const passwd* munge = ::getpwnam("munge");
    if (munge == nullptr) return "there is no munge user (the munge package makes it)";
    if (!dir_.isValid()) return "cannot make a temporary directory";
    // The munge user must reach its socket through the directories above it.
    QFile::setPermissions(dir_.path(), QFile::permissions(dir_.path()) | QFile::ExeOther | QFile::ExeGroup);
    const QString munge_dir = dir_.filePath("munge");
    QDir().mkpath(munge_dir);
    QFile key(munge_dir + "/munge.key");
    key.open(QIODevice::WriteOnly);
    QByteArray bytes(1024, 0);
    for (char& byte : bytes) byte = static_cast<char>(QRandomGenerator::system()->generate());
    key.write(bytes);
    key.close();
    if (::chown(qPrintable(munge_dir), munge->pw_uid, munge->pw_gid) != 0 ||
        ::chown(qPrintable(key.fileName()), munge->pw_uid, munge->pw_gid) != 0)
      return "cannot give the munge key to the munge user";
    QFile::setPermissions(munge_dir,
                          QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther);
    QFile::setPermissions(key.fileName(), QFile::ReadOwner);
    socket_ = munge_dir + "/munge.socket";
    // munged refuses to run as root; setpriv makes it the munge user without another process.
    munged_ = Start("/usr/bin/setpriv",
                    {"--reuid=munge", "--regid=munge", "--init-groups", "/usr/sbin/munged", "--foreground",
                     "--socket=" + socket_, "--key-file=" + key.fileName(), "--pid-file=" + munge_dir + "/munged.pid",
                     "--log-file=" + munge_dir + "/munged.log", "--seed-file=" + munge_dir + "/munged.seed"});
    if (!WaitFor([&] { return QFile::exists(socket_); }, 20000, munged_.get()))
      return "munged did not start: " + Said(munged_.get()) + ReadFile(munge_dir + "/munged.log");

    const auto ports = tools::PickFreeLoopbackPorts(2);
    if (!ports.ok()) return QString::fromStdString(std::string(ports.status().message()));
    const QString conf = dir_.filePath("slurm.conf");
    QDir().mkpath(dir_.filePath("state"));
    QDir().mkpath(dir_.filePath("spool"));
    QFile file(conf);
    file.open(QIODevice::WriteOnly);
    file.write(QStringLiteral(
                   "ClusterName=clablaunch\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=%1\nSlurmdPort=%2\n"
                   "AuthType=auth/munge\nAuthInfo=socket=%3\nCredType=cred/munge\nSlurmUser=root\nSlurmdUser=root\n"
                   "StateSaveLocation=%4/state\nSlurmdSpoolDir=%4/spool\nSlurmctldPidFile=%4/slurmctld.pid\n"
                   "SlurmdPidFile=%4/slurmd.pid\nSlurmctldLogFile=%4/slurmctld.log\nSlurmdLogFile=%4/slurmd.log\n"
                   "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
                   "AccountingStorageType=accounting_storage/none\nMpiDefault=none\nMailProg=/bin/true\n"
                   "ReturnToService=2\nMinJobAge=600\n"
                   "NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n"
                   "PartitionName=main Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n")
                   .arg((*ports)[0])
                   .arg((*ports)[1])
                   .arg(socket_, dir_.path())
                   .toUtf8());
    file.close();
    environment_ = QProcessEnvironment::systemEnvironment();
    environment_.insert("SLURM_CONF", conf);
    // The launch being tested must not think it runs inside an allocation.
    for (const QString& name : environment_.keys())
      if (name.startsWith("SLURM_") && name != "SLURM_CONF") environment_.remove(name);
    slurmctld_ = Start("/usr/sbin/slurmctld", {"-D", "-f", conf});
    slurmd_ = Start("/usr/sbin/slurmd", {"-D", "-f", conf, "-N", "localhost"});
    QString state;
    const bool idle = WaitFor(
        [&] {
          state = Client("sinfo", {"-h", "-o", "%T"}).trimmed();
          return state == "idle";
        },
        30000, slurmd_.get());
    if (!idle)
      return QStringLiteral("the node did not become idle (sinfo: '%1'): slurmctld: %2 %3; slurmd: %4 %5")
          .arg(state, Said(slurmctld_.get()), ReadFile(dir_.filePath("slurmctld.log")).right(600), Said(slurmd_.get()),
               ReadFile(dir_.filePath("slurmd.log")).right(600));
    return {};
  }

  void TearDown() {
    if (slurmctld_ && slurmctld_->state() != QProcess::NotRunning) Client("scontrol", {"shutdown"});
    for (auto* daemon : {slurmd_.get(), slurmctld_.get(), munged_.get()}) {
      if (daemon == nullptr || daemon->state() == QProcess::NotRunning) continue;
      if (!daemon->waitForFinished(10000)) {
        daemon->terminate();
        if (!daemon->waitForFinished(5000)) daemon->kill();
        daemon->waitForFinished(2000);
      }
    }
  }

  const QProcessEnvironment& environment() const { return environment_; }
  QString dir() const { return dir_.path(); }

  // A SLURM client command's output (stdout and stderr).
  QString Client(const QString& program, const QStringList& args, int timeout_ms = 30000) {
    QProcess process;
    process.setProcessEnvironment(environment_);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    process.waitForFinished(timeout_ms);
    return QString::fromUtf8(process.readAll());
  }

 private:
  std::unique_ptr<QProcess> Start(const QString& program, const QStringList& args) {
    auto process = std::make_unique<QProcess>();
    process->setProcessChannelMode(QProcess::MergedChannels);
    process->start(program, args);
    process->waitForStarted(5000);
    return process;
  }

  // Polls `ready` until it holds, `process` ends, or the time is up.
  template <typename Ready>
  static bool WaitFor(Ready ready, int timeout_ms, QProcess* process) {
    QElapsedTimer timer;
    timer.start();
    while (!ready()) {
      if (timer.elapsed() > timeout_ms || process->state() == QProcess::NotRunning) return ready();
      process->waitForReadyRead(200);
    }
    return true;
  }

  static QString Said(QProcess* process) { return QString::fromUtf8(process->readAll()).right(600); }
  static QString ReadFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
  }

  QTemporaryDir dir_;
  QString socket_;
  QProcessEnvironment environment_;
  std::unique_ptr<QProcess> munged_;
  std::unique_ptr<QProcess> slurmctld_;
  std::unique_ptr<QProcess> slurmd_;
};

}  // namespace clab::testing
