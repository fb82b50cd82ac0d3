// IDX files: every value type round-trips, plain and gzip-compressed; files written here
// byte by byte from the format's description read back as declared; damaged files (too
// short, wrong magic, unknown type, truncated header or data, extra bytes, missing) give
// errors that name the file and what is wrong.
#include "StatusText.h"

#include "clab/io/IdxFile.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace clab;
using namespace clab::testing;

Q_DECLARE_METATYPE(clab::IdxType)

namespace {

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string Message(const Status& status) { return std::string(status.message()); }

}  // namespace

class IdxFileTest : public QObject {
  Q_OBJECT

 private slots:
  void roundTrip_data() {
    // clang-format off
    QTest::addColumn<IdxType>("type");
    QTest::addColumn<QString>("name");
    for (const auto& [type, label] : std::vector<std::pair<IdxType, const char*>>{{IdxType::kUint8, "u8"},
                                                                               {IdxType::kInt8, "i8"},
                                                                               {IdxType::kInt16, "i16"},
                                                                               {IdxType::kInt32, "i32"},
                                                                               {IdxType::kFloat32, "f32"},
                                                                               {IdxType::kFloat64, "f64"}}) {
      QTest::newRow((std::string(label) + " plain").c_str()) << type << "a.idx";
      QTest::newRow((std::string(label) + " gzip").c_str()) << type << "a.idx.gz";
    }
    // clang-format on
  }
  void roundTrip() {
    QFETCH(IdxType, type);
    QFETCH(QString, name);
    QTemporaryDir dir;
    const std::string path = dir.filePath(name).toStdString();
    IdxArray array(type, {3, 2, 4});
    for (int64_t i = 0; i < array.NumElements(); ++i) {
      double v = static_cast<double>(i * 7 % 23);
      if (type != IdxType::kUint8) v -= 11;  // negatives for signed types
      if (type == IdxType::kInt16 || type == IdxType::kInt32) v *= 1000;
      if (type == IdxType::kFloat32 || type == IdxType::kFloat64) v += 0.25;
      array.Set(i, v);
    }
    QVERIFY2(WriteIdxFile(path, array).ok(), "write failed");
    auto header = ReadIdxHeader(path);
    QVERIFY2(header.ok(), StatusText(header.status()));
    QCOMPARE(header->type, type);
    QCOMPARE(header->dims, (std::vector<int64_t>{3, 2, 4}));
    auto read = ReadIdxFile(path);
    QVERIFY2(read.ok(), StatusText(read.status()));
    QCOMPARE(read->type(), type);
    QCOMPARE(read->dims(), array.dims());
    QCOMPARE(read->ElementsPerRow(), int64_t(8));
    for (int64_t i = 0; i < array.NumElements(); ++i) QCOMPARE(read->Value(i), array.Value(i));
    // A compressed file is smaller than its data would be, plain is exactly header + data.
    const auto size = std::filesystem::file_size(path);
    if (name.endsWith(".gz")) {
      QVERIFY(size != 4 + 3 * 4 + array.bytes().size());
    } else {
      QCOMPARE(size, 4 + 3 * 4 + array.bytes().size());
    }
  }

  // Big-endian on disk, whatever the host: an i16 and an f32 file made byte by byte.
  void readsBigEndianBytesWrittenByHand() {
    QTemporaryDir dir;
    const std::string shorts = dir.filePath("s.idx").toStdString();
    WriteBytes(shorts, std::string("\x00\x00\x0B\x01\x00\x00\x00\x02\x01\x02\xFF\xFE", 12));
    auto s = ReadIdxFile(shorts);
    QVERIFY2(s.ok(), StatusText(s.status()));
    QCOMPARE(s->Value(0), 258.0);
    QCOMPARE(s->Value(1), -2.0);
    const std::string floats = dir.filePath("f.idx").toStdString();
    WriteBytes(floats, std::string("\x00\x00\x0D\x02\x00\x00\x00\x01\x00\x00\x00\x01\x3F\xC0\x00\x00", 16));
    auto f = ReadIdxFile(floats);
    QVERIFY2(f.ok(), StatusText(f.status()));
    QCOMPARE(f->dims(), (std::vector<int64_t>{1, 1}));
    QCOMPARE(f->Value(0), 1.5);
  }

