// Checkpoint bundles: round trip, the sorted-table layout, and corruption detection.
#include "clab/io/Crc32c.h"
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

  void entryWhoseSizeWrapsIsDamaged() {
    // A float entry of shape [2^62] whose byte count (2^64) wraps to 0: with size 0 and the
    // checksum of nothing it once passed every check and was listed "ok".
    QTemporaryDir dir;
    const std::string prefix = dir.filePath("model.ckpt-3").toStdString();
    QVERIFY(WriteTensorBundle(prefix, {{"w", Tensor::Vector<float>({1})}}).ok());
    SortedTableBuilder table;
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(1);
    QVERIFY(table.Add("", header.SerializeAsString()).ok());
    tensorflow::BundleEntryProto entry;
    entry.set_dtype(DT_FLOAT);
    entry.mutable_shape()->add_dim()->set_size(int64_t{1} << 62);
    entry.set_size(0);
    entry.set_crc32c(crc32c::Mask(crc32c::Value("", 0)));
    QVERIFY(table.Add("w", entry.SerializeAsString()).ok());
    {
      std::ofstream index(prefix + ".index", std::ios::binary | std::ios::trunc);
      index << table.Finish();
    }
    auto reader = TensorBundleReader::Open(prefix);
    QVERIFY(absl::IsDataLoss(reader.status()));
    const std::string message(reader.status().message());
    QVERIFY2(message.find("'w' is damaged") != std::string::npos, message.c_str());
    QVERIFY2(message.find("[4611686018427387904]") != std::string::npos, message.c_str());
  }

  void indexOffsetsPastTheEndAreDataLoss_data() {
    QTest::addColumn<QByteArray>("handles");
    // Varint block handles (offset, size) written over the footer, in hex. Offsets or sizes
    // near 2^64 make offset + size wrap to a small number.
    QTest::newRow("offset near 2^64") << QByteArray::fromHex("f0ffffffffffffffff0120f0ffffffffffffffff0120");
    QTest::newRow("size near 2^64") << QByteArray::fromHex("00f0ffffffffffffffff0100f0ffffffffffffffff01");
    QTest::newRow("offset past the end") << QByteArray::fromHex("8080041080800410");
  }
  void indexOffsetsPastTheEndAreDataLoss() {
    QFETCH(QByteArray, handles);
    std::string bytes;
    {
      SortedTableBuilder table;
      QVERIFY(table.Add("a", "1").ok());
      bytes = table.Finish();
    }
    bytes.replace(bytes.size() - 48, static_cast<size_t>(handles.size()), handles.constData(),
                  static_cast<size_t>(handles.size()));
    std::map<std::string, std::string> entries;
    const Status read = ReadSortedTable(bytes, "model.ckpt-9.index", &entries);
    QVERIFY(absl::IsDataLoss(read));
    QVERIFY2(std::string(read.message()).find("runs past the end") != std::string::npos, read.ToString().c_str());
  }
};

QTEST_APPLESS_MAIN(TensorBundleTest)
#include "tst_tensor_bundle.moc"
