// SLURM's node lists and task counts, and the ClusterSpec of a job step, against what
// TensorFlow's SlurmClusterResolver documents and tests (slurm_cluster_resolver_test.py):
// the same inputs give the same lists, the same addresses and the same GPUs. Where
// TensorFlow would fail with a bare exception or silently drop tasks, the messages here
// name the variable and what is wrong.
#include "launch/slurm/SlurmClusterResolver.h"
#include "launch/slurm/SlurmHostlist.h"
#include "launch/slurm/SlurmTasksPerNode.h"

#include <QtTest>

#include <map>
#include <string>

using namespace clab;
using namespace clab::launch;

namespace {

QStringList ToQt(const std::vector<std::string>& items) {
  QStringList list;
  for (const std::string& item : items) list << QString::fromStdString(item);
  return list;
}

SlurmEnvironment::Getenv FakeEnvironment(std::map<std::string, std::string> variables) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(variables));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

QString ClusterText(const ClusterSpec& cluster) { return QString::fromStdString(cluster.ToInline()); }

}  // namespace

class SlurmResolverTest : public QObject {
  Q_OBJECT

 private slots:
  void expandsHostlists_data() {
    QTest::addColumn<QString>("hostlist");
    QTest::addColumn<QStringList>("hosts");
    // TensorFlow's test_expand_hostlist.
    QTest::newRow("one") << "n1" << QStringList{"n1"};
    QTest::newRow("list in brackets") << "n[1,3]" << QStringList{"n1", "n3"};
    QTest::newRow("range") << "n[1-3]" << QStringList{"n1", "n2", "n3"};
    QTest::newRow("mixed") << "n[1-2],m5,o[3-4,6,7-9]"
                           << QStringList{"n1", "n2", "m5", "o3", "o4", "o6", "o7", "o8", "o9"};
    QTest::newRow("zeros kept") << "n[0001-0003],m5,o[009-011]"
                                << QStringList{"n0001", "n0002", "n0003", "m5", "o009", "o010", "o011"};
    // The form the task names: ranges and single numbers together.
    QTest::newRow("n[1-3,5]") << "n[1-3,5]" << QStringList{"n1", "n2", "n3", "n5"};
    // SLURM also writes a suffix after the range; order and duplicates are kept.
    QTest::newRow("suffix") << "gpu[1-2]-ib" << QStringList{"gpu1-ib", "gpu2-ib"};
    QTest::newRow("duplicates kept") << "b,a,b" << QStringList{"b", "a", "b"};
  }
  void expandsHostlists() {
    QFETCH(QString, hostlist);
    QFETCH(QStringList, hosts);
    auto expanded = ExpandHostlist(hostlist.toStdString());
    QVERIFY2(expanded.ok(), expanded.status().ToString().c_str());
    QCOMPARE(ToQt(*expanded), hosts);
  }

  void rejectsBadHostlists_data() {
    QTest::addColumn<QString>("hostlist");
    QTest::addColumn<QString>("message");
    QTest::newRow("unclosed") << "n[1-3"
                              << "a '[' that is not closed";
    QTest::newRow("backwards") << "n[3-1]"
                               << "the range '3-1' runs backwards";
    QTest::newRow("not a number") << "n[a-b]"
                                  << "'a-b' is not a number or a range of numbers";
    QTest::newRow("empty name") << "n1,,n2"
                                << "an empty host name";
    QTest::newRow("nested") << "n[1-[2]]"
                            << "a '[' inside a range";
    QTest::newRow("two ranges") << "n[1-2]x[3-4]"
                                << "has more than one range";
  }
  void rejectsBadHostlists() {
    QFETCH(QString, hostlist);
    QFETCH(QString, message);
    auto expanded = ExpandHostlist(hostlist.toStdString());
    QVERIFY(!expanded.ok());
    const QString text = QString::fromStdString(std::string(expanded.status().message()));
    QVERIFY2(text.contains("'" + hostlist + "'") && text.contains(message), qPrintable(text));
  }

