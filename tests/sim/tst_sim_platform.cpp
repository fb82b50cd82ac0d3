// Platform descriptions: quantities, the JSON format, binding tasks to hosts, and the errors
// that name the element at fault.
#include "StatusText.h"
#include "platform/PlatformSpec.h"
#include "platform/Quantity.h"
#include "platform/WorkerGroups.h"
#include "project/SimProject.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;
using namespace clab::sim;
using clab::testing::StatusText;

class SimPlatformTest : public QObject {
  Q_OBJECT

 private slots:
  void quantities_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("bytes_per_second");
    QTest::newRow("gigabits") << "10Gbps" << 1.25e9;
    QTest::newRow("megabytes") << "125MBps" << 125e6;
    QTest::newRow("mebibits") << "8Mibps" << 1048576.0;
    QTest::newRow("bare number") << "1000" << 1000.0;
    QTest::newRow("tc style") << "100Mbit/s" << 12.5e6;
  }
  void quantities() {
    QFETCH(QString, text);
    QFETCH(double, bytes_per_second);
    StatusOr<double> parsed = ParseBandwidth(text.toStdString());
    QVERIFY2(parsed.ok(), StatusText(parsed.status()));
    QCOMPARE(*parsed, bytes_per_second);
  }

  void durationsAndSizes() {
    QCOMPARE(*ParseDuration("50us"), 50e-6);
    QCOMPARE(*ParseDuration("1.5ms"), 1.5e-3);
    QCOMPARE(*ParseDuration("2"), 2.0);
    QCOMPARE(*ParseSize("1600B"), 1600.0);
    QCOMPARE(*ParseSize("16KiB"), 16384.0);
    QVERIFY(!ParseDuration("5 fortnights").ok());
    QVERIFY(!ParseBandwidth("fast").ok());
    QCOMPARE(FormatBandwidth(1.25e9), std::string("10Gbps"));
    QCOMPARE(FormatDuration(50e-6), std::string("50us"));
  }

  void readsEveryPart() {
    StatusOr<PlatformSpec> spec = PlatformSpec::FromJsonText(R"({
      "topology": "tree",
      "host": {"cores": 4, "speed": 2.0},
      "link": {"bandwidth": "1Gbps", "latency": "100us"},
      "rack": {"hosts": 8, "uplink": {"bandwidth": "10Gbps", "latency": "5us"}},
      "machines": [{"name": "box", "cores": 2}],
      "hosts": [{"name": "big", "cores": 32, "speed": 3, "link": {"bandwidth": "40Gbps"}},
                {"name": "small", "machine": "box"}],
      "tasks": {"/job:ps/task:0": "big", "/job:worker/)"
                                                             "*"
                                                             R"(": ["small", "big"]}})",
                                                             "test.json");
    QVERIFY2(spec.ok(), StatusText(spec.status()));
    QCOMPARE(spec->topology, Topology::kTree);
    QCOMPARE(spec->host.cores, 4);
    QCOMPARE(spec->host.speed, 2.0);
    QCOMPARE(spec->host.link.bandwidth, 1.25e8);
    QCOMPARE(spec->rack_hosts, 8);
    QCOMPARE(spec->rack_uplink.latency, 5e-6);
    QCOMPARE(spec->hosts.size(), size_t{2});
    QCOMPARE(spec->hosts[0].link.bandwidth, 5e9);
    // A named host without its own link takes the platform's.
    QCOMPARE(spec->hosts[1].link.bandwidth, 1.25e8);
    QCOMPARE(spec->hosts[1].machine, std::string("box"));
    // And the text it writes reads back the same.
    StatusOr<PlatformSpec> again = PlatformSpec::FromJsonText(spec->ToJsonText(), "again");
    QVERIFY2(again.ok(), StatusText(again.status()));
    QCOMPARE(again->ToJsonText(), spec->ToJsonText());
  }

  void bindsTasksToHosts() {
    StatusOr<PlatformSpec> spec = PlatformSpec::FromJsonText(R"({
      "hosts": [{"name": "a"}, {"name": "b"}],
      "tasks": {"ps:0": "a", "/job:worker/)"
                                                             "*"
                                                             R"(": ["a", "b"]}})",
                                                             "test.json");
    QVERIFY2(spec.ok(), StatusText(spec.status()));
    StatusOr<BoundPlatform> bound =
        spec->Bind({"/job:ps/replica:0/task:0", "/job:ps/replica:0/task:1", "/job:worker/replica:0/task:0",
                    "/job:worker/replica:0/task:1", "/job:worker/replica:0/task:2"});
    QVERIFY2(bound.ok(), StatusText(bound.status()));
    QCOMPARE(bound->HostOf(0).name, std::string("a"));
    QCOMPARE(bound->HostOf(1).name, std::string("ps-1"));  // its own host, from the template
    QCOMPARE(bound->HostOf(2).name, std::string("a"));     // the workers go round a and b
    QCOMPARE(bound->HostOf(3).name, std::string("b"));
    QCOMPARE(bound->HostOf(4).name, std::string("a"));
  }

  void groupsIdenticalWorkers() {
    const PlatformSpec spec = PlatformSpec::Default();
    std::vector<std::string> tasks = {"/job:ps/replica:0/task:0"};
    for (int i = 0; i < 10; ++i) tasks.push_back("/job:worker/replica:0/task:" + std::to_string(i));
    const BoundPlatform bound = *spec.Bind(tasks);
    const BoundPlatform grouped = GroupIdenticalWorkers(bound, spec, 4);
    QCOMPARE(grouped.tasks.size(), size_t{5});  // the ps and four groups
    int members = 0;
    for (size_t t = 1; t < grouped.tasks.size(); ++t) {
      const int m = grouped.Multiplicity(t);
      QVERIFY(m == 2 || m == 3);  // sizes differ by at most one
      QCOMPARE(grouped.HostOf(t).cores, spec.host.cores * m);
      QCOMPARE(grouped.HostOf(t).link.bandwidth, spec.host.link.bandwidth * m);
      members += m;
    }
    QCOMPARE(members, 10);
    QCOMPARE(GroupIdenticalWorkers(bound, spec, 64).tasks.size(), bound.tasks.size());
  }

  void errorsNameTheElement_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("zero bandwidth") << R"({"link": {"bandwidth": "0Gbps"}})"
                                    << "p.json.link.bandwidth: \"0Gbps\" is not above zero";
    QTest::newRow("negative speed") << R"({"hosts": [{"name": "h", "speed": -1}]})"
                                    << "p.json.hosts[0] \"h\".speed: -1 is not a speed";
    QTest::newRow("no cores") << R"({"host": {"cores": 0}})"
                              << "p.json.host.cores: 0 is not a count";
    QTest::newRow("negative latency") << R"({"link": {"latency": "-5us"}})"
                                      << "p.json.link.latency: \"-5us\" is negative";
    QTest::newRow("typo") << R"({"link": {"bandwith": "1Gbps"}})"
                          << "p.json.link: unknown field \"bandwith\"";
    QTest::newRow("unknown topology") << R"({"topology": "ring"})"
                                      << "p.json.topology: \"ring\" is not a topology";
    QTest::newRow("unknown host") << R"({"hosts": [{"name": "a"}], "tasks": {"/job:ps/task:0": "nope"}})"
                                  << "p.json.tasks[\"/job:ps/task:0\"]: host \"nope\" is not in \"hosts\"";
    QTest::newRow("unknown machine") << R"({"hosts": [{"name": "a", "machine": "m"}]})"
                                     << "p.json.hosts[0] \"a\".machine: \"m\" is not in \"machines\"";
    QTest::newRow("two hosts of a name") << R"({"hosts": [{"name": "a"}, {"name": "a"}]})"
                                         << "p.json.hosts[1] \"a\": a second host of that name";
    QTest::newRow("xml without a file") << R"({"topology": "xml"})"
                                        << "wants \"xml\": the SimGrid platform file";
    QTest::newRow("not a task") << R"({"hosts": [{"name": "a"}], "tasks": {"ps": "a"}})"
                                << "not a task";
    QTest::newRow("bad unit") << R"({"link": {"bandwidth": "10Gbps/s"}})"
                              << "unknown bandwidth unit";
    QTest::newRow("not json") << "{"
                              << "p.json: not JSON";
  }
  void errorsNameTheElement() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    StatusOr<PlatformSpec> spec = PlatformSpec::FromJsonText(json.toStdString(), "p.json");
    QVERIFY(!spec.ok());
    QVERIFY2(QString::fromStdString(std::string(spec.status().message())).contains(expected),
             StatusText(spec.status()));
  }

  void xmlFilesAreTakenAsTheyAre() {
    const std::string path = (std::filesystem::temp_directory_path() / "clab-sim-test-platform.xml").string();
    { std::ofstream(path) << "<?xml version='1.0'?><platform version=\"4.1\"></platform>\n"; }
    StatusOr<PlatformSpec> spec = PlatformSpec::FromFile(path);
    QVERIFY2(spec.ok(), StatusText(spec.status()));
    QCOMPARE(spec->topology, Topology::kXml);
    QCOMPARE(spec->xml_path, path);
    std::filesystem::remove(path);
    QVERIFY(!PlatformSpec::FromFile(path).ok());
  }

  void projectsCarryTheirPlatform() {
    StatusOr<SimProject> project = SimProject::FromJsonText(R"({
      "format": "clusterlab-project", "version": 1, "name": "p",
      "cluster": {"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"]},
      "program": "digits-mlp", "run": {"sync": true},
      "platform": {"link": {"bandwidth": "1Gbps"}}})",
                                                            "p.clab");
    QVERIFY2(project.ok(), StatusText(project.status()));
    QCOMPARE(project->tasks.at("worker"), 2);
    QVERIFY(project->sync);
    QVERIFY(project->platform.has_value());
    QCOMPARE(project->platform->host.link.bandwidth, 1.25e8);
    StatusOr<SimProject> bad = SimProject::FromJsonText(R"({
      "format": "clusterlab-project", "cluster": {"ps": ["a:1"]},
      "platform": {"link": {"bandwidth": 0}}})",
                                                        "p.clab");
    QVERIFY(!bad.ok());
    QVERIFY2(QString::fromStdString(std::string(bad.status().message())).contains("p.clab: platform.link.bandwidth"),
             StatusText(bad.status()));
  }
};

QTEST_APPLESS_MAIN(SimPlatformTest)
#include "tst_sim_platform.moc"
