// Every way a `clab` command line can go wrong: each case gives the arguments, the exit code
// (2 for usage errors, 1 for failures while running) and how the single stderr line starts.
// "@seed@" stands for examples/graphs/seed.pbtxt and "@tmp@" for a folder of broken files.
#include "ClabProcess.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

class ClabCliErrorsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(QFile::exists(ClabProcess::programPath("clab")), qPrintable(ClabProcess::programPath("clab")));
    QVERIFY(tmp_.isValid());
    writeFile("empty.pbtxt", "");
    // Line 3 gives a bare word where a string belongs: protobuf reports line 3, column 7.
    writeFile("bad_syntax.pbtxt", "node {\n  name: \"x\"\n  op: Const\n}\n");
    // A node field whose length runs past the end of the bytes.
    writeFile("bad_binary.pb", QByteArray("\x0a\x05\x12\xff\xff\xff\xff", 7));
    writeFile("unsupported.pbtxt",
              "node { name: \"a\" op: \"FancyOp\" }\n"
              "node { name: \"b\" op: \"OtherOp\" }\n"
              "node { name: \"c\" op: \"FancyOp\" }\n");
    writeFile(
        "dangling.pbtxt",
        "node { name: \"y\" op: \"Identity\" input: \"nowhere\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
    writeFile("placeholder.pbtxt",
              "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
              "node { name: \"y\" op: \"Square\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
  }

  void reportsOneLine_data() {
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrStart");

    const QStringList runSeed = {"run", "--graph", "@seed@", "--fetch", "MatMul"};

    // Commands.
    QTest::newRow("no command") << QStringList{} << 2 << "clab: no command given";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2 << "clab: unknown command 'frobnicate'";
    QTest::newRow("unknown subcommand") << QStringList{"graph", "frob"} << 2 << "clab: unknown command 'graph frob'";
    QTest::newRow("missing subcommand") << QStringList{"graph"} << 2 << "clab: 'clab graph' needs a subcommand: show";
    QTest::newRow("help for unknown command") << QStringList{"help", "frob"} << 2 << "clab: unknown command 'frob'";
    QTest::newRow("help for unknown subcommand") << QStringList{"help", "graph", "show", "x"} << 2
                                                 << "clab: unknown command 'graph show x'";

    // Flags.
    QTest::newRow("unknown top-level flag") << QStringList{"--frob"} << 2 << "clab: unknown flag '--frob'";
    QTest::newRow("unknown flag") << (runSeed + QStringList{"--frob"}) << 2
                                  << "clab: unknown flag '--frob' for 'clab run'";
    QTest::newRow("unknown flag with value") << QStringList{"demo", "--speed=3"} << 2
                                             << "clab: unknown flag '--speed' for 'clab demo'";
    QTest::newRow("missing value at end") << QStringList{"run", "--graph"} << 2
                                          << "clab: flag '--graph' needs a value";
    QTest::newRow("missing value before flag") << QStringList{"run", "--graph", "--fetch", "MatMul"} << 2
                                               << "clab: flag '--graph' needs a value";
    QTest::newRow("empty value") << QStringList{"run", "--graph=", "--fetch", "MatMul"} << 2
                                 << "clab: flag '--graph' needs a value";
    QTest::newRow("bad number") << QStringList{"demo", "--last_step", "two"} << 2
                                << "clab: flag '--last_step' wants a whole number >= 1, got 'two'";
    QTest::newRow("number with junk") << QStringList{"demo", "--last_step=3x"} << 2
                                      << "clab: flag '--last_step' wants a whole number >= 1, got '3x'";
    QTest::newRow("negative number") << QStringList{"demo", "--last_step", "-2"} << 2
                                     << "clab: flag '--last_step' wants a whole number >= 1, got '-2'";
    QTest::newRow("zero steps") << (runSeed + QStringList{"--steps", "0"}) << 2
                                << "clab: flag '--steps' wants a whole number >= 1, got '0'";
    QTest::newRow("bad switch value") << (runSeed + QStringList{"--log_device_placement=maybe"}) << 2
                                      << "clab: flag '--log_device_placement' is a switch";
    QTest::newRow("flag given twice") << (runSeed + QStringList{"--graph", "@seed@"}) << 2
                                      << "clab: flag '--graph' is given more than once";
    QTest::newRow("missing required flag") << QStringList{"run", "--fetch", "MatMul"} << 2
                                           << "clab: 'clab run' needs --graph FILE";
    QTest::newRow("nothing to run") << QStringList{"run", "--graph", "@seed@"} << 2
                                    << "clab: 'clab run' needs --fetch NAME or --target NODE";
    QTest::newRow("missing file argument") << QStringList{"graph", "show"} << 2
                                           << "clab: 'clab graph show' needs FILE";
    QTest::newRow("extra argument") << QStringList{"ops", "extra"} << 2
                                    << "clab: unexpected argument 'extra' for 'clab ops'";
    QTest::newRow("unknown op group") << QStringList{"ops", "--group", "nosuch"} << 2
                                      << "clab: no op group 'nosuch'";

    // Feeds.
    QTest::newRow("feed without =") << (runSeed + QStringList{"--feed", "x"}) << 2 << "clab: --feed wants NAME=JSON";
    QTest::newRow("feed not JSON") << (runSeed + QStringList{"--feed", "x=[[1,2]"}) << 2
                                   << "clab: --feed 'x': '[[1,2]' is not JSON";
    QTest::newRow("feed ragged") << (runSeed + QStringList{"--feed", "x=[[1,2],[3]]"}) << 2
                                 << "clab: --feed 'x': '[[1,2],[3]]': the nested lists are ragged";
    QTest::newRow("feed fraction for int32") << (runSeed + QStringList{"--feed", "x=[[1.5,2,3,4]]"}) << 2
                                             << "clab: --feed 'x': '[[1.5,2,3,4]]' as int32: 1.5 is not a whole number";
    QTest::newRow("feed unknown node") << (runSeed + QStringList{"--feed", "nosuch=1"}) << 1
                                       << "clab: --feed 'nosuch': no node 'nosuch' in '@seed@'";

    // Files.
    QTest::newRow("missing file") << QStringList{"graph", "show", "@tmp@/missing.pbtxt"} << 1
                                  << "clab: cannot read '@tmp@/missing.pbtxt': No such file or directory";
    QTest::newRow("missing file for run") << QStringList{"run", "--graph", "@tmp@/missing.pb", "--fetch", "y"} << 1
                                          << "clab: cannot read '@tmp@/missing.pb'";
    QTest::newRow("directory") << QStringList{"graph", "show", "@tmp@"} << 1
                               << "clab: cannot read '@tmp@': it is a directory";
    QTest::newRow("empty file") << QStringList{"graph", "show", "@tmp@/empty.pbtxt"} << 1
                                << "clab: '@tmp@/empty.pbtxt' is empty";
    QTest::newRow("text syntax error") << QStringList{"graph", "show", "@tmp@/bad_syntax.pbtxt"} << 1
                                       << "clab: @tmp@/bad_syntax.pbtxt:3:7: ";
    QTest::newRow("text syntax error in run") << QStringList{"run", "--graph", "@tmp@/bad_syntax.pbtxt", "--fetch", "x"}
                                              << 1 << "clab: @tmp@/bad_syntax.pbtxt:3:7: ";
    QTest::newRow("binary garbage") << QStringList{"graph", "show", "@tmp@/bad_binary.pb"} << 1
                                    << "clab: @tmp@/bad_binary.pb: not a valid binary GraphDef";
    QTest::newRow("unsupported ops in run")
        << QStringList{"run", "--graph", "@tmp@/unsupported.pbtxt", "--fetch", "a"} << 1
        << "clab: @tmp@/unsupported.pbtxt: Op type not registered 'FancyOp' (used by node 'a')";
    QTest::newRow("dangling input") << QStringList{"graph", "show", "@tmp@/dangling.pbtxt"} << 1
                                    << "clab: @tmp@/dangling.pbtxt: ";

    QTest::newRow("example graph without graph") << QStringList{"example", "graph", "--job_name", "worker"} << 2
                                                 << "clab: 'clab example graph' needs --graph FILE";
    QTest::newRow("example graph bad syntax")
        << QStringList{"example", "graph", "--graph", "@tmp@/bad_syntax.pbtxt", "--job_name", "worker"} << 1
        << "clab: @tmp@/bad_syntax.pbtxt:3:7: ";
    QTest::newRow("example graph with a placeholder")
        << QStringList{"example", "graph", "--graph", "@tmp@/placeholder.pbtxt", "--job_name", "worker", "--cluster",
                       "ps=127.0.0.1:0;worker=127.0.0.1:0"}
        << 1 << "clab: the step needs the placeholder(s) x, which nothing feeds";
    QTest::newRow("example graph unknown fetch")
        << QStringList{"example", "graph", "--graph", "@seed@", "--fetch", "nope", "--job_name", "worker", "--cluster",
                       "ps=127.0.0.1:0;worker=127.0.0.1:0"}
        << 1 << "clab: --fetch 'nope': no node named 'nope' in the graph";
    QTest::newRow("example graph bad job")
        << QStringList{"example", "graph", "--graph", "@seed@", "--job_name", "chief"} << 2
        << "clab: --job_name must be ps or worker (see 'clab help example graph')";

    // Cluster tasks (nothing here gets as far as listening).
    QTest::newRow("server without cluster") << QStringList{"server", "--job_name", "ps"} << 2
                                            << "clab: no cluster given: pass --cluster SPEC or set TF_CONFIG";
    QTest::newRow("server bad address") << QStringList{"server", "--cluster", "ps=127.0.0.1:99999", "--job_name", "ps"}
                                        << 2 << "clab: --cluster: ";
    QTest::newRow("server unknown job") << QStringList{"server", "--cluster", "ps=127.0.0.1:0", "--job_name", "chief"}
                                        << 1 << "clab: Job \"chief\" was not defined in cluster (its jobs: ps)";
    QTest::newRow("server task out of range")
        << QStringList{"server", "--cluster", "ps=127.0.0.1:0", "--job_name", "ps", "--task_index", "3"} << 1
        << "clab: Task 3 was not defined in job \"ps\" (its tasks: 0)";
    QTest::newRow("server verbs protocol")
        << QStringList{"server", "--cluster", "ps=127.0.0.1:0", "--job_name", "ps", "--protocol", "grpc+verbs"} << 1
        << "clab: Protocol 'grpc+verbs' is not supported";
    QTest::newRow("seed with unknown job") << QStringList{"example", "seed", "--job_name", "chief"} << 2
                                           << "clab: --job_name must be ps or worker";

    // Running.
    QTest::newRow("unknown fetch") << QStringList{"run", "--graph", "@seed@", "--fetch", "nosuch"} << 1
                                   << "clab: --fetch 'nosuch': no node 'nosuch' in '@seed@' (nodes: x, ";
    QTest::newRow("fetch of a node without outputs") << QStringList{"run", "--graph", "@seed@", "--fetch", "init"} << 1
                                                     << "clab: --fetch 'init': node 'init' (NoOp) has 0 outputs";
    QTest::newRow("unknown target") << QStringList{"run", "--graph", "@seed@", "--target", "nosuch"} << 1
                                    << "clab: --target 'nosuch': no node 'nosuch'";
    QTest::newRow("uninitialised variable") << runSeed << 1 << "clab: step 1 failed: FAILED_PRECONDITION: ";
    // clang-format on
  }

  void reportsOneLine() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrStart);
    for (QString& arg : args) arg = expand(arg);
    stderrStart = expand(stderrStart);

    const ProgramResult result = ClabProcess::clab(args);
    QVERIFY2(result.finished, qPrintable(result.err));
    const QStringList errLines = result.errLines();
    QVERIFY2(errLines.size() == 1, qPrintable("expected one stderr line, got:\n" + result.err));
    QVERIFY2(errLines[0].startsWith(stderrStart),
             qPrintable(QString("stderr: %1\nwanted: %2...").arg(errLines[0], stderrStart)));
    QCOMPARE(result.exitCode, exitCode);
  }

  // Ops without a kernel do not stop a graph from being shown: each is listed with its nodes.
  void graphShowListsOpsWithoutKernels() {
    const ProgramResult result = ClabProcess::clab({"graph", "show", tmp_.filePath("unsupported.pbtxt")});
    QVERIFY2(result.finished && result.exitCode == 0, qPrintable(result.err));
    QVERIFY2(result.out.contains("not run here: op FancyOp (no definition or kernel in ClusterLab; 2 nodes, first: a)"),
             qPrintable(result.out));
    QVERIFY2(result.out.contains("not run here: op OtherOp (no definition or kernel in ClusterLab; 1 node: b)"),
             qPrintable(result.out));
  }

 private:
  void writeFile(const QString& name, const QByteArray& bytes) {
    QVERIFY2(ClabProcess::writeFile(tmp_.filePath(name), bytes), qPrintable(tmp_.filePath(name)));
  }

  QString expand(QString text) const {
    text.replace("@seed@", ClabProcess::sourceDir() + "/examples/graphs/seed.pbtxt");
    text.replace("@tmp@", tmp_.path());
    return text;
  }

  QTemporaryDir tmp_;
};

QTEST_GUILESS_MAIN(ClabCliErrorsTest)
#include "tst_clab_cli_errors.moc"
