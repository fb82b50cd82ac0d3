// Device-name parsing, printing, merging and matching, as TensorFlow's device specs behave.
#include "clab/core/DeviceName.h"

#include <QtTest>

using clab::DeviceName;

class TestDeviceName : public QObject {
  Q_OBJECT

 private slots:
  void parsesAcceptedForms_data();
  void parsesAcceptedForms();
  void rejectsMalformed_data();
  void rejectsMalformed();
  void parseFull_data();
  void parseFull();
  void mergeFillsMissingFields_data();
  void mergeFillsMissingFields();
  void mergeConflicts_data();
  void mergeConflicts();
  void softPlacementIgnoresTypeAndIdClashes();
  void overrideLetsOtherWin();
  void matches_data();
  void matches();
  void sameTaskAndHelpers();
};

void TestDeviceName::parsesAcceptedForms_data() {
  // clang-format off
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("canonical");
  QTest::addColumn<bool>("fully_specified");

  QTest::newRow("full") << "/job:ps/replica:0/task:0/device:CPU:0"
                        << "/job:ps/replica:0/task:0/device:CPU:0" << true;
  QTest::newRow("full gpu") << "/job:worker/replica:0/task:1/device:GPU:0"
                            << "/job:worker/replica:0/task:1/device:GPU:0" << true;
  QTest::newRow("any field order") << "/device:GPU:1/task:3/job:worker/replica:2"
                                   << "/job:worker/replica:2/task:3/device:GPU:1" << true;
  QTest::newRow("job only") << "/job:ps" << "/job:ps" << false;
  QTest::newRow("job and task") << "/job:worker/task:1" << "/job:worker/task:1" << false;
  QTest::newRow("trailing slash (seed program)") << "/job:worker/task:0/" << "/job:worker/task:0" << false;
  QTest::newRow("legacy cpu") << "/cpu:0" << "/device:CPU:0" << false;
  QTest::newRow("legacy CPU") << "/CPU:0" << "/device:CPU:0" << false;
  QTest::newRow("legacy gpu") << "/gpu:1" << "/device:GPU:1" << false;
  QTest::newRow("legacy GPU") << "/GPU:1" << "/device:GPU:1" << false;
  QTest::newRow("legacy with job") << "/job:worker/task:0/cpu:0" << "/job:worker/task:0/device:CPU:0" << false;
  QTest::newRow("legacy any id") << "/gpu:*" << "/device:GPU:*" << false;
  QTest::newRow("device any id") << "/device:GPU:*" << "/device:GPU:*" << false;
  QTest::newRow("device without id") << "/device:GPU" << "/device:GPU:*" << false;
  QTest::newRow("device lower case type") << "/device:cpu:0" << "/device:CPU:0" << false;
  QTest::newRow("other device type") << "/device:XLA_CPU:0" << "/device:XLA_CPU:0" << false;
  QTest::newRow("local form") << "CPU:0" << "/device:CPU:0" << false;
  QTest::newRow("local form lower") << "gpu:2" << "/device:GPU:2" << false;
  QTest::newRow("local device form") << "device:GPU:0" << "/device:GPU:0" << false;
  QTest::newRow("empty") << "" << "" << false;
  QTest::newRow("only slash") << "/" << "" << false;
  QTest::newRow("job wildcard") << "/job:*/task:1" << "/task:1" << false;
  QTest::newRow("task wildcard") << "/job:ps/task:*" << "/job:ps" << false;
  QTest::newRow("underscored job") << "/job:my_job2/task:10" << "/job:my_job2/task:10" << false;
  QTest::newRow("replica only") << "/replica:3" << "/replica:3" << false;
  QTest::newRow("localhost full") << "/job:localhost/replica:0/task:0/device:CPU:0"
                                  << "/job:localhost/replica:0/task:0/device:CPU:0" << true;
  // clang-format on
}

