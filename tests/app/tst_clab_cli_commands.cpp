// What `clab` prints when things go right: versions, help, the node table of the seed graph
// (from text and binary files, whichever their names say), runs that print [[20]], the op
// list, the local demo, and the distributed benchmarks run with the smallest settings (their
// rows are there and the processes they started are gone; no figure is checked).
#include "ClabProcess.h"

#include "tensorflow/graph.pb.h"

#include <google/protobuf/text_format.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

class ClabCliCommandsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(QFile::exists(ClabProcess::programPath("clab")), qPrintable(ClabProcess::programPath("clab")));
    QVERIFY(tmp_.isValid());
    QFile seedFile(seedPath());
    QVERIFY2(seedFile.open(QIODevice::ReadOnly), qPrintable(seedPath()));
    const QByteArray text = seedFile.readAll();

    // The same graph in binary form, and each form under the other's file extension: the
    // format must be told from the bytes.
    tensorflow::GraphDef graph;
    QVERIFY(google::protobuf::TextFormat::ParseFromString(text.toStdString(), &graph));
    std::string binary;
    QVERIFY(graph.SerializeToString(&binary));
    writeFile("seed.pb", QByteArray::fromStdString(binary));
    writeFile("binary_named.pbtxt", QByteArray::fromStdString(binary));
    writeFile("text_named.pb", text);
  }

  void version() {
    const ProgramResult result = ClabProcess::clab({"--version"});
    QCOMPARE(result.exitCode, 0);
    QVERIFY(result.err.isEmpty());
    const QStringList lines = result.outLines();
    QCOMPARE(lines.value(0), QString("ClusterLab " CLAB_EXPECTED_VERSION));
    QVERIFY2(lines.value(1).contains(QRegularExpression("^protobuf \\d+\\.\\d+\\.\\d+$")), qPrintable(result.out));
    QVERIFY2(lines.value(2).contains(QRegularExpression("^gRPC \\d+\\.\\d+\\.\\d+$")), qPrintable(result.out));
    QVERIFY2(lines.value(3).contains(QRegularExpression("^Eigen \\d+\\.\\d+\\.\\d+$")), qPrintable(result.out));
    QCOMPARE(ClabProcess::clab({"version"}).out, result.out);
  }

  void helpListsEveryCommand() {
    const ProgramResult result = ClabProcess::clab({"--help"});
    QCOMPARE(result.exitCode, 0);
    for (const char* command :
         {"graph show", "run", "ops", "demo", "server", "example seed", "example graph", "version", "help"})
      QVERIFY2(result.out.contains(QRegularExpression(QString("\\n  %1 +\\S").arg(command))),
               qPrintable(QString("'%1' missing from:\n%2").arg(command, result.out)));
    // Commands that benchmarks start as processes of their own are not listed.
    QVERIFY2(!result.out.contains("floor-server") && !result.out.contains("train-worker"), qPrintable(result.out));
    QCOMPARE(ClabProcess::clab({"help"}).out, result.out);
  }

  void helpForOneCommand_data() {
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("help run") << QStringList{"help", "run"} << "Usage: clab run --graph FILE [flags]";
    QTest::newRow("run --help") << QStringList{"run", "--help"} << "Usage: clab run --graph FILE [flags]";
    QTest::newRow("run -h after flags") << QStringList{"run", "--steps", "2", "-h"} << "--fetch NAME";
    QTest::newRow("help graph show") << QStringList{"help", "graph", "show"} << "Usage: clab graph show FILE";
    QTest::newRow("demo --help") << QStringList{"demo", "--help"} << "--last_step N";
    QTest::newRow("server --help") << QStringList{"server", "--help"} << "--task_index N";
    QTest::newRow("help example seed") << QStringList{"help", "example", "seed"} << "--job_name JOB";
    QTest::newRow("help example graph") << QStringList{"help", "example", "graph"} << "--print_every N";
    // clang-format on
  }
  void helpForOneCommand() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const ProgramResult result = ClabProcess::clab(args);
    QCOMPARE(result.exitCode, 0);
    QVERIFY2(result.out.contains(expected), qPrintable(result.out));
  }

  void graphShowListsNodes_data() {
    // clang-format off
    QTest::addColumn<QString>("file");
    QTest::newRow("text") << seedPath();
    QTest::newRow("binary") << tmp_.filePath("seed.pb");
    QTest::newRow("binary named .pbtxt") << tmp_.filePath("binary_named.pbtxt");
    QTest::newRow("text named .pb") << tmp_.filePath("text_named.pb");
    // clang-format on
  }
  void graphShowListsNodes() {
    QFETCH(QString, file);
    const ProgramResult result = ClabProcess::clab({"graph", "show", file});
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    const QStringList lines = result.outLines();
    QVERIFY(lines.value(0).startsWith("NODE"));
    // node -> op, output type, inferred shape
    const QList<QStringList> expectedRows = {
        {"x", "Const", "int32", "[1,4]"},
        {"w/initial_value", "Const", "int32", "[4,1]"},
        {"w", "VariableV2", "int32_ref", "[4,1]"},
        {"w/Assign", "Assign", "int32_ref", "[4,1]"},
        {"w/read", "Identity", "int32", "[4,1]"},
        {"MatMul", "MatMul", "int32", "[1,1]"},
        {"init", "NoOp", "-", "-"},
    };
    for (const QStringList& expected : expectedRows) {
      // QStringList::indexOf wants the whole line to match.
      const QString pattern =
          QString("%1 +%2 +- +%3 +%4( .*)?")
              .arg(QRegularExpression::escape(expected[0]), expected[1], QRegularExpression::escape(expected[2]),
                   QRegularExpression::escape(expected[3]));
      QVERIFY2(lines.indexOf(QRegularExpression(pattern)) >= 0,
               qPrintable(QString("no row matching %1 in:\n%2").arg(pattern, result.out)));
    }
    QVERIFY2(lines.last().startsWith(
                 "GraphDef: 7 nodes: 2 Const, 1 VariableV2, 1 Assign, 1 Identity, 1 MatMul, 1 NoOp; 1 variable"),
             qPrintable(lines.last()));
  }

  void runPrintsEachStep_data() {
    // clang-format off
    QTest::addColumn<QStringList>("extraArgs");
    QTest::addColumn<QStringList>("expectedLines");
    QTest::newRow("one step") << QStringList{} << QStringList{"[[20]]"};
    QTest::newRow("three steps") << QStringList{"--steps", "3"} << QStringList{"[[20]]", "[[20]]", "[[20]]"};
    QTest::newRow("feed x") << QStringList{"--feed", "x=[[1, 1, 1, 1]]"} << QStringList{"[[8]]"};
    QTest::newRow("feed x:0") << QStringList{"--feed=x:0=[[0, 0, 0, 5]]"} << QStringList{"[[10]]"};
    QTest::newRow("two fetches") << QStringList{"--fetch", "x"} << QStringList{"MatMul: [[20]]", "x: [[1 2 3 4]]"};
    QTest::newRow("fetch with target") << QStringList{"--target", "w/Assign"} << QStringList{"[[20]]"};
    // clang-format on
  }
  void runPrintsEachStep() {
    QFETCH(QStringList, extraArgs);
    QFETCH(QStringList, expectedLines);
    const ProgramResult result =
        ClabProcess::clab(QStringList{"run", "--graph", seedPath(), "--init", "init", "--fetch", "MatMul"} + extraArgs);
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.outLines(), expectedLines);
  }

  void runFromBinaryGraph() {
    const ProgramResult result =
        ClabProcess::clab({"run", "--graph", tmp_.filePath("seed.pb"), "--init", "init", "--fetch", "MatMul:0"});
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QCOMPARE(result.outLines(), QStringList{"[[20]]"});
  }

  void runLogsDevicePlacement() {
    const ProgramResult result = ClabProcess::clab(
        {"run", "--graph", seedPath(), "--init", "init", "--fetch", "MatMul", "--log_device_placement"});
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    QVERIFY2(result.out.contains("MatMul: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0\n"),
             qPrintable(result.out));
    QVERIFY2(result.out.contains("w: (VariableV2): /job:localhost/replica:0/task:0/device:CPU:0\n"),
             qPrintable(result.out));
    QCOMPARE(result.outLines().last(), QString("[[20]]"));
  }

  void opsListsGroups() {
    const ProgramResult result = ClabProcess::clab({"ops"});
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    for (const char* op : {"Const", "MatMul", "VariableV2", "Assign", "Identity", "NoOp"})
      QVERIFY2(result.out.contains(QRegularExpression(QString("\\n  %1 +CPU").arg(op))),
               qPrintable(QString("%1 missing from:\n%2").arg(op, result.out)));
    QVERIFY(result.out.contains(QRegularExpression("^math \\(\\d+ ops\\)$", QRegularExpression::MultilineOption)));
    QVERIFY(result.outLines().last().contains(QRegularExpression("^\\d+ ops in \\d+ groups$")));

    const ProgramResult math = ClabProcess::clab({"ops", "--group", "math"});
    QCOMPARE(math.exitCode, 0);
    QVERIFY(math.out.contains("MatMul"));
    QVERIFY(!math.out.contains("VariableV2"));
  }

  void localDemoShowsPlacementAndResult() {
    const ProgramResult result = ClabProcess::clab({"demo", "--local", "--last_step", "2"});
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    const QStringList lines = result.outLines();
    for (const char* placement :
         {"x: (VariableV2)", "w: (VariableV2)", "w/Assign: (Assign)", "w/read: (Identity)", "MatMul: (MatMul)"})
      QVERIFY2(lines.contains(QString("%1: /job:localhost/replica:0/task:0/device:CPU:0").arg(placement)),
               qPrintable(QString("%1 not placed in:\n%2").arg(placement, result.out)));
    QCOMPARE(lines.count("[[20]]"), 2);
  }

  void benchStepRunsItsFloorAndStopsIt() {
    const ProgramResult result =
        ClabProcess::clab({"bench", "step", "--rounds", "1", "--steps", "5", "--mode", "unpinned"}, 120000);
    QVERIFY2(result.exitCode == 0, qPrintable(result.out + result.err));
    const QStringList lines = result.outLines();
    // A row per measurement: the runtime's latency, CPU and switches, then the floor's.
    const QString number = "\\d+\\.\\d+";
    for (const char* row : {"seed step", "pull 1 KiB", "pull 64 KiB", "pull 4 MiB"}) {
      const QString pattern = QString("^unpinned +%1( +%2){6} +%2x +(<= \\d\\.\\dx (met|MISSED))$")
                                  .arg(QRegularExpression::escape(row), number);
      QVERIFY2(lines.indexOf(QRegularExpression(pattern)) >= 0,
               qPrintable(QString("no row matching %1 in:\n%2").arg(pattern, result.out)));
    }
    // The floor server and the ps it started, each stopped cleanly and gone.
    for (const QString& server : {QString("floor server"), QString("ps")}) {
      const QRegularExpressionMatch started =
          QRegularExpression(QString("^  %1: pid (\\d+) on 127\\.0\\.0\\.1:\\d+$").arg(server),
                             QRegularExpression::MultilineOption)
              .match(result.out);
      QVERIFY2(started.hasMatch(), qPrintable(result.out));
      const QString pid = started.captured(1);
      QVERIFY2(lines.contains(QString("  %1 (pid %2) stopped, exit status 0").arg(server, pid)),
               qPrintable(result.out));
      QVERIFY2(processGone(pid), qPrintable(QString("%1 (pid %2) is still running").arg(server, pid)));
    }
  }

  void benchTrainRunsWorkerProcesses() {
    const ProgramResult result = ClabProcess::clab(
        {"bench", "train", "--workers", "2", "--steps", "20", "--rounds", "1", "--peer", "none"}, 170000);
    QVERIFY2(result.exitCode == 0, qPrintable(result.out + result.err));
    const QStringList lines = result.outLines();
    QVERIFY2(lines.indexOf(QRegularExpression("^local +\\d+ .*")) >= 0, qPrintable(result.out));
    QVERIFY2(lines.indexOf(QRegularExpression("^2 +\\d+ .* >= 2\\.5x \\(no peer\\)$")) >= 0, qPrintable(result.out));
    QVERIFY2(lines.contains("PyTorch peer: not run (--peer none)"), qPrintable(result.out));
    // The ps and both workers ran as processes of their own, and none is left.
    const QRegularExpressionMatch pids =
        QRegularExpression("ps pid (\\d+), worker pids (\\d+) (\\d+)").match(result.out);
    QVERIFY2(pids.hasMatch(), qPrintable(result.out));
    for (int i = 1; i <= 3; ++i) QVERIFY2(processGone(pids.captured(i)), qPrintable(pids.captured(i)));
  }

  // The calibration traces real steps on a ps process and this process's worker, and runs
  // the real program: every task must be able to read the example's data set (its dataset
  // op names the file), and the file it writes must drive a simulation.
  void simulateCalibratesThenPredicts() {
    const QString project = ClabProcess::sourceDir() + "/examples/projects/digits-mlp.clab";
    const QString calibration = tmp_.filePath("digits-mlp.calibration.json");
    const ProgramResult calibrated =
        ClabProcess::clab({"simulate", "--calibrate", project, "-o", calibration, "--calibrate_seconds", "1"}, 170000);
    QVERIFY2(calibrated.exitCode == 0, qPrintable(calibrated.out + calibrated.err));
    QVERIFY2(calibrated.out.contains(QRegularExpression("Wrote .*: \\d+ nodes timed")), qPrintable(calibrated.out));
    QFile file(calibration);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    QVERIFY2(json.value("nodes").toObject().size() > 10, qPrintable(calibration));
    // The run with two workers was measured and what sharing the cores costs fitted to it.
    QVERIFY2(json.value("measured").toObject().value("two_workers_steps_per_second").toDouble() > 0,
             qPrintable(calibration));
    QVERIFY2(json.value("rpc").toObject().contains("busy_wake_latency"), qPrintable(calibration));
    QVERIFY2(calibrated.out.contains("2 workers on 1 ps: a call that finds the ps at work saves"),
             qPrintable(calibrated.out));
    const ProgramResult predicted = ClabProcess::clab(
        {"simulate", project, "--calibration", calibration, "--workers", "1,2", "--ps", "1", "--steps", "20"}, 120000);
    QVERIFY2(predicted.exitCode == 0, qPrintable(predicted.out + predicted.err));
    QVERIFY2(predicted.outLines().indexOf(QRegularExpression("^ *2 +1 .*")) >= 0, qPrintable(predicted.out));
  }

  // The benchmark of predictions against measurements, in its shaped setting: every task in
  // a network namespace of its own behind an htb-limited veth. Tasks there listen on their
  // namespace's address, so this also checks that they are started to do so. Root only.
  void benchSimulateMeasuresAShapedNetwork() {
    if (::geteuid() != 0) QSKIP("network namespaces need root");
    const ProgramResult result =
        ClabProcess::clab({"bench", "simulate", "--projects", "seed", "--rates", "20", "--configs", "1x1",
                           "--no_loopback", "--repeats", "1", "--seconds", "2"},
                          170000);
    QVERIFY2(result.exitCode == 0, qPrintable(result.out + result.err));
    QVERIFY2(result.outLines().indexOf(QRegularExpression("^seed +20Mbit/s +1 +1 +\\d+\\.\\d +\\d+\\.\\d .*")) >= 0,
             qPrintable(result.out));
    // The namespaces it made are gone.
    QProcess ip;
    ip.start("ip", {"netns", "list"});
    QVERIFY(ip.waitForFinished(10000));
    const QString left = QString::fromUtf8(ip.readAllStandardOutput());
    QVERIFY2(!left.contains("clab-sim-"), qPrintable(left));
  }

 private:
  // True once /proc has no such process, or the number now belongs to something other than
  // a clab task (reused); waits up to 5 s.
  static bool processGone(const QString& pid) {
    for (int i = 0; i < 50; ++i) {
      QFile cmdline("/proc/" + pid + "/cmdline");
      if (!cmdline.open(QIODevice::ReadOnly)) return true;
      const QByteArray words = cmdline.readAll();
      if (!words.contains("clab")) return true;
      QTest::qWait(100);
    }
    return false;
  }

  static QString seedPath() { return ClabProcess::sourceDir() + "/examples/graphs/seed.pbtxt"; }

  void writeFile(const QString& name, const QByteArray& bytes) {
    QVERIFY2(ClabProcess::writeFile(tmp_.filePath(name), bytes), qPrintable(tmp_.filePath(name)));
  }

  QTemporaryDir tmp_;
};

QTEST_GUILESS_MAIN(ClabCliCommandsTest)
#include "tst_clab_cli_commands.moc"
