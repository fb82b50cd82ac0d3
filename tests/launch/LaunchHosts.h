// Hosts for the launch tests, made on this machine: a network namespace for the client (the
// `clab launch` that the test runs) holding a bridge, and one namespace per host joined to
// the bridge by a veth pair, each with its own address in 198.18.0.0/15 (set aside for
// network tests), its own host name (unshare --uts), its own home directory for root (an
// empty directory of the test mounted over /root in the host's own mount namespace: the
// remote shell reads no start-up files of this machine, which may be slow or ask for
// things) and its own OpenSSH server (its own host key and configuration, key login
// only). Nothing is added to the root namespace. The
// client's ssh configuration (a file for `ssh -F`) knows every host's key and logs in as
// root with a key made for the test. The destructor stops the servers, ends whatever still
// runs from the test's directory (a task a failed test left on a host: its program, log and
// data are all there) and removes the namespaces, whatever happened in between.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <signal.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace clab::testing {

class LaunchHosts {
 public:
  struct Host {
    QString name_space;
    QString hostname;  // what the host calls itself
    QString address;
    std::unique_ptr<QProcess> sshd;
  };

  explicit LaunchHosts(int hosts) : suffix_(QString::number(::getpid())) {
    client_ = "clab-launch-" + suffix_ + "-c";
    for (int i = 1; i <= hosts; ++i) {
      auto host = std::make_unique<Host>();
      host->name_space = QStringLiteral("clab-launch-%1-h%2").arg(suffix_).arg(i);
      host->hostname = QStringLiteral("launch-h%1").arg(i);
      host->address = QStringLiteral("198.18.0.%1").arg(i + 1);
      hosts_.push_back(std::move(host));
    }
  }
  ~LaunchHosts() { TearDown(); }