  void expandsTasksPerNode_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("counts");
    // TensorFlow's test_expand_tasks_per_node, and the task's example.
    QTest::newRow("2") << "2" << QList<int>{2};
    QTest::newRow("2,1,3") << "2,1,3" << QList<int>{2, 1, 3};
    QTest::newRow("3(x2),2,1") << "3(x2),2,1" << QList<int>{3, 3, 2, 1};
    QTest::newRow("3(x2),2,11(x4)") << "3(x2),2,11(x4)" << QList<int>{3, 3, 2, 11, 11, 11, 11};
    QTest::newRow("13(x10)") << "13(x10)" << QList<int>(10, 13);
    QTest::newRow("2(x3),1") << "2(x3),1" << QList<int>{2, 2, 2, 1};
  }
  void expandsTasksPerNode() {
    QFETCH(QString, text);
    QFETCH(QList<int>, counts);
    auto expanded = ExpandTasksPerNode(text.toStdString());
    QVERIFY2(expanded.ok(), expanded.status().ToString().c_str());
    QCOMPARE(QList<int>(expanded->begin(), expanded->end()), counts);
  }

  void rejectsBadTasksPerNode() {
    for (const char* text : {"2(x)", "x3", "2(3)", "", "2,,1"}) {
      auto expanded = ExpandTasksPerNode(text);
      QVERIFY2(!expanded.ok(), text);
      QVERIFY2(std::string(expanded.status().message()).find("is not N or N(xR)") != std::string::npos,
               expanded.status().ToString().c_str());
    }
  }

  // TensorFlow's resolver tests, as cluster specs and this task's place in them.
  void resolvesAsTensorFlowDoes_data() {
    QTest::addColumn<QString>("nodelist");
    QTest::addColumn<QString>("tasksPerNode");
    QTest::addColumn<int>("rank");
    QTest::addColumn<QString>("jobs");
    QTest::addColumn<int>("gpusPerNode");
    QTest::addColumn<int>("gpusPerTask");
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<QString>("task");
    QTest::addColumn<QString>("devices");
    // testSimpleRetrievalFromEnv: without jobs, every task is a worker.
    QTest::newRow("workers only") << "t02n13,t02n41,t02n43"
                                  << "1(x3)" << 0 << "" << 0 << 0 << "worker=t02n13:8888,t02n41:8888,t02n43:8888"
                                  << "worker/0"
                                  << "";
    // testSimpleSuccessfulRetrieval / testTaskPerNodeNotSetRetrieval.
    QTest::newRow("ps and workers") << "t02n13,t02n41,t02n43"
                                    << "1(x3)" << 0 << "ps:1,worker:2" << 0 << 0
                                    << "ps=t02n13:8888;worker=t02n41:8888,t02n43:8888"
                                    << "ps/0"
                                    << "";
    // testMultiTaskPerNodeRetrieval: two tasks on the first two nodes; rank 1 is worker 0,
    // the second task of t02n13, and gets GPU 1 of 2.
    QTest::newRow("two per node") << "t02n13,t02n41,t02n43"
                                  << "2(x2),1" << 1 << "ps:1,worker:4" << 2 << 1
                                  << "ps=t02n13:8888;worker=t02n13:8889,t02n41:8888,t02n41:8889,t02n43:8888"
                                  << "worker/0"
                                  << "1";
    // testMultipleGpusPerTaskRetrieval: two GPUs each, so rank 1 gets 2 and 3.
    QTest::newRow("two GPUs each") << "t02n13,t02n41,t02n43"
                                   << "2(x2),1" << 1 << "ps:1,worker:4" << 4 << 2
                                   << "ps=t02n13:8888;worker=t02n13:8889,t02n41:8888,t02n41:8889,t02n43:8888"
                                   << "worker/0"
                                   << "2,3";
    // Nodes are sorted by name as Python sorts strings (n10 before n2), ranges expanded.
    QTest::newRow("sorted nodes") << "n[2,10],n1"
                                  << "1(x3)" << 2 << "ps:1,worker:2" << 0 << 0 << "ps=n1:8888;worker=n10:8888,n2:8888"
                                  << "worker/1"
                                  << "";
    // The task's own example: n[1-3,5] with 2(x3),1 is seven tasks.
    QTest::newRow("n[1-3,5]") << "n[1-3,5]"
                              << "2(x3),1" << 6 << "ps:2,worker:5" << 0 << 0
                              << "ps=n1:8888,n1:8889;worker=n2:8888,n2:8889,n3:8888,n3:8889,n5:8888"
                              << "worker/4"
                              << "";
  }
  void resolvesAsTensorFlowDoes() {
    QFETCH(QString, nodelist);
    QFETCH(QString, tasksPerNode);
    QFETCH(int, rank);
    QFETCH(QString, jobs);
    QFETCH(int, gpusPerNode);
    QFETCH(int, gpusPerTask);
    QFETCH(QString, cluster);
    QFETCH(QString, task);
    QFETCH(QString, devices);
    const auto counts = ExpandTasksPerNode(tasksPerNode.toStdString());
    QVERIFY(counts.ok());
    int num_tasks = 0;
    for (int count : *counts) num_tasks += count;
    auto environment =
        SlurmEnvironment::Read(FakeEnvironment({{"SLURM_STEP_NODELIST", nodelist.toStdString()},
                                                {"SLURM_STEP_TASKS_PER_NODE", tasksPerNode.toStdString()},
                                                {"SLURM_STEP_NUM_TASKS", std::to_string(num_tasks)},
                                                {"SLURM_PROCID", std::to_string(rank)}}));
    QVERIFY2(environment.ok(), environment.status().ToString().c_str());
    SlurmClusterResolver::Options options;
    if (!jobs.isEmpty()) options.jobs = *SlurmClusterResolver::ParseJobs(jobs.toStdString());
    options.gpus_per_node = gpusPerNode;
    options.gpus_per_task = gpusPerTask;
    auto resolved = SlurmClusterResolver::Resolve(options, *environment);
    QVERIFY2(resolved.ok(), resolved.status().ToString().c_str());
    QCOMPARE(ClusterText(resolved->cluster), cluster);
    QCOMPARE(QStringLiteral("%1/%2").arg(QString::fromStdString(resolved->task_type)).arg(resolved->task_index), task);
    QCOMPARE(QString::fromStdString(resolved->cuda_visible_devices), devices);
  }

  void fallsBackToTheJobOutsideAStep() {
    // In the batch script itself (no step yet) the job's variables describe the allocation.
    auto environment = SlurmEnvironment::Read(
        FakeEnvironment({{"SLURM_JOB_NODELIST", "n[1-2]"}, {"SLURM_TASKS_PER_NODE", "2(x2)"}, {"SLURM_NTASKS", "4"}}));
    QVERIFY2(environment.ok(), environment.status().ToString().c_str());
    QCOMPARE(QString::fromStdString(environment->nodelist_variable), QString("SLURM_JOB_NODELIST"));
    QVERIFY(!environment->rank.has_value());
    SlurmClusterResolver::Options options;
    options.jobs = {{"ps", 1}, {"worker", 3}};
    options.port_base = 2222;
    auto resolved = SlurmClusterResolver::Resolve(options, *environment);
    QVERIFY2(resolved.ok(), resolved.status().ToString().c_str());
    QCOMPARE(ClusterText(resolved->cluster), QString("ps=n1:2222;worker=n1:2223,n2:2222,n2:2223"));
    QVERIFY(resolved->task_type.empty());
  }

  void namesWhatDoesNotFit() {
    auto read = [](std::map<std::string, std::string> variables) {
      return SlurmEnvironment::Read(FakeEnvironment(std::move(variables)));
    };
    auto outside = read({});
    QVERIFY(!outside.ok());
    QVERIFY2(std::string(outside.status().message()).find("not in a SLURM allocation") != std::string::npos,
             outside.status().ToString().c_str());

    auto environment =
        read({{"SLURM_STEP_NODELIST", "n[1-3]"}, {"SLURM_STEP_TASKS_PER_NODE", "1(x3)"}, {"SLURM_PROCID", "0"}});
    QVERIFY(environment.ok());
    SlurmClusterResolver::Options options;
    options.jobs = {{"ps", 1}, {"worker", 3}};
    auto too_many = SlurmClusterResolver::Resolve(options, *environment);
    QVERIFY(!too_many.ok());
    QVERIFY2(std::string(too_many.status().message()) ==
                 "the jobs want 4 tasks (ps:1, worker:3) but SLURM gave 3 (SLURM_STEP_TASKS_PER_NODE over 3 nodes)",
             too_many.status().ToString().c_str());

    // TensorFlow would zip the lists and drop the third node; here it is an error.
    auto uneven =
        read({{"SLURM_STEP_NODELIST", "n[1-3]"}, {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"}, {"SLURM_PROCID", "0"}});
    QVERIFY(uneven.ok());
    options.jobs = {{"worker", 2}};
    auto dropped = SlurmClusterResolver::Resolve(options, *uneven);
    QVERIFY(!dropped.ok());
    QVERIFY2(std::string(dropped.status().message())
                     .find("names 3 nodes but SLURM_STEP_TASKS_PER_NODE counts tasks for 2") != std::string::npos,
             dropped.status().ToString().c_str());

    auto bad_rank = read({{"SLURM_STEP_NODELIST", "n1"}, {"SLURM_STEP_TASKS_PER_NODE", "1"}, {"SLURM_PROCID", "x"}});
    QVERIFY(!bad_rank.ok());
    QVERIFY2(std::string(bad_rank.status().message()) == "SLURM_PROCID='x' is not a number",
             bad_rank.status().ToString().c_str());

    auto gpus = read({{"SLURM_STEP_NODELIST", "n1"}, {"SLURM_STEP_TASKS_PER_NODE", "3"}, {"SLURM_PROCID", "0"}});
    options.jobs = {{"worker", 3}};
    options.gpus_per_node = 4;
    options.gpus_per_task = 2;
    auto short_of_gpus = SlurmClusterResolver::Resolve(options, *gpus);
    QVERIFY(!short_of_gpus.ok());
    QVERIFY2(std::string(short_of_gpus.status().message()).find("need more than the 4 GPUs a node has") !=
                 std::string::npos,
             short_of_gpus.status().ToString().c_str());

    for (const char* jobs : {"ps", "ps:0", ":2", "ps:1,,worker:x"}) {
      auto parsed = SlurmClusterResolver::ParseJobs(jobs);
      QVERIFY2(!parsed.ok(), jobs);
    }
  }
};

QTEST_APPLESS_MAIN(SlurmResolverTest)
#include "tst_slurm_resolver.moc"
