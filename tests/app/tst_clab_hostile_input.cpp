// Inputs written to break `clab`: sizes that wrap, tensors far beyond memory, nesting that
// would overflow the stack, numbers out of range, a crafted checkpoint. Each must give one
// clear stderr line and an exit code (or a DAMAGED row), never a crash or a wrong answer.
// "@tmp@" stands for a folder of the crafted files.
#include "ClabProcess.h"
#include "clab/io/Crc32c.h"
#include "clab/io/SortedTable.h"
#include "clab/io/TensorBundle.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace {

// A GraphDef whose attr values nest `levels` functions deep (AttrValue.func.attr...).
QByteArray DeeplyNestedGraph(int levels) {
  QByteArray text = "node { name: \"c\" op: \"NoOp\" attr { key: \"a\" value { ";
  for (int i = 0; i < levels; ++i) text += "func { name: \"f\" attr { key: \"a\" value { ";
  text += "i: 1 ";
  for (int i = 0; i < levels; ++i) text += "} } } ";
  text += "} } }\n";
  return text;
}

// A float Const of shape `dims` holding one value (which fills the shape).
QByteArray ConstGraph(const QByteArray& dims) {
  return "node { name: \"c\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
         "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { " +
         dims + " } float_val: 1 } } } }\n";
}

}  // namespace

class ClabHostileInputTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY2(QFile::exists(ClabProcess::programPath("clab")), qPrintable(ClabProcess::programPath("clab")));
    QVERIFY(tmp_.isValid());
    writeFile("deep.pbtxt", DeeplyNestedGraph(3000));
    writeFile("wrapping_const.pbtxt", ConstGraph("dim { size: 4611686018427387904 }"));
    writeFile(
        "huge_fill.pbtxt",
        "node { name: \"dims\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT64 } }\n"
        "  attr { key: \"value\" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } }\n"
        "    int64_val: 1000000000000000 } } } }\n"
        "node { name: \"one\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
        "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }\n"
        "node { name: \"fill\" op: \"Fill\" input: \"dims\" input: \"one\"\n"
        "  attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"index_type\" value { type: DT_INT64 } } }\n");
  }

  void refusedWithOneLine_data() {
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("tfConfig");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrHas");

    const QString deepJson = QString(60000, '[') + "1" + QString(60000, ']');
    const QString cluster = "\"cluster\": {\"ps\": [\"127.0.0.1:0\"]}";

    // Sizes that wrap, and tensors beyond any memory.
    QTest::newRow("const of 2^62 floats") << QStringList{"run", "--graph", "@tmp@/wrapping_const.pbtxt", "--fetch", "c"}
        << "" << 1 << "float tensor of shape [4611686018427387904]";
    QTest::newRow("fill of 1e15 floats") << QStringList{"run", "--graph", "@tmp@/huge_fill.pbtxt", "--fetch", "fill"}
        << "" << 1 << "RESOURCE_EXHAUSTED";

    // Nesting.
    QTest::newRow("graph nested 3000 deep") << QStringList{"graph", "show", "@tmp@/deep.pbtxt"} << "" << 1
        << "recursion limit of 100";
    QTest::newRow("feed nested 60000 deep") << QStringList{"run", "--graph", "@tmp@/huge_fill.pbtxt", "--fetch",
                                                           "one", "--feed", "one=" + deepJson}
        << "" << 2 << "--feed 'one': the JSON value: JSON nested more than 100 levels deep (line 1, column 101)";
    QTest::newRow("cluster nested 60000 deep") << QStringList{"server", "--cluster", "{\"ps\": " + deepJson + "}",
                                                              "--job_name", "ps"}
        << "" << 2 << "JSON nested more than 100 levels deep";
    QTest::newRow("TF_CONFIG nested 60000 deep") << QStringList{"server"} << "{\"task\": " + deepJson + "}" << 2
        << "TF_CONFIG: TF_CONFIG: JSON nested more than 100 levels deep";

    // Numbers out of range.
    QTest::newRow("TF_CONFIG index 2^32") << QStringList{"server"}
        << "{" + cluster + ", \"task\": {\"type\": \"ps\", \"index\": 4294967296}}" << 2
        << "TF_CONFIG task index 4294967296 is out of range (0 to 2147483647)";
    QTest::newRow("TF_CONFIG index 2^31") << QStringList{"server"}
        << "{" + cluster + ", \"task\": {\"type\": \"ps\", \"index\": 2147483648}}" << 2
        << "TF_CONFIG task index 2147483648 is out of range (0 to 2147483647)";
    QTest::newRow("cluster task key 2^32") << QStringList{"server", "--cluster", "{\"ps\": {\"4294967296\": \"127.0.0.1:0\"}}",
                                                          "--job_name", "ps"}
        << "" << 2 << "Job 'ps' has task index 4294967296, out of range (0 to 2147483647)";
    QTest::newRow("task_index flag 2^32") << QStringList{"server", "--cluster", "ps=127.0.0.1:0", "--job_name", "ps",
                                                         "--task_index", "4294967296"}
        << "" << 2 << "flag '--task_index' wants a whole number from 0 to 2147483647, got '4294967296'";
    QTest::newRow("port above 65535") << QStringList{"server", "--cluster", "ps=127.0.0.1:65536", "--job_name", "ps"}
        << "" << 2 << "has port 65536 outside 0..65535";
    // clang-format on
  }

  void refusedWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, tfConfig);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrHas);
    for (QString& arg : args) arg.replace("@tmp@", tmp_.path());
    if (tfConfig.isEmpty()) {
      qunsetenv("TF_CONFIG");
    } else {
      qputenv("TF_CONFIG", tfConfig.toUtf8());
    }
    const ProgramResult result = ClabProcess::clab(args);
    qunsetenv("TF_CONFIG");
    QVERIFY2(result.finished, qPrintable(result.err));
    const QStringList errLines = result.errLines();
    QVERIFY2(errLines.size() == 1, qPrintable("expected one stderr line, got:\n" + result.err.left(2000)));
    QVERIFY2(errLines[0].contains(stderrHas),
             qPrintable(QString("stderr: %1\nwanted: %2").arg(errLines[0].left(2000), stderrHas)));
    QCOMPARE(result.exitCode, exitCode);
  }

  void checkpointWithWrappingSizeIsDamaged() {
    // A float entry of shape [2^62]: its byte count wraps to 0, so a size of 0 and the
    // checksum of no bytes once made it "ok" to `ckpt ls` and let `ckpt show` print memory.
    const std::string dir = tmp_.filePath("ckpt").toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(dir)));
    const std::string prefix = dir + "/model.ckpt-5";
    QVERIFY(clab::WriteTensorBundle(prefix, {{"w", clab::Tensor::Vector<float>({1})}}).ok());
    clab::SortedTableBuilder table;
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(1);
    QVERIFY(table.Add("", header.SerializeAsString()).ok());
    tensorflow::BundleEntryProto entry;
    entry.set_dtype(tensorflow::DT_FLOAT);
    entry.mutable_shape()->add_dim()->set_size(int64_t{1} << 62);
    entry.set_crc32c(clab::crc32c::Mask(clab::crc32c::Value("", 0)));
    QVERIFY(table.Add("w", entry.SerializeAsString()).ok());
    {
      std::ofstream index(prefix + ".index", std::ios::binary | std::ios::trunc);
      index << table.Finish();
      std::ofstream state(dir + "/checkpoint");
      state << "model_checkpoint_path: \"model.ckpt-5\"\nall_model_checkpoint_paths: \"model.ckpt-5\"\n";
    }
    const ProgramResult ls = ClabProcess::clab({"ckpt", "ls", QString::fromStdString(dir)});
    // Listed as damaged, and the exit status says so.
    QVERIFY2(ls.finished && ls.exitCode == 1, qPrintable(ls.err));
    QVERIFY2(ls.out.contains("DAMAGED") && ls.out.contains("[4611686018427387904]") && !ls.out.contains("ok,"),
             qPrintable(ls.out));
    const ProgramResult show = ClabProcess::clab({"ckpt", "show", QString::fromStdString(prefix), "--values", "4"});
    QVERIFY2(show.finished, qPrintable(show.err));
    QCOMPARE(show.exitCode, 1);
    QVERIFY2(show.err.contains("DATA_LOSS") || show.err.contains("damaged"), qPrintable(show.err));
  }

 private:
  void writeFile(const QString& name, const QByteArray& bytes) {
    QVERIFY2(ClabProcess::writeFile(tmp_.filePath(name), bytes), qPrintable(tmp_.filePath(name)));
  }

  QTemporaryDir tmp_;
};

QTEST_GUILESS_MAIN(ClabHostileInputTest)
#include "tst_clab_hostile_input.moc"
