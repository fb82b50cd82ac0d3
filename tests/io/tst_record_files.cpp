// CRC32C, TFRecord framing and event files. The event file is checked by a reader written
// here from the format's description (bitwise CRC, manual framing), independent of the
// engine's reader.
#include "clab/io/Crc32c.h"
#include "clab/io/EventFileWriter.h"
#include "clab/io/RecordFile.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;

namespace {

uint32_t BitwiseCrc32c(const std::string& data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? 0x82f63b78u : 0);
  }
  return ~crc;
}

uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

uint64_t LittleEndian(const std::string& bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<size_t>(i)]);
  return v;
}

// Splits a TFRecord file into records, verifying both checksums of each.
std::vector<std::string> IndependentRead(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> records;
  size_t at = 0;
  while (at < bytes.size()) {
    if (at + 12 > bytes.size()) throw std::runtime_error("short header");
    const uint64_t length = LittleEndian(bytes, at, 8);
    if (MaskCrc(BitwiseCrc32c(bytes.substr(at, 8))) != LittleEndian(bytes, at + 8, 4))
      throw std::runtime_error("bad length crc");
    std::string data = bytes.substr(at + 12, length);
    if (MaskCrc(BitwiseCrc32c(data)) != LittleEndian(bytes, at + 12 + length, 4))
      throw std::runtime_error("bad data crc");
    records.push_back(data);
    at += 12 + length + 4;
  }
  return records;
}

}  // namespace

class RecordFilesTest : public QObject {
  Q_OBJECT

 private slots:
  void crcKnownValues_data() {
    // clang-format off
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<uint>("expected");
    QTest::newRow("check string") << QByteArray("123456789") << 0xe3069283u;
    QTest::newRow("32 zeros") << QByteArray(32, '\0') << 0x8a9136aau;
    QTest::newRow("32 0xff") << QByteArray(32, '\xff') << 0x62a8ab43u;
    QTest::newRow("empty") << QByteArray() << 0u;
    // clang-format on
  }
  void crcKnownValues() {
    QFETCH(QByteArray, data);
    QFETCH(uint, expected);
    QCOMPARE(crc32c::Value(data.constData(), static_cast<size_t>(data.size())), uint32_t(expected));
  }

  void crcMatchesBitwiseAtEveryLengthAndSplit() {
    std::string data;
    for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 37 + 11));
    for (size_t n = 0; n < data.size(); n += 7) {
      const std::string prefix = data.substr(0, n);
      QCOMPARE(crc32c::Value(prefix), BitwiseCrc32c(prefix));
      const size_t half = n / 3;
      QCOMPARE(crc32c::Extend(crc32c::Value(prefix.data(), half), prefix.data() + half, n - half),
               BitwiseCrc32c(prefix));
    }
    QCOMPARE(crc32c::Unmask(crc32c::Mask(0x12345678u)), 0x12345678u);
  }

  void recordsRoundTripAndTruncationIsDetected() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("r.tfrecord").toStdString();
    RecordWriter w;
    QVERIFY(w.Open(path).ok());
    QVERIFY(w.Write("first").ok());
    QVERIFY(w.Write(std::string(100000, 'x')).ok());
    QVERIFY(w.Write("").ok());
    QVERIFY(w.Close().ok());
    QCOMPARE(IndependentRead(path).size(), size_t(3));

    RecordReader r;
    QVERIFY(r.Open(path).ok());
    std::string rec;
    QVERIFY(r.Read(&rec).ok());
    QCOMPARE(rec, std::string("first"));
    QVERIFY(r.Read(&rec).ok());
    QCOMPARE(rec.size(), size_t(100000));
    QVERIFY(r.Read(&rec).ok());
    QVERIFY(rec.empty());
    QVERIFY(absl::IsOutOfRange(r.Read(&rec)));

    // Cut the file in the middle of the big record.
    std::filesystem::resize_file(path, 5000);
    RecordReader cut;
    QVERIFY(cut.Open(path).ok());
    QVERIFY(cut.Read(&rec).ok());
    Status s = cut.Read(&rec);
    QVERIFY(absl::IsDataLoss(s));
    QVERIFY(std::string(s.message()).find("r.tfrecord") != std::string::npos);

    // Flip one byte of a record's data.
    RecordWriter w2;
    QVERIFY(w2.Open(path).ok());
    QVERIFY(w2.Write("payload").ok());
    QVERIFY(w2.Close().ok());
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(13);
      f.put('X');
    }
    RecordReader flipped;
    QVERIFY(flipped.Open(path).ok());
    s = flipped.Read(&rec);
    QVERIFY(absl::IsDataLoss(s));
    QVERIFY(std::string(s.message()).find("Checksum mismatch") != std::string::npos);
  }

  void eventFileReadByIndependentReader() {
    QTemporaryDir dir;
    auto writer = EventFileWriter::Create(dir.path().toStdString());
    QVERIFY(writer.ok());
    const std::string path = (*writer)->path();
    QVERIFY(QFileInfo(QString::fromStdString(path)).fileName().startsWith("events.out.tfevents."));
    QVERIFY((*writer)->WriteScalars(10, {{"loss", 0.5f}, {"global_step/sec", 12.25f}}).ok());
    QVERIFY((*writer)->WriteSessionLog(10, tensorflow::SessionLog::CHECKPOINT, "/tmp/model.ckpt-10").ok());
    QVERIFY((*writer)->Close().ok());

    const auto records = IndependentRead(path);
    QCOMPARE(records.size(), size_t(3));
    tensorflow::Event first, scalars, log;
    QVERIFY(first.ParseFromString(records[0]));
    QCOMPARE(first.file_version(), std::string("brain.Event:2"));
    QCOMPARE(first.step(), int64_t(0));
    QVERIFY(scalars.ParseFromString(records[1]));
    QCOMPARE(scalars.step(), int64_t(10));
    QCOMPARE(scalars.summary().value_size(), 2);
    QCOMPARE(scalars.summary().value(1).tag(), std::string("loss"));
    QCOMPARE(scalars.summary().value(1).simple_value(), 0.5f);
    QVERIFY(log.ParseFromString(records[2]));
    QCOMPARE(log.session_log().checkpoint_path(), std::string("/tmp/model.ckpt-10"));

    std::vector<tensorflow::Event> events;
    QVERIFY(ReadEventFile(path, &events).ok());
    QCOMPARE(events.size(), size_t(3));
  }
};

QTEST_APPLESS_MAIN(RecordFilesTest)
#include "tst_record_files.moc"
