// A project's launch settings and the task command lines, without running anything: the
// "launch" section of a .clab file read and written (every setting kept, each wrong one
// named with its place), every example project still read as it was, and the ClusterLab
// command line each task gets wherever it runs; for a protected cluster, what each task's
// private credential directory holds (its own key only), with which modes, made here and by
// the remote scripts, and that no token or key is ever on a command line.
#include "launch/project/LaunchSettings.h"
#include "launch/project/ProjectFile.h"
#include "launch/project/TextFile.h"
#include "launch/record/LaunchRecord.h"
#include "launch/security/ClusterCertificates.h"
#include "launch/security/TaskCredentials.h"
#include "launch/slurm/SbatchScript.h"
#include "launch/ssh/RemoteScript.h"
#include "launch/ssh/ShellQuote.h"
#include "launch/ssh/SshTarget.h"
#include "launch/task/TaskCommand.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace clab;
using namespace clab::launch;

namespace {

QString SourceDir() {
  const QString fromEnv = qEnvironmentVariable("CLAB_SOURCE_DIR");
  return fromEnv.isEmpty() ? QStringLiteral(CLAB_SOURCE_DIR_FALLBACK) : fromEnv;
}

std::string Message(const Status& status) { return std::string(status.message()); }

nlohmann::json MinimalProject() {
  return nlohmann::json::parse(R"({"format": "clusterlab-project", "version": 1, "name": "t",
      "cluster": {"ps": ["198.18.0.2:2223"], "worker": ["198.18.0.3:2222", "198.18.0.2:2224"]},
      "program": "digits-mlp", "run": {"last_step": 500, "checkpoint_dir": "/tmp/ckpt"}})");
}

