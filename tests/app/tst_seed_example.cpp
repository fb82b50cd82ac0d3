// The seed example programs, run as a user runs them.
#include "ClabProcess.h"

#include <QFile>
#include <QtTest>

class SeedExampleTest : public QObject {
  Q_OBJECT

 private slots:
  void seedLocalPrintsTwenty() {
    QVERIFY2(QFile::exists(ClabProcess::programPath("seed_local")), qPrintable(ClabProcess::programPath("seed_local")));
    const ProgramResult result = ClabProcess::run("seed_local", {});
    QVERIFY2(result.exitCode == 0, qPrintable(result.err));
    const QStringList lines = result.outLines();
    QCOMPARE(lines.count("[[20]]"), 3);
    QCOMPARE(lines.last(), QString("[[20]]"));
    // It asks for log_device_placement, as the seed's ConfigProto does.
    QVERIFY2(lines.contains("MatMul: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0"), qPrintable(result.out));
  }
};

QTEST_GUILESS_MAIN(SeedExampleTest)
#include "tst_seed_example.moc"
