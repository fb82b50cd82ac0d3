// The start-up check of the instruction set the build assumes (CLAB_CPU_LEVEL): a processor
// without a feature of that level gets a message naming each missing feature and how to
// build for it; this machine, which built the tests, has them all.
#include "clab/core/CpuLevel.h"

#include <QtTest>

#include <set>
#include <string>

using namespace clab;

class CpuLevelTest : public QObject {
  Q_OBJECT

 private slots:
  void thisMachineHasWhatTheBuildAssumes() {
    QVERIFY2(CpuLevel::Missing().empty(), CpuLevel::Problem().c_str());
    QCOMPARE(CpuLevel::Problem(), std::string());
  }

  void aProcessorWithoutAvx2IsToldSo() {
    const std::set<std::string> absent = {"avx2", "fma"};
    auto has = [&](const char* feature) { return absent.count(feature) == 0; };
    const std::vector<std::string> missing = CpuLevel::MissingFor("x86-64-v3", has);
    QCOMPARE(missing, (std::vector<std::string>{"avx2", "fma"}));
    const std::string problem = CpuLevel::ProblemFor("x86-64-v3", has);
    QVERIFY2(problem.find("built for x86-64-v3") != std::string::npos, problem.c_str());
    QVERIFY2(problem.find("lacks avx2, fma") != std::string::npos, problem.c_str());
    QVERIFY2(problem.find("-DCLAB_CPU_LEVEL=x86-64") != std::string::npos, problem.c_str());
  }

  void levelsBuildOnEachOther() {
    auto none = [](const char*) { return false; };
    const size_t v2 = CpuLevel::MissingFor("x86-64-v2", none).size();
    const size_t v3 = CpuLevel::MissingFor("x86-64-v3", none).size();
    const size_t v4 = CpuLevel::MissingFor("x86-64-v4", none).size();
    QVERIFY(v2 > 0 && v2 < v3 && v3 < v4);
    // The baseline and levels the check cannot know ask for nothing.
    QVERIFY(CpuLevel::MissingFor("", none).empty());
    QVERIFY(CpuLevel::MissingFor("native", none).empty());
  }
};

QTEST_GUILESS_MAIN(CpuLevelTest)
#include "tst_cpu_level.moc"
