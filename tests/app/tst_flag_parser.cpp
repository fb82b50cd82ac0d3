// The command-line flag parser on its own: accepted spellings, values, defaults and the
// usage errors it reports.
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"

#include <QtTest>

#include <string>
#include <vector>

using clab::cli::FlagParser;

namespace {

// The flags of a typical command, with the values they received.
struct SampleFlags {
  std::string graph;
  std::vector<std::string> fetches;
  int64_t steps = 1;
  bool verbose = false;
  std::string file;

  explicit SampleFlags(FlagParser& parser, bool with_positional) {
    parser.AddString("graph", "FILE", "the graph", &graph, FlagParser::Presence::kRequired);
    parser.AddStringList("fetch", "NAME", "a tensor", &fetches);
    parser.AddInt("steps", "N", "how many", &steps, 1);
    parser.AddBool("log_device_placement", "log", &verbose);
    if (with_positional) parser.AddPositional("FILE", "a file", &file);
  }
  QString describe() const {
    return QString("graph=%1 fetch=%2 steps=%3 log=%4 file=%5")
        .arg(QString::fromStdString(graph))
        .arg(QString::fromStdString(fetches.empty() ? "" : fetches[0] + (fetches.size() > 1 ? "," + fetches[1] : "")))
        .arg(steps)
        .arg(verbose ? "true" : "false")
        .arg(QString::fromStdString(file));
  }
};

std::vector<std::string> ToArgs(const QStringList& list) {
  std::vector<std::string> args;
  for (const QString& arg : list) args.push_back(arg.toStdString());
  return args;
}

}  // namespace

class FlagParserTest : public QObject {
  Q_OBJECT

 private slots:
  void acceptsSpellings_data() {
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("withPositional");
    QTest::addColumn<QString>("parsed");
    QTest::newRow("separate value") << QStringList{"--graph", "g.pb"} << false
                                    << "graph=g.pb fetch= steps=1 log=false file=";
    QTest::newRow("inline value") << QStringList{"--graph=g.pb", "--steps=4"} << false
                                  << "graph=g.pb fetch= steps=4 log=false file=";
    QTest::newRow("dashes for underscores") << QStringList{"--graph", "g", "--log-device-placement"} << false
                                            << "graph=g fetch= steps=1 log=true file=";
    QTest::newRow("switch off") << QStringList{"--graph", "g", "--log_device_placement=false"} << false
                                << "graph=g fetch= steps=1 log=false file=";
    QTest::newRow("repeated list") << QStringList{"--fetch", "a", "--graph", "g", "--fetch=b:1"} << false
                                   << "graph=g fetch=a,b:1 steps=1 log=false file=";
    QTest::newRow("single dash") << QStringList{"-graph", "g", "-steps", "2"} << false
                                 << "graph=g fetch= steps=2 log=false file=";
    QTest::newRow("positional anywhere") << QStringList{"f.pbtxt", "--graph", "g"} << true
                                         << "graph=g fetch= steps=1 log=false file=f.pbtxt";
    QTest::newRow("after --") << QStringList{"--graph", "g", "--", "--odd-name"} << true
                              << "graph=g fetch= steps=1 log=false file=--odd-name";
    QTest::newRow("value with =") << QStringList{"--graph=a=b"} << false << "graph=a=b fetch= steps=1 log=false file=";
    // clang-format on
  }
  void acceptsSpellings() {
    QFETCH(QStringList, args);
    QFETCH(bool, withPositional);
    QFETCH(QString, parsed);
    FlagParser parser("sample");
    SampleFlags flags(parser, withPositional);
    const clab::Status status = parser.Parse(ToArgs(args));
    QVERIFY2(status.ok(), status.ToString().c_str());
    QCOMPARE(flags.describe(), parsed);
  }

  void rejectsWithUsageErrors_data() {
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown") << QStringList{"--graph", "g", "--nope"}
                             << "unknown flag '--nope' for 'clab sample' (see 'clab help sample')";
    QTest::newRow("no value") << QStringList{"--graph"} << "flag '--graph' needs a value (FILE) (see 'clab help sample')";
    QTest::newRow("bad int") << QStringList{"--graph", "g", "--steps", "1.5"}
                             << "flag '--steps' wants a whole number >= 1, got '1.5' (see 'clab help sample')";
    QTest::newRow("int overflow") << QStringList{"--graph", "g", "--steps", "99999999999999999999"}
                                  << "flag '--steps' wants a whole number >= 1, got '99999999999999999999' "
                                     "(see 'clab help sample')";
    QTest::newRow("required") << QStringList{"--steps", "2"} << "'clab sample' needs --graph FILE (see 'clab help sample')";
    QTest::newRow("twice") << QStringList{"--graph", "a", "--graph", "b"}
                           << "flag '--graph' is given more than once (see 'clab help sample')";
    QTest::newRow("positional") << QStringList{"--graph", "g", "stray"}
                                << "unexpected argument 'stray' for 'clab sample' (see 'clab help sample')";
    // clang-format on
  }
  void rejectsWithUsageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    FlagParser parser("sample");
    SampleFlags flags(parser, false);
    const clab::Status status = parser.Parse(ToArgs(args));
    QVERIFY(clab::cli::IsUsageError(status));
    QCOMPARE(clab::cli::ExitCodeFor(status), clab::cli::kExitUsageError);
    QCOMPARE(QString::fromStdString(std::string(status.message())), message);
  }

  void helpWinsOverMistakes_data() {
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::newRow("alone") << QStringList{"--help"};
    QTest::newRow("after an unknown flag") << QStringList{"--nope", "-h"};
    QTest::newRow("before a missing value") << QStringList{"-h", "--graph"};
    // clang-format on
  }
  void helpWinsOverMistakes() {
    QFETCH(QStringList, args);
    FlagParser parser("sample");
    SampleFlags flags(parser, true);
    QVERIFY(parser.Parse(ToArgs(args)).ok());
    QVERIFY(parser.help_requested());
  }

  void helpAfterDashDashIsAValue() {
    FlagParser parser("sample");
    SampleFlags flags(parser, true);
    QVERIFY(parser.Parse({"--graph", "g", "--", "-h"}).ok());
    QVERIFY(!parser.help_requested());
    QCOMPARE(flags.file, std::string("-h"));
  }

  void helpText() {
    FlagParser parser("sample");
    SampleFlags flags(parser, true);
    QCOMPARE(QString::fromStdString(parser.Synopsis()), QString("clab sample --graph FILE FILE [flags]"));
    const QString help = QString::fromStdString(parser.FlagHelp());
    QVERIFY2(help.contains("  --graph FILE"), qPrintable(help));
    QVERIFY2(help.contains("the graph (required)"), qPrintable(help));
    QVERIFY2(help.contains("a tensor; repeatable"), qPrintable(help));
    QVERIFY2(help.contains("how many (default: 1)"), qPrintable(help));
    QVERIFY2(help.contains("-h, --help"), qPrintable(help));
  }
};

QTEST_APPLESS_MAIN(FlagParserTest)
#include "tst_flag_parser.moc"
