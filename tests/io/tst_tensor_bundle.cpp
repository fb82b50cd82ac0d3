// Checkpoint bundles: round trip, the sorted-table layout, and corruption detection.
#include "clab/io/SortedTable.h"
#include "clab/io/TensorBundle.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;

class TensorBundleTest : public QObject {
  Q_OBJECT

 private slots:
  void sortedTableRoundTrip_data() {
    // clang-format off
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("blockSize");
    QTest::newRow("empty") << 0 << 4096;
    QTest::newRow("one block") << 40 << (1 << 20);
    QTest::newRow("many blocks") << 3000 << 512;
    // clang-format on
  }
  void sortedTableRoundTrip() {
    QFETCH(int, count);
    QFETCH(int, blockSize);
    SortedTableBuilder builder(static_cast<size_t>(blockSize));
    std::map<std::string, std::string> expected;
    for (int i = 0; i < count; ++i) {
      char key[32];
      std::snprintf(key, sizeof(key), "layer%04d/kernel", i);
      expected[key] = std::string(static_cast<size_t>(i % 50), static_cast<char>('a' + i % 26));
    }
    for (const auto& [k, v] : expected) QVERIFY(builder.Add(k, v).ok());
    if (count > 0) QVERIFY(!builder.Add("a", "out of order").ok());
    const std::string bytes = builder.Finish();
    std::map<std::string, std::string> read;
    QVERIFY(ReadSortedTable(bytes, "t", &read).ok());
    QCOMPARE(read, expected);
  }

  void bundleRoundTrip() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("model.ckpt-7").toStdString();
    std::map<std::string, Tensor> tensors = {
        {"w", Tensor::Matrix<float>({{2}, {2}, {2}, {2}})},
        {"global_step", Tensor::Scalar<int64_t>(7)},
        {"layer/bias", Tensor::Vector<double>({0.5, -1})},
        {"empty", Tensor(DT_FLOAT, TensorShape{0, 4})},
    };
    QVERIFY(WriteTensorBundle(prefix, tensors).ok());
    QVERIFY(std::filesystem::exists(prefix + ".index"));
    QVERIFY(std::filesystem::exists(prefix + ".data-00000-of-00001"));
    for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString()))
      QVERIFY2(e.path().string().find("tempstate") == std::string::npos, "temporary file left behind");

    auto reader = TensorBundleReader::Open(prefix);
    QVERIFY2(reader.ok(), reader.status().ToString().c_str());
    QCOMPARE(reader->List().size(), size_t(4));
    QCOMPARE(reader->List()[0].name, std::string("empty"));
    for (const auto& [name, t] : tensors) {
      auto back = reader->Read(name);
      QVERIFY2(back.ok(), back.status().ToString().c_str());
      QVERIFY(back->Equals(t));
    }
    auto missing = reader->Read("nope");
    QVERIFY(absl::IsNotFound(missing.status()));
    QVERIFY(std::string(missing.status().message()).find("Key nope not found") != std::string::npos);
  }

  void corruptionIsDataLossNamingTheFile() {
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("model.ckpt-1").toStdString();
    QVERIFY(WriteTensorBundle(prefix, {{"w", Tensor::Vector<float>({1, 2, 3, 4})}}).ok());

    // A flipped data byte: the entry's checksum catches it.
    {
      std::fstream f(prefix + ".data-00000-of-00001", std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(2);
      f.put('\x7f');
    }
    auto reader = TensorBundleReader::Open(prefix);
    QVERIFY(reader.ok());
    auto w = reader->Read("w");
    QVERIFY(absl::IsDataLoss(w.status()));
    QVERIFY(std::string(w.status().message()).find("data-00000-of-00001") != std::string::npos);

    // A truncated index: the footer check catches it.
    std::filesystem::resize_file(prefix + ".index", 20);
    auto truncated = TensorBundleReader::Open(prefix);
    QVERIFY(absl::IsDataLoss(truncated.status()));
    QVERIFY(std::string(truncated.status().message()).find(".index") != std::string::npos);

    QVERIFY(absl::IsNotFound(TensorBundleReader::Open(dir.filePath("none").toStdString()).status()));
  }
};

QTEST_APPLESS_MAIN(TensorBundleTest)
#include "tst_tensor_bundle.moc"