  // "" once every host answers over ssh; else why not. Either this machine cannot have the
  // hosts (not root, a program missing, no network namespaces, sshd cannot run: the test
  // skips), or they were made and do not work as they should (fault(): the test fails).
  QString SetUp() {
    if (::geteuid() != 0) return "network namespaces need root";
    for (const char* program :
         {"/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/unshare", "/usr/bin/mount"})
      if (!QFile::exists(program))
        return QStringLiteral("%1 is not installed (openssh-server, openssh-client, util-linux, mount)").arg(program);
    if (!dir_.isValid()) return "cannot make a temporary directory";
    if (QString problem = MakeNetwork(); !problem.isEmpty()) return problem;
    if (!Run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_.filePath("id_ed25519")}))
      return Fault("ssh-keygen failed: " + last_output_);
    QFile::copy(dir_.filePath("id_ed25519.pub"), dir_.filePath("authorized_keys"));
    // sshd's privilege separation needs its directory.
    QDir().mkpath("/run/sshd");
    QString known_hosts;
    for (auto& host : hosts_) {
      const QString key = dir_.filePath(host->hostname + "_host_key");
      if (!Run({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key}))
        return Fault("ssh-keygen failed: " + last_output_);
      QFile public_key(key + ".pub");
      public_key.open(QIODevice::ReadOnly);
      known_hosts += host->address + " " + QString::fromUtf8(public_key.readAll()).section(' ', 0, 1) + "\n";
      const QString config = dir_.filePath(host->hostname + "_sshd_config");
      Write(config, QStringLiteral("Port 22\nListenAddress %1\nHostKey %2\nPidFile %3\nUsePAM no\nStrictModes no\n"
                                   "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                                   "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                                   "AuthorizedKeysFile %4\nSubsystem sftp /usr/lib/openssh/sftp-server\n")
                        .arg(host->address, key, dir_.filePath(host->hostname + "_sshd.pid"),
                             dir_.filePath("authorized_keys")));
      const QString home = dir_.filePath(host->hostname + "_home");
      if (!QDir().mkpath(home)) return "cannot make " + home;
      host->sshd = std::make_unique<QProcess>();
      host->sshd->setProcessChannelMode(QProcess::MergedChannels);
      host->sshd->start("ip", {"netns", "exec", host->name_space, "unshare", "--uts", "--mount", "--propagation",
                               "private", "sh", "-c",
                               QStringLiteral("mount --bind %1 /root && hostname %2 && exec /usr/sbin/sshd -D -e -f %3")
                                   .arg(home, host->hostname, config)});
      if (!host->sshd->waitForStarted(5000)) return "cannot start sshd: " + host->sshd->errorString();
    }
    Write(dir_.filePath("known_hosts"), known_hosts);
    Write(sshConfig(), QStringLiteral("Host *\n  User root\n  IdentityFile %1\n  IdentitiesOnly yes\n"
                                      "  UserKnownHostsFile %2\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
                           .arg(dir_.filePath("id_ed25519"), dir_.filePath("known_hosts")));
    // Each server answers before the test begins (sshd listens a moment after it starts).
    for (auto& host : hosts_) {
      QElapsedTimer waited;
      waited.start();
      while (
          !Run(inClient() + QStringList{"ssh", "-F", sshConfig(), "-o", "BatchMode=yes", host->address, "hostname"})) {
        if (host->sshd->state() == QProcess::NotRunning)
          return "sshd did not start: " + QString::fromUtf8(host->sshd->readAll());
        if (waited.elapsed() > 20000) return Fault("sshd on " + host->address + " does not answer: " + last_output_);
        host->sshd->waitForReadyRead(200);
      }
      if (last_output_.trimmed() != host->hostname)
        return Fault("the host name is not the namespace's own: " + last_output_);
    }
    return {};
  }

  void TearDown() {
    for (auto& host : hosts_) {
      if (host->sshd && host->sshd->state() != QProcess::NotRunning) {
        host->sshd->terminate();
        if (!host->sshd->waitForFinished(5000)) host->sshd->kill();
        host->sshd->waitForFinished(2000);
      }
    }
    // Only processes of this test mention its unique directory in their command lines.
    for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
      if (pid.toLongLong() <= 1 || pid.toLongLong() == ::getpid()) continue;
      QFile cmdline("/proc/" + pid + "/cmdline");
      if (cmdline.open(QIODevice::ReadOnly) && QString::fromUtf8(cmdline.readAll()).contains(dir_.path()))
        ::kill(static_cast<pid_t>(pid.toLongLong()), SIGKILL);
    }
    for (auto& host : hosts_) Run({"ip", "netns", "del", host->name_space});
    Run({"ip", "netns", "del", client_});
  }

  QStringList inClient() const { return {"ip", "netns", "exec", client_}; }
  QStringList inHost(int i) const { return {"ip", "netns", "exec", hosts_[static_cast<size_t>(i)]->name_space}; }
  const Host& host(int i) const { return *hosts_[static_cast<size_t>(i)]; }
  QString sshConfig() const { return dir_.filePath("ssh_config"); }
  QString dir() const { return dir_.path(); }
  bool fault() const { return fault_; }
  const QString& lastOutput() const { return last_output_; }

  // Runs a short command to its end; true when it exits 0.
  bool Run(const QStringList& command, int timeout_ms = 30000) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(command.first(), command.mid(1));
    if (!process.waitForStarted(5000)) {
      last_output_ = "cannot run " + command.first();
      return false;
    }
    const bool finished = process.waitForFinished(timeout_ms);
    last_output_ = QString::fromUtf8(process.readAll());
    if (!finished) {
      process.kill();
      process.waitForFinished(5000);
      last_output_ += QStringLiteral("(%1 did not finish within %2 s)").arg(command.join(' ')).arg(timeout_ms / 1000);
      return false;
    }
    return process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
  }

 private:
  QString Fault(const QString& problem) {
    fault_ = true;
    return problem;
  }

  QString MakeNetwork() {
    QList<QStringList> steps = {{"netns", "add", client_},
                                {"-n", client_, "link", "add", "br0", "type", "bridge"},
                                {"-n", client_, "addr", "add", "198.18.0.1/24", "dev", "br0"},
                                {"-n", client_, "link", "set", "br0", "up"},
                                {"-n", client_, "link", "set", "lo", "up"}};
    for (size_t i = 0; i < hosts_.size(); ++i) {
      const Host& host = *hosts_[i];
      const QString outer = QStringLiteral("lc%1b%2").arg(suffix_).arg(i + 1);
      const QString inner = QStringLiteral("lc%1h%2").arg(suffix_).arg(i + 1);
      steps += QList<QStringList>{
          {"netns", "add", host.name_space},
          {"link", "add", outer, "netns", client_, "type", "veth", "peer", "name", inner, "netns", host.name_space},
          {"-n", client_, "link", "set", outer, "master", "br0"},
          {"-n", client_, "link", "set", outer, "up"},
          {"-n", host.name_space, "addr", "add", host.address + "/24", "dev", inner},
          {"-n", host.name_space, "link", "set", inner, "up"},
          {"-n", host.name_space, "link", "set", "lo", "up"}};
    }
    for (const QStringList& step : steps)
      if (!Run(QStringList{"ip"} + step))
        return QStringLiteral("'ip %1' failed: %2").arg(step.join(' '), last_output_.trimmed());
    return {};
  }

  static void Write(const QString& path, const QString& text) {
    QFile file(path);
    file.open(QIODevice::WriteOnly | QIODevice::Truncate);
    file.write(text.toUtf8());
  }

  const QString suffix_;
  QString client_;
  std::vector<std::unique_ptr<Host>> hosts_;
  QTemporaryDir dir_;
  QString last_output_;
  bool fault_ = false;
};

}  // namespace clab::testing