// A file's permission bits (0: missing).
unsigned Mode(const QString& path) {
  struct stat info {};
  if (::lstat(path.toLocal8Bit().constData(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

QStringList Args(const std::vector<std::string>& args) {
  QStringList list;
  for (const std::string& arg : args) list << QString::fromStdString(arg);
  return list;
}

}  // namespace

class LaunchSettingsTest : public QObject {
  Q_OBJECT

 private slots:
  void everyExampleProjectStillReads() {
    const QDir dir(SourceDir() + "/examples/projects");
    const QStringList files = dir.entryList({"*.clab"});
    QVERIFY(files.size() >= 5);
    for (const QString& file : files) {
      auto project = ProjectFile::Read(dir.filePath(file).toStdString());
      QVERIFY2(project.ok(), project.status().ToString().c_str());
      // Written before the launch section existed: the defaults.
      QVERIFY2(project->launch.IsDefault(), qPrintable(file));
      QCOMPARE(QString::fromStdString(project->launch.method), QString("local"));
    }
    auto seed = ProjectFile::Read((SourceDir() + "/examples/projects/seed.clab").toStdString());
    QCOMPARE(QString::fromStdString(seed->cluster.ToInline()), QString("ps=127.0.0.1:2223;worker=127.0.0.1:2222"));
    QCOMPARE(QString::fromStdString(seed->Stem()), QString("seed"));
  }

  void launchSettingsRoundTrip() {
    nlohmann::json json = MinimalProject();
    json["launch"] = nlohmann::json::parse(R"({"method": "ssh",
        "hosts": {"198.18.0.2": {"user": "ana", "ssh_port": 2200, "binary": "/opt/clab/bin/clab",
                                 "data_dir": "/var/tmp/clab", "checkpoint_dir": "/var/tmp/ckpt"},
                  "*": {"data_dir": "/scratch"}},
        "ssh": {"copy_binary": true, "restart": "never", "max_restarts": 1, "connect_timeout_s": 4,
                "config": "/etc/lab/ssh_config"},
        "slurm": {"port_base": 9000, "partition": "gpu", "time_limit": "00:10:00", "work_dir": "/shared",
                  "binary": "/shared/clab", "overcommit": true, "sbatch_options": ["--gres=gpu:1"]},
        "kubernetes": {"image": "lab/clab:1", "namespace": "ml", "binary": "clab", "cpu": "500m",
                       "memory": "2Gi", "gpus": 1, "checkpoint_claim": "ckpt", "checkpoint_path": "/ckpt",
                       "restart_policy": "ExitCode"}})");
    auto project = ProjectFile::FromJson(json, "t.clab");
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    const LaunchSettings& launch = project->launch;
    QCOMPARE(QString::fromStdString(launch.method), QString("ssh"));
    QCOMPARE(launch.ForHost("198.18.0.2").ssh_port, 2200);
    QCOMPARE(QString::fromStdString(launch.ForHost("198.18.0.2").user), QString("ana"));
    // A host without its own entry takes "*".
    QCOMPARE(QString::fromStdString(launch.ForHost("198.18.0.3").data_dir), QString("/scratch"));
    QCOMPARE(QString::fromStdString(launch.ForHost("198.18.0.3").BinaryOrDefault()), QString("clab"));
    QVERIFY(launch.ssh.copy_binary);
    QCOMPARE(launch.slurm.port_base, 9000);
    QCOMPARE(QString::fromStdString(launch.kubernetes.name_space), QString("ml"));
    // Written and read again: the same settings.
    auto again = LaunchSettings::FromJson(launch.ToJson());
    QVERIFY2(again.ok(), again.status().ToString().c_str());
    QVERIFY(*again == launch);
    QVERIFY(!again->IsDefault());
  }

  void wrongSettingsAreNamed_data() {
    QTest::addColumn<QString>("launch");
    QTest::addColumn<QString>("message");
    QTest::newRow("method") << R"({"method": "mpi"})"
                            << "launch.method: 'mpi' is not one of local, ssh, slurm, kubernetes";
    QTest::newRow("port type") << R"({"hosts": {"h1": {"ssh_port": "22"}}})"
                               << "launch.hosts.h1.ssh_port: wants a whole number";
    QTest::newRow("port range") << R"({"hosts": {"h1": {"ssh_port": 70000}}})"
                                << "launch.hosts.h1.ssh_port: 70000 is out of range (0-65535)";
    QTest::newRow("misspelt") << R"({"hosts": {"h1": {"usr": "ana"}}})"
                              << "launch.hosts.h1.usr: unknown setting";
    QTest::newRow("restart") << R"({"ssh": {"restart": "always"}})"
                             << "launch.ssh.restart: 'always' is not one of on-failure, never";
    QTest::newRow("namespace") << R"({"kubernetes": {"namespace": "ML_Team"}})"
                               << "launch.kubernetes.namespace: 'ML_Team' is not a DNS label";
    QTest::newRow("quantity") << R"({"kubernetes": {"cpu": "2 cores"}})"
                              << "launch.kubernetes.cpu: '2 cores' is not a Kubernetes quantity";
    QTest::newRow("options list") << R"({"slurm": {"sbatch_options": "--gres=gpu:1"}})"
                                  << "launch.slurm.sbatch_options: wants a list of strings";
    QTest::newRow("not an object") << R"([1])"
                                   << "launch: wants an object";
  }
  void wrongSettingsAreNamed() {
    QFETCH(QString, launch);
    QFETCH(QString, message);
    nlohmann::json json = MinimalProject();
    json["launch"] = nlohmann::json::parse(launch.toStdString());
    auto project = ProjectFile::FromJson(json, "p.clab");
    QVERIFY(!project.ok());
    const QString text = QString::fromStdString(Message(project.status()));
    QVERIFY2(text.startsWith("p.clab: " + message), qPrintable(text));
  }

  void taskCommandLines() {
    auto project = ProjectFile::FromJson(MinimalProject(), "p.clab");
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    TaskCommandOptions ps;
    ps.cluster = project->cluster.ToInline();
    ps.job = "ps";
    QCOMPARE(Args(TaskArguments(*project, ps)),
             QStringList({"server", "--cluster", "ps=198.18.0.2:2223;worker=198.18.0.3:2222,198.18.0.2:2224",
                          "--job_name", "ps", "--task_index", "0", "--until_workers_done"}));
    TaskCommandOptions chief = ps;
    chief.job = "worker";
    chief.checkpoint_dir = "/var/tmp/ckpt";
    chief.wait_for_watcher_ms = 10000;
    QCOMPARE(Args(TaskArguments(*project, chief)),
             QStringList({"example", "train", "--model", "digits-mlp", "--cluster",
                          "ps=198.18.0.2:2223;worker=198.18.0.3:2222,198.18.0.2:2224", "--job_name", "worker",
                          "--task_index", "0", "--last_step", "500", "--wait_for_watcher_ms", "10000",
                          "--log_device_placement", "--checkpoint_dir", "/var/tmp/ckpt"}));
    // The project's checkpoint interval goes to the chief with its directory.
    ProjectFile every = *project;
    every.run.save_checkpoint_steps = 50;
    every.run.save_checkpoint_secs = 30;
    QCOMPARE(Args(TaskArguments(every, chief)).mid(15),
             QStringList({"--checkpoint_dir", "/var/tmp/ckpt", "--save_checkpoint_steps", "50",
                          "--save_checkpoint_secs", "30"}));
    // Only the chief writes checkpoints.
    TaskCommandOptions other = chief;
    other.index = 1;
    QVERIFY(!Args(TaskArguments(*project, other)).contains("--checkpoint_dir"));
    // From TF_CONFIG (a pod): no cluster flags, and every worker is told the directory.
    TaskCommandOptions pod;
    pod.job = "worker";
    pod.index = -1;
    pod.checkpoint_dir = "/ckpt";
    // (the workers wait for the ps's watch, which ends it with them)
    QCOMPARE(Args(TaskArguments(*project, pod)),
             QStringList({"example", "train", "--model", "digits-mlp", "--last_step", "500", "--wait_for_watcher_ms",
                          "30000", "--log_device_placement", "--checkpoint_dir", "/ckpt"}));
    pod.until_workers_done = false;
    QVERIFY(!Args(TaskArguments(*project, pod)).contains("--wait_for_watcher_ms"));
    // A project with its own graph runs it with `clab example graph`.
    project->graph = "node { name: \"x\" op: \"Const\" }";
    TaskCommandOptions graph = other;
    graph.graph_path = "/data/p.graph.pbtxt";
    QCOMPARE(Args(TaskArguments(*project, graph)).mid(0, 6),
             QStringList({"example", "graph", "--graph", "/data/p.graph.pbtxt", "--print_every", "1"}));
  }

  void securityReachesEveryTask() {
    nlohmann::json json = MinimalProject();
    json["security"] = {{"tls_dir", "/etc/clab/certs"}, {"token_file", "/etc/clab/certs/cluster.token"}};
    auto project = ProjectFile::FromJson(json, "p.clab");
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    QCOMPARE(QString::fromStdString(project->security.ToJson().dump()),
             QString(R"({"tls_dir":"/etc/clab/certs","token_file":"/etc/clab/certs/cluster.token"})"));
    for (const char* job : {"ps", "worker"}) {
      TaskCommandOptions task;
      task.cluster = project->cluster.ToInline();
      task.job = job;
      const QStringList args = Args(TaskArguments(*project, task));
      const int at = static_cast<int>(args.indexOf("--tls_dir"));
      QVERIFY2(at > 0, qPrintable(args.join(' ')));
      QCOMPARE(args.mid(at, 4),
               QStringList({"--tls_dir", "/etc/clab/certs", "--token_file", "/etc/clab/certs/cluster.token"}));
      QVERIFY(!args.contains("--insecure_listen_all"));
    }
    // Also from TF_CONFIG (a pod), and the explicit choice to listen unprotected.
    json["security"] = {{"insecure_listen_all", true}};
    project = ProjectFile::FromJson(json, "p.clab");
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    TaskCommandOptions pod;
    pod.job = "ps";
    QCOMPARE(Args(TaskArguments(*project, pod)),
             QStringList({"server", "--insecure_listen_all", "--until_workers_done"}));
    // Half the TLS settings, or a misspelt one, is named.
    json["security"] = {{"tls_dir", "/etc/clab/certs"}};
    auto half = ProjectFile::FromJson(json, "p.clab");
    QVERIFY(!half.ok());
    QVERIFY2(Message(half.status()).find("security: tls_dir and token_file go together") != std::string::npos,
             Message(half.status()).c_str());
    json["security"] = {{"tls_folder", "/etc/clab/certs"}};
    auto misspelt = ProjectFile::FromJson(json, "p.clab");
    QVERIFY(!misspelt.ok());
    QVERIFY2(Message(misspelt.status()).find("tls_folder") != std::string::npos, Message(misspelt.status()).c_str());
  }

  // Each task's credentials: the CA, its own certificate and key and the token, found in
  // the project's security folder, staged into a private directory, and named by flags.
  void credentialsAreStagedPrivately() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    nlohmann::json json = MinimalProject();
    const std::string certs = dir.filePath("certs").toStdString();
    json["security"] = {{"tls_dir", certs}, {"token_file", certs + "/cluster.token"}};
    auto project = ProjectFile::FromJson(json, "p.clab");
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    ClusterCertificateOptions options;
    options.dir = certs;
    options.cluster = project->cluster;
    auto made = MakeClusterCertificates(options);
    QVERIFY2(made.ok(), made.status().ToString().c_str());
    auto token = ReadTextFile(certs + "/cluster.token");
    QVERIFY(token.ok() && !token->empty());

    auto found = TaskCredentials::Find(project->security, "worker", 1);
    QVERIFY2(found.ok(), found.status().ToString().c_str());
    QCOMPARE(found->cert_name, std::string("worker-1"));
    QCOMPARE(found->Names(), (std::vector<std::string>{"ca.crt", "worker-1.crt", "worker-1.key", "cluster.token"}));
    QCOMPARE(found->files[2].source, certs + "/worker-1.key");
    QVERIFY(found->files[2].secret && found->files[3].secret && !found->files[0].secret);
    auto missing = TaskCredentials::Find(project->security, "worker", 5);
    QCOMPARE(missing.status().code(), absl::StatusCode::kNotFound);
    QVERIFY2(Message(missing.status()).find(certs + "/worker-5.crt") != std::string::npos &&
                 Message(missing.status()).find("clab cert --out") != std::string::npos,
             Message(missing.status()).c_str());

    // Staged here (SLURM's shared work directory): 0700, 0600, exactly the four files.
    const QString stage = dir.filePath("work/tls/worker-1");
    QVERIFY(QDir().mkpath(stage));
    QFile stale(stage + "/ps-0.key");
    QVERIFY(stale.open(QIODevice::WriteOnly));
    stale.close();
    QVERIFY2(found->StageLocally(stage.toStdString()).ok(), "staging failed");
    QCOMPARE(Mode(stage), 0700u);
    QCOMPARE(QDir(stage).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name),
             QStringList({"ca.crt", "cluster.token", "worker-1.crt", "worker-1.key"}));
    for (const QString& name : QDir(stage).entryList(QDir::Files)) QCOMPARE(Mode(stage + "/" + name), 0600u);
    QCOMPARE(*ReadTextFile((stage + "/cluster.token").toStdString()), *token);
    QCOMPARE(*ReadTextFile((stage + "/worker-1.key").toStdString()), *ReadTextFile(certs + "/worker-1.key"));

    // The task's flags name the directory and the token's file, never the token.
    TaskCommandOptions task;
    task.cluster = project->cluster.ToInline();
    task.job = "worker";
    task.index = 1;
    task.security = TaskCredentials::InDirectory(project->security, stage.toStdString());
    const QStringList args = Args(TaskArguments(*project, task));
    const int at = static_cast<int>(args.indexOf("--tls_dir"));
    QVERIFY2(at > 0, qPrintable(args.join(' ')));
    QCOMPARE(args.mid(at, 4), QStringList({"--tls_dir", stage, "--token_file", stage + "/cluster.token"}));
    const QString trimmed_token = QString::fromStdString(*token).trimmed();
    for (const QString& arg : args) {
      QVERIFY(!arg.contains(trimmed_token));
      QVERIFY(!arg.contains("PRIVATE KEY"));
    }

    // SLURM: the step points each task at the staged directories; the script holds no secret.
    SbatchScriptInput input;
    input.program = "/opt/clab";
    input.project_copy = "/shared/p.clab";
    input.work_dir = "/shared";
    input.num_tasks = 3;
    input.tls_root = "/shared/tls";
    const QStringList step = Args(SbatchScript::StepCommand(*project, input));
    QCOMPARE(step.mid(step.indexOf("--tls_root"), 2), QStringList({"--tls_root", "/shared/tls"}));
    const QString script = QString::fromStdString(SbatchScript::Text(*project, input));
    QVERIFY(!script.contains(trimmed_token) && !script.contains("PRIVATE KEY") && !script.contains("--token_file"));
  }

  // The scripts that make the private directories on a host and lock the files copied in,
  // run here by sh as a host's shell runs them.
  void credentialScriptsMakePrivateDirectories() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto run = [](const std::string& script) {
      QProcess sh;
      sh.setProcessChannelMode(QProcess::MergedChannels);
      sh.start("sh", {"-c", QString::fromStdString(RemoteScript::AsCommand(script))});
      sh.waitForFinished(20000);
      return QString::fromUtf8(sh.readAll()).trimmed();
    };
    const QString top = dir.filePath("data/tls");
    const QStringList tasks = {top + "/seed/ps-0", top + "/seed/worker-0"};
    std::vector<std::string> dirs;
    for (const QString& task : tasks) dirs.push_back(task.toStdString());
    QVERIFY(QDir().mkpath(tasks[0]));
    QFile stale(tasks[0] + "/worker-0.key");
    QVERIFY(stale.open(QIODevice::WriteOnly));
    stale.close();
    QVERIFY(QFile::setPermissions(tasks[0], QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                                                QFileDevice::ReadOther | QFileDevice::ExeOther));
    QCOMPARE(run(RemoteScript::PrivateDirs(top.toStdString(), dirs)), QString("clab-launch: private-dirs-ready"));
    for (const QString& path : {top, top + "/seed", tasks[0], tasks[1]}) QCOMPARE(Mode(path), 0700u);
    QVERIFY(QDir(tasks[0]).isEmpty());  // another task's stale key is gone
    // scp keeps a source's mode under the remote umask: a world-readable copy gets locked.
    for (const QString& task : tasks) {
      QFile file(task + "/ca.crt");
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write("-----BEGIN CERTIFICATE-----\n");
      file.close();
      QVERIFY(QFile::setPermissions(file.fileName(),
                                    QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther));
    }
    QCOMPARE(run(RemoteScript::LockFiles(dirs)), QString("clab-launch: locked"));
    for (const QString& task : tasks) QCOMPARE(Mode(task + "/ca.crt"), 0600u);
    // A symbolic link where a private directory should be is refused, not followed.
    const QString elsewhere = dir.filePath("elsewhere");
    QVERIFY(QDir().mkpath(elsewhere));
    QVERIFY(QFile::link(elsewhere, top + "/other"));
    const QString refused = run(RemoteScript::PrivateDirs(top.toStdString(), {(top + "/other/ps-0").toStdString()}));
    QVERIFY2(refused.startsWith("clab-launch: no-private-dir " + top + "/other"), qPrintable(refused));
    QVERIFY(QDir(elsewhere).isEmpty());
  }

  void sshCommandLines() {
    HostSettings host;
    host.user = "ana";
    host.ssh_port = 2200;
    const SshTarget target("198.18.0.2", host, "/tmp/ssh_config", 7);
    QCOMPARE(QString::fromStdString(target.Describe()), QString("ana@198.18.0.2:2200"));
    const QStringList ssh = Args(target.SshCommand("true"));
    QCOMPARE(ssh.first(), QString("ssh"));
    for (const char* option : {"BatchMode=yes", "ConnectTimeout=7", "User=ana"}) QVERIFY2(ssh.contains(option), option);
    QCOMPARE(ssh.mid(ssh.size() - 3), QStringList({"--", "198.18.0.2", "true"}));
    QVERIFY(ssh.join(' ').contains("-F /tmp/ssh_config") && ssh.join(' ').contains("-p 2200"));
    const QStringList scp = Args(target.ScpCommand({"/a b/clab"}, "/data"));
    QVERIFY(scp.join(' ').contains("-P 2200"));
    QCOMPARE(scp.mid(scp.size() - 2), QStringList({"/a b/clab", "198.18.0.2:/data/"}));
  }

  // The remote scripts, run here by sh exactly as a host's shell would run them.
  void remoteScriptsRunInAPosixShell() {
    QTemporaryDir dir;
    const QString data = dir.filePath("data dir");
    auto run = [](const std::string& script) {
      QProcess sh;
      sh.setProcessChannelMode(QProcess::MergedChannels);
      sh.start("sh", {"-c", QString::fromStdString(RemoteScript::AsCommand(script))});
      sh.waitForFinished(20000);
      return QString::fromUtf8(sh.readAll());
    };
    QCOMPARE(run(RemoteScript::Setup(data.toStdString())).trimmed(), "clab-launch: data-dir " + data);
    QVERIFY(QDir(data + "/logs").exists());
    QCOMPARE(run(RemoteScript::Check("/no/such/clab", "")).trimmed(), QString("clab-launch: no-binary /no/such/clab"));
    QCOMPARE(run(RemoteScript::Check("no-such-clab-program", "")).trimmed(),
             QString("clab-launch: no-binary no-such-clab-program"));
    // A task: its pid, its lines (quoting kept), its exit status.
    const QString output = run(RemoteScript::Start("sh", "", {"-c", "echo \"it's $1\"; exit 3", "x", "a 'quoted' word"},
                                                   (data + "/logs/t.log").toStdString()));
    const QStringList lines = output.trimmed().split('\n');
    QVERIFY2(lines.size() == 3, qPrintable(output));
    QVERIFY2(lines[0].startsWith("clab-launch: pid "), qPrintable(output));
    QCOMPARE(lines[1], QString("it's a 'quoted' word"));
    QCOMPARE(lines[2], QString("clab-launch: exit 3"));
    // Stopping a pid that is not this program's does nothing to it.
    QCOMPARE(run(RemoteScript::Stop({static_cast<long>(::getpid())}, "/no/such/clab", 1)).trimmed(),
             QStringLiteral("clab-launch: gone %1").arg(::getpid()));
  }

  void launchRecordsAreKeptPerProject() {
    QTemporaryDir state;
    qputenv("XDG_STATE_HOME", state.path().toUtf8());
    LaunchRecord record;
    record.method = "ssh";
    record.project = "/some/where/digits.clab";
    record.launcher_pid = 42;
    HostSettings ssh;
    ssh.user = "ana";
    ssh.ssh_port = 2200;
    record.tasks.push_back({"/job:ps/replica:0/task:0", "198.18.0.2", ssh, "/opt/clab", "/l.log", 77});
    QVERIFY(record.Write().ok());
    QVERIFY(QString::fromStdString(LaunchRecord::PathFor(record.project))
                .startsWith(state.path() + "/clusterlab/launches/digits-"));
    auto read = LaunchRecord::Read("/some/where/digits.clab");
    QVERIFY2(read.ok(), read.status().ToString().c_str());
    QCOMPARE(read->tasks.size(), size_t{1});
    QCOMPARE(read->tasks[0].pid, 77L);
    QCOMPARE(read->tasks[0].ssh.ssh_port, 2200);
    read->Remove();
    auto gone = LaunchRecord::Read("/some/where/digits.clab");
    QVERIFY(!gone.ok());
    QVERIFY2(Message(gone.status()).find("no launch of /some/where/digits.clab is recorded") != std::string::npos,
             gone.status().ToString().c_str());
    qunsetenv("XDG_STATE_HOME");
  }

  void shellQuoting() {
    QCOMPARE(QString::fromStdString(ShellQuote("a b")), QString("'a b'"));
    QCOMPARE(QString::fromStdString(ShellQuote("it's")), QString("'it'\\''s'"));
    QCOMPARE(QString::fromStdString(ShellJoin({"x", "$HOME"})), QString("'x' '$HOME'"));
  }
};

QTEST_GUILESS_MAIN(LaunchSettingsTest)
#include "tst_launch_settings.moc"
