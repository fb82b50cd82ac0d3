// ClusterSpec from every form a user writes it in, and every malformed input answered with
// an error that names the culprit.
#include "clab/distributed/ClusterSpec.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using clab::ClusterSpec;

Q_DECLARE_METATYPE(absl::StatusCode)

class ClusterSpecTest : public QObject {
  Q_OBJECT

 private slots:
  void parsesEveryForm_data();
  void parsesEveryForm();
  void dictAndClusterDefAgree();
  void sparseJobsKeepTheirIndices();
  void readsAJsonFile();
  void readsTfConfig();
  void rejectsMalformedSpecs_data();
  void rejectsMalformedSpecs();
  void rejectsMalformedTfConfig_data();
  void rejectsMalformedTfConfig();
  void unknownJobAndTaskAreNamed();
};

void ClusterSpecTest::parsesEveryForm_data() {
  // clang-format off
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("inline_form");
  QTest::newRow("inline") << "ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224"
                          << "ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224";
  QTest::newRow("inline with spaces") << " ps = 127.0.0.1:2223 ; worker=127.0.0.1:2222 "
                                      << "ps=127.0.0.1:2223;worker=127.0.0.1:2222";
  QTest::newRow("json dict") << R"({"worker": ["127.0.0.1:2222"], "ps": ["127.0.0.1:2223"]})"
                             << "ps=127.0.0.1:2223;worker=127.0.0.1:2222";
  QTest::newRow("TF_CONFIG object") << R"({"cluster": {"ps": ["h1:1"], "worker": ["h2:2"]},
                                          "task": {"type": "worker", "index": 0}})"
                                    << "ps=h1:1;worker=h2:2";
  QTest::newRow("ipv6") << "ps=[::1]:2223" << "ps=[::1]:2223";
  QTest::newRow("python dict, as the seed writes it")
      << "{'ps': ['10.211.55.3:2223'], 'worker': ['192.168.65.44:2222']}"
      << "ps=10.211.55.3:2223;worker=192.168.65.44:2222";
  // clang-format on
}

void ClusterSpecTest::parsesEveryForm() {
  QFETCH(QString, text);
  QFETCH(QString, inline_form);
  auto spec = ClusterSpec::Parse(text.toStdString());
  QVERIFY2(spec.ok(), spec.status().ToString().c_str());
  QCOMPARE(QString::fromStdString(spec->ToInline()), inline_form);
  // The inline form reads back as the same cluster.
  auto again = ClusterSpec::Parse(spec->ToInline());
  QVERIFY(again.ok());
  QVERIFY(*again == *spec);
}

void ClusterSpecTest::dictAndClusterDefAgree() {
  auto spec = ClusterSpec::FromDict({{"ps", {"127.0.0.1:2223"}}, {"worker", {"127.0.0.1:2222", "127.0.0.1:2224"}}});
  QVERIFY(spec.ok());
  QCOMPARE(spec->num_tasks("worker"), 2);
  QCOMPARE(*spec->TaskAddress("worker", 1), std::string("127.0.0.1:2224"));
  const tensorflow::ClusterDef def = spec->ToClusterDef();
  QCOMPARE(def.job_size(), 2);
  QCOMPARE(def.job(0).name(), std::string("ps"));  // sorted by name
  auto back = ClusterSpec::FromClusterDef(def);
  QVERIFY(back.ok());
  QVERIFY(*back == *spec);
  QCOMPARE(QString::fromStdString(spec->ToPythonDict()),
           QString("{'ps': ['127.0.0.1:2223'], 'worker': ['127.0.0.1:2222', '127.0.0.1:2224']}"));
  const auto tasks = spec->Tasks();
  QCOMPARE(tasks.size(), size_t{3});
  QCOMPARE(tasks[0].first, std::string("/job:ps/replica:0/task:0"));
}

void ClusterSpecTest::sparseJobsKeepTheirIndices() {
  auto spec = ClusterSpec::FromJson(R"({"ps": ["h:1"], "worker": {"1": "h:2", "3": "h:3"}})");
  QVERIFY2(spec.ok(), spec.status().ToString().c_str());
  QCOMPARE(spec->task_indices("worker"), (std::vector<int>{1, 3}));
  QVERIFY(!spec->TaskAddress("worker", 0).ok());
  QCOMPARE(*spec->TaskAddress("worker", 3), std::string("h:3"));
}

void ClusterSpecTest::readsAJsonFile() {
  QTemporaryDir dir;
  const std::string path = dir.filePath("cluster.json").toStdString();
  std::ofstream(path) << R"({"ps": ["127.0.0.1:2223"], "worker": ["127.0.0.1:2222"]})";
  auto spec = ClusterSpec::Parse(path);
  QVERIFY2(spec.ok(), spec.status().ToString().c_str());
  QCOMPARE(spec->num_tasks("ps"), 1);

  std::ofstream(path) << R"({"ps": 5})";
  auto bad = ClusterSpec::Parse(path);
  QVERIFY(!bad.ok());
  // The file is named, so the user knows which one to fix.
  QVERIFY2(std::string(bad.status().message()).find(path) != std::string::npos, bad.status().ToString().c_str());
}

void ClusterSpecTest::readsTfConfig() {
  auto config = clab::TfConfig::Parse(R"({"cluster": {"chief": ["h0:1"], "ps": ["h1:1"], "worker": ["h2:1", "h3:1"]},
                                          "task": {"type": "worker", "index": 0}})");
  QVERIFY2(config.ok(), config.status().ToString().c_str());
  QCOMPARE(config->task_type, std::string("worker"));
  QVERIFY(!config->is_chief);  // a chief job exists, so worker 0 is not the chief
  auto no_chief = clab::TfConfig::Parse(R"({"cluster": {"ps": ["h1:1"], "worker": ["h2:1"]},
                                            "task": {"type": "worker", "index": 0}})");
  QVERIFY(no_chief.ok());
  QVERIFY(no_chief->is_chief);
}