  void errorsNameTheFileAndTheProblem_data() {
    // clang-format off
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << QByteArray() << "is not an IDX file: it has only 0 bytes";
    QTest::newRow("wrong magic") << QByteArray("\x1F\x8C\x08\x01\x00\x00\x00\x01\x05", 9)
                                 << "is not an IDX file: it starts with 0x1F8C0801";
    QTest::newRow("unknown type") << QByteArray("\x00\x00\x07\x01\x00\x00\x00\x01\x05", 9)
                                  << "unknown IDX type code 0x07";
    QTest::newRow("rank 0") << QByteArray("\x00\x00\x08\x00", 4) << "declares rank 0";
    QTest::newRow("short header") << QByteArray("\x00\x00\x08\x03\x00\x00\x03\xE8\x00\x00", 10)
                                  << "is truncated: its header declares rank 3, which needs 16 header bytes, file has 10";
    QByteArray truncated("\x00\x00\x08\x03\x00\x00\x03\xE8\x00\x00\x00\x1C\x00\x00\x00\x1C", 16);
    truncated.append(QByteArray(4123, '\x01'));
    QTest::newRow("truncated data") << truncated
                                    << "is truncated: it expects 1000*28*28 u8 values (784000 bytes of data), file has 4123";
    QTest::newRow("extra bytes") << QByteArray("\x00\x00\x0C\x01\x00\x00\x00\x01\x00\x00\x00\x05\x09", 13)
                                 << "has 1 bytes after the 4 bytes of data its header declares (1 i32 values)";
    // clang-format on
  }
  void errorsNameTheFileAndTheProblem() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.idx").toStdString();
    WriteBytes(path, bytes.toStdString());
    auto read = ReadIdxFile(path);
    QVERIFY(!read.ok());
    const std::string message = Message(read.status());
    QVERIFY2(message.find(path) != std::string::npos, message.c_str());
    QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
  }

  // A compressed file whose data stops early reads as truncated, as a plain one does.
  void truncatedGzipIsNamed() {
    QTemporaryDir dir;
    const std::string full = dir.filePath("full.idx.gz").toStdString();
    IdxArray array(IdxType::kUint8, {100, 10});
    QVERIFY(WriteIdxFile(full, array).ok());
    std::ifstream in(full, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string cut = dir.filePath("cut.idx.gz").toStdString();
    WriteBytes(cut, bytes.substr(0, bytes.size() / 2));
    auto read = ReadIdxFile(cut);
    QVERIFY(!read.ok());
    QVERIFY2(Message(read.status()).find(cut) != std::string::npos, StatusText(read.status()));
  }

  void missingFileIsNotFound() {
    auto read = ReadIdxFile("/nonexistent/dir/train-images.idx3-ubyte");
    QCOMPARE(read.status().code(), absl::StatusCode::kNotFound);
    QVERIFY2(Message(read.status()).find("/nonexistent/dir/train-images.idx3-ubyte") != std::string::npos,
             StatusText(read.status()));
    QCOMPARE(ReadIdxHeader("/nonexistent/x.idx").status().code(), absl::StatusCode::kNotFound);
  }

  void recognisesIdxNames() {
    QVERIFY(IsIdxPath("a.idx"));
    QVERIFY(IsIdxPath("a.idx.gz"));
    QVERIFY(IsIdxPath("train-images-idx3-ubyte"));
    QVERIFY(IsIdxPath("t10k-labels.idx1-ubyte.gz"));
    QVERIFY(!IsIdxPath("iris.csv"));
    QVERIFY(!IsIdxPath("digits.csv.gz"));
  }
};

QTEST_GUILESS_MAIN(IdxFileTest)
#include "tst_idx_file.moc"