void TestDeviceName::parsesAcceptedForms() {
  QFETCH(QString, text);
  QFETCH(QString, canonical);
  QFETCH(bool, fully_specified);
  auto parsed = DeviceName::Parse(text.toStdString());
  QVERIFY2(parsed.ok(), parsed.status().ToString().c_str());
  QCOMPARE(QString::fromStdString(parsed->ToString()), canonical);
  QCOMPARE(parsed->IsFullySpecified(), fully_specified);
  QCOMPARE(parsed->IsEmpty(), canonical.isEmpty());
  // Printing is a fixed point: the canonical form parses back to the same spec.
  auto again = DeviceName::Parse(parsed->ToString());
  QVERIFY(again.ok());
  QVERIFY(*again == *parsed);
}

void TestDeviceName::rejectsMalformed_data() {
  // clang-format off
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("expected");  // substring of the message

  QTest::newRow("job starts with digit") << "/job:0/task:0" << "job name '0'";
  QTest::newRow("job with dash") << "/job:my-job" << "job name 'my-job'";
  QTest::newRow("job with semicolon") << "/job:a;b" << "job name 'a;b'";
  QTest::newRow("empty job") << "/job:/task:0" << "job name ''";
  QTest::newRow("task not numeric") << "/job:ps/task:x" << "task 'x'";
  QTest::newRow("task negative") << "/job:ps/task:-1" << "task '-1'";
  QTest::newRow("task empty") << "/job:ps/task:" << "task ''";
  QTest::newRow("replica not numeric") << "/job:ps/replica:one" << "replica 'one'";
  QTest::newRow("id not numeric") << "/device:GPU:a" << "device id 'a'";
  QTest::newRow("legacy id not numeric") << "/gpu:zero" << "device id 'zero'";
  QTest::newRow("legacy without id") << "/gpu" << "'gpu'";
  QTest::newRow("unknown key") << "/job:ps/machine:3" << "unknown field 'machine'";
  QTest::newRow("unknown key tpu") << "/tpu:0" << "unknown field 'tpu'";
  QTest::newRow("empty component in the middle") << "/job:a//task:0" << "empty component 2";
  QTest::newRow("double trailing slash") << "/job:a//" << "empty component";
  QTest::newRow("leading double slash") << "//job:a" << "empty component 1";
  QTest::newRow("duplicate job") << "/job:a/task:0/job:b" << "duplicate job in 'job:b'";
  QTest::newRow("duplicate task") << "/task:0/task:0" << "duplicate task";
  QTest::newRow("duplicate device") << "/device:CPU:0/gpu:0" << "duplicate device type in 'gpu:0'";
  QTest::newRow("no key") << "/worker" << "component 'worker' is not of the form key:value";
  QTest::newRow("bad type") << "/device:G-PU:0" << "device type 'G-PU'";
  QTest::newRow("relative path") << "job:ps/task:0" << "must start with '/'";
  QTest::newRow("bare word") << "cpu" << "expected '/job:...'";
  QTest::newRow("id overflow") << "/device:CPU:99999999999" << "device id '99999999999'";
  // clang-format on
}