void ClusterSpecTest::rejectsMalformedSpecs_data() {
  // clang-format off
  QTest::addColumn<QString>("text");
  QTest::addColumn<absl::StatusCode>("code");
  QTest::addColumn<QString>("culprit");
  const auto invalid = absl::StatusCode::kInvalidArgument;
  QTest::newRow("empty") << "" << invalid << "empty";
  QTest::newRow("bad job name") << "0ps=127.0.0.1:1" << invalid << "0ps";
  QTest::newRow("no port") << "ps=127.0.0.1" << invalid << "127.0.0.1";
  QTest::newRow("port too big") << "ps=127.0.0.1:99999" << invalid << "99999";
  QTest::newRow("port not a number") << "ps=127.0.0.1:http" << invalid << "http";
  QTest::newRow("address used twice") << "ps=127.0.0.1:1;worker=127.0.0.1:1" << invalid << "127.0.0.1:1";
  QTest::newRow("job twice") << "ps=h:1;ps=h:2" << invalid << "ps";
  QTest::newRow("part without =") << "ps=h:1;worker" << invalid << "worker";
  QTest::newRow("job value not a list") << R"({"ps": 5})" << invalid << "ps";
  QTest::newRow("sparse index not a number") << R"({"worker": {"x": "h:2"}})" << invalid << "x";
  QTest::newRow("address not a string") << R"({"worker": [7]})" << invalid << "worker";
  QTest::newRow("not json") << "{ps: [" << invalid << "JSON";
  QTest::newRow("missing file") << "/nonexistent/cluster.json" << absl::StatusCode::kNotFound
                                << "/nonexistent/cluster.json";
  // Numbers and nesting from outside: errors, never wrapped around or recursed into.
  QTest::newRow("sparse index past int") << R"({"worker": {"4294967296": "h:2"}})" << invalid
                                         << "task index 4294967296, out of range";
  QTest::newRow("sparse index past int64") << R"({"worker": {"99999999999999999999": "h:2"}})" << invalid
                                           << "99999999999999999999";
  QTest::newRow("nested 100000 deep") << "{\"ps\": " + QString(100000, '[') + QString(100000, ']') + "}" << invalid
                                      << "JSON nested more than 100 levels deep (line 1, column 107)";
  // clang-format on
}

void ClusterSpecTest::rejectsMalformedSpecs() {
  QFETCH(QString, text);
  QFETCH(absl::StatusCode, code);
  QFETCH(QString, culprit);
  auto spec = ClusterSpec::Parse(text.toStdString());
  QVERIFY(!spec.ok());
  QCOMPARE(spec.status().code(), code);
  const QString message = QString::fromStdString(std::string(spec.status().message()));
  QVERIFY2(message.contains(culprit), qPrintable(message));
}

void ClusterSpecTest::rejectsMalformedTfConfig_data() {
  // clang-format off
  QTest::addColumn<QString>("json");
  QTest::addColumn<QString>("culprit");
  QTest::newRow("no cluster") << R"({"task": {"type": "worker", "index": 0}})" << "cluster";
  QTest::newRow("no task") << R"({"cluster": {"worker": ["h:1"]}})" << "task";
  QTest::newRow("no type") << R"({"cluster": {"worker": ["h:1"]}, "task": {"index": 0}})" << "type";
  QTest::newRow("unknown type") << R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "ps", "index": 0}})"
                                << "'ps'";
  QTest::newRow("index out of range") << R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 4}})"
                                      << "index 4";
  QTest::newRow("two chiefs") << R"({"cluster": {"chief": ["h:1", "h:2"]}, "task": {"type": "chief", "index": 0}})"
                              << "chief";
  QTest::newRow("index 2^32") << R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 4294967296}})"
                              << "index 4294967296 is out of range";
  QTest::newRow("index 2^31") << R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 2147483648}})"
                              << "index 2147483648 is out of range";
  QTest::newRow("negative index") << R"({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": -1}})"
                                  << "index -1 is out of range";
  // clang-format on
}

void ClusterSpecTest::rejectsMalformedTfConfig() {
  QFETCH(QString, json);
  QFETCH(QString, culprit);
  auto config = clab::TfConfig::Parse(json.toStdString());
  QVERIFY(!config.ok());
  QCOMPARE(config.status().code(), absl::StatusCode::kInvalidArgument);
  const QString message = QString::fromStdString(std::string(config.status().message()));
  QVERIFY2(message.contains(culprit), qPrintable(message));
}

void ClusterSpecTest::unknownJobAndTaskAreNamed() {
  auto spec = ClusterSpec::Parse("ps=h:1;worker=h:2");
  QVERIFY(spec.ok());
  auto job = spec->TaskAddress("chief", 0);
  QCOMPARE(job.status().code(), absl::StatusCode::kNotFound);
  QVERIFY(std::string(job.status().message()).find("'chief'") != std::string::npos);
  auto task = spec->TaskAddress("worker", 5);
  QCOMPARE(task.status().code(), absl::StatusCode::kNotFound);
  QVERIFY(std::string(task.status().message()).find("5") != std::string::npos);
}

QTEST_APPLESS_MAIN(ClusterSpecTest)
#include "tst_cluster_spec.moc"