void TestDeviceName::rejectsMalformed() {
  QFETCH(QString, text);
  QFETCH(QString, expected);
  auto parsed = DeviceName::Parse(text.toStdString());
  QVERIFY(!parsed.ok());
  QCOMPARE(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  const QString message = QString::fromStdString(std::string(parsed.status().message()));
  QVERIFY2(message.contains(expected), qPrintable(message));
  // Every message quotes the whole text so a user sees which spec was wrong.
  QVERIFY2(message.contains("'" + text + "'"), qPrintable(message));
}

void TestDeviceName::parseFull_data() {
  // clang-format off
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("error");  // empty: accepted

  QTest::newRow("full") << "/job:ps/replica:0/task:1/device:CPU:0" << "";
  QTest::newRow("missing replica") << "/job:ps/task:1/device:CPU:0" << "missing replica";
  QTest::newRow("missing id") << "/job:ps/replica:0/task:1/device:GPU:*" << "missing device id";
  QTest::newRow("legacy short") << "/cpu:0" << "missing job, replica, task";
  QTest::newRow("malformed") << "/job:1" << "job name '1'";
  // clang-format on
}

void TestDeviceName::parseFull() {
  QFETCH(QString, text);
  QFETCH(QString, error);
  auto parsed = DeviceName::ParseFull(text.toStdString());
  if (error.isEmpty()) {
    QVERIFY2(parsed.ok(), parsed.status().ToString().c_str());
    QCOMPARE(QString::fromStdString(parsed->ToString()), text);
    return;
  }
  QVERIFY(!parsed.ok());
  QVERIFY2(QString::fromStdString(parsed.status().ToString()).contains(error), parsed.status().ToString().c_str());
}

void TestDeviceName::mergeFillsMissingFields_data() {
  // clang-format off
  QTest::addColumn<QString>("base");
  QTest::addColumn<QString>("other");
  QTest::addColumn<QString>("merged");

  QTest::newRow("job + device") << "/job:worker" << "/device:GPU:0" << "/job:worker/device:GPU:0";
  QTest::newRow("device + job") << "/device:GPU:0" << "/job:worker" << "/job:worker/device:GPU:0";
  QTest::newRow("same job") << "/job:ps/task:1" << "/job:ps" << "/job:ps/task:1";
  QTest::newRow("empty other") << "/job:ps/task:1" << "" << "/job:ps/task:1";
  QTest::newRow("empty base") << "" << "/job:ps/task:1/cpu:0" << "/job:ps/task:1/device:CPU:0";
  QTest::newRow("type then id") << "/device:GPU:*" << "/device:GPU:3" << "/device:GPU:3";
  QTest::newRow("partial into full")
      << "/job:worker/replica:0/task:0/device:CPU:0" << "/job:worker/task:0"
      << "/job:worker/replica:0/task:0/device:CPU:0";
  // clang-format on
}

void TestDeviceName::mergeFillsMissingFields() {
  QFETCH(QString, base);
  QFETCH(QString, other);
  QFETCH(QString, merged);
  auto a = DeviceName::Parse(base.toStdString());
  auto b = DeviceName::Parse(other.toStdString());
  QVERIFY(a.ok() && b.ok());
  QVERIFY(a->MergeFrom(*b).ok());
  QCOMPARE(QString::fromStdString(a->ToString()), merged);
}

void TestDeviceName::mergeConflicts_data() {
  // clang-format off
  QTest::addColumn<QString>("base");
  QTest::addColumn<QString>("other");
  QTest::addColumn<QString>("message");

  QTest::newRow("jobs") << "/job:ps" << "/job:worker"
                        << "Cannot merge devices with incompatible jobs: '/job:ps' and '/job:worker'";
  QTest::newRow("replicas") << "/job:ps/replica:0" << "/replica:1"
                            << "Cannot merge devices with incompatible replicas: '/job:ps/replica:0' and '/replica:1'";
  QTest::newRow("tasks") << "/job:ps/task:0" << "/job:ps/task:1"
                         << "Cannot merge devices with incompatible tasks: '/job:ps/task:0' and '/job:ps/task:1'";
  QTest::newRow("types") << "/device:CPU:0" << "/device:GPU:0"
                         << "Cannot merge devices with incompatible types: '/device:CPU:0' and '/device:GPU:0'";
  QTest::newRow("ids") << "/device:GPU:0" << "/gpu:1"
                       << "Cannot merge devices with incompatible ids: '/device:GPU:0' and '/device:GPU:1'";
  // clang-format on
}

void TestDeviceName::mergeConflicts() {
  QFETCH(QString, base);
  QFETCH(QString, other);
  QFETCH(QString, message);
  auto a = DeviceName::Parse(base.toStdString());
  auto b = DeviceName::Parse(other.toStdString());
  QVERIFY(a.ok() && b.ok());
  clab::Status status = a->MergeFrom(*b);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QCOMPARE(QString::fromStdString(std::string(status.message())), message);
}

void TestDeviceName::softPlacementIgnoresTypeAndIdClashes() {
  auto a = *DeviceName::Parse("/job:worker/device:GPU:0");
  QVERIFY(a.MergeFrom(*DeviceName::Parse("/task:2/device:CPU:0"), /*allow_soft_placement=*/true).ok());
  QCOMPARE(a.ToString(), std::string("/job:worker/task:2/device:GPU:0"));

  auto b = *DeviceName::Parse("/device:GPU:0");
  QVERIFY(b.MergeFrom(*DeviceName::Parse("/gpu:1"), true).ok());
  QCOMPARE(b.ToString(), std::string("/device:GPU:0"));

  // Jobs still conflict under soft placement: they name different machines.
  auto c = *DeviceName::Parse("/job:ps");
  QVERIFY(!c.MergeFrom(*DeviceName::Parse("/job:worker"), true).ok());
}

void TestDeviceName::overrideLetsOtherWin() {
  auto a = *DeviceName::Parse("/job:worker/task:0/device:CPU:0");
  a.OverrideWith(*DeviceName::Parse("/job:ps/device:GPU:1"));
  QCOMPARE(a.ToString(), std::string("/job:ps/task:0/device:GPU:1"));
  a.OverrideWith(DeviceName{});
  QCOMPARE(a.ToString(), std::string("/job:ps/task:0/device:GPU:1"));
}

void TestDeviceName::matches_data() {
  // clang-format off
  QTest::addColumn<QString>("spec");
  QTest::addColumn<QString>("device");
  QTest::addColumn<bool>("matches");

  const QString cpu = "/job:worker/replica:0/task:0/device:CPU:0";
  const QString gpu = "/job:worker/replica:0/task:0/device:GPU:1";
  QTest::newRow("empty matches all") << "" << cpu << true;
  QTest::newRow("job") << "/job:worker" << cpu << true;
  QTest::newRow("other job") << "/job:ps" << cpu << false;
  QTest::newRow("task") << "/job:worker/task:0" << gpu << true;
  QTest::newRow("other task") << "/job:worker/task:1" << gpu << false;
  QTest::newRow("type any id") << "/device:GPU:*" << gpu << true;
  QTest::newRow("type mismatch") << "/gpu:*" << cpu << false;
  QTest::newRow("id") << "/gpu:1" << gpu << true;
  QTest::newRow("id mismatch") << "/gpu:0" << gpu << false;
  QTest::newRow("full equal") << cpu << cpu << true;
  // clang-format on
}

void TestDeviceName::matches() {
  QFETCH(QString, spec);
  QFETCH(QString, device);
  QFETCH(bool, matches);
  auto s = DeviceName::Parse(spec.toStdString());
  auto d = DeviceName::ParseFull(device.toStdString());
  QVERIFY(s.ok() && d.ok());
  QCOMPARE(s->Matches(*d), matches);
}

void TestDeviceName::sameTaskAndHelpers() {
  QCOMPARE(DeviceName::TaskPrefix("ps", 1), std::string("/job:ps/replica:0/task:1"));
  QCOMPARE(DeviceName::Full("worker", 0, 2, "GPU", 1), std::string("/job:worker/replica:0/task:2/device:GPU:1"));
  auto cpu = *DeviceName::ParseFull("/job:worker/replica:0/task:2/device:CPU:0");
  auto gpu = *DeviceName::ParseFull(DeviceName::Full("worker", 0, 2, "GPU", 1));
  auto other = *DeviceName::ParseFull("/job:worker/replica:0/task:3/device:CPU:0");
  QVERIFY(cpu.InSameTask(gpu));
  QVERIFY(!cpu.InSameTask(other));
  QVERIFY(cpu != gpu);
}

QTEST_APPLESS_MAIN(TestDeviceName)
#include "tst_device_name.moc"
