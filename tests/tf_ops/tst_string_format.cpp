// AsString against values worked out from TensorFlow's documented formatting (printf with
// the attrs' fill, width and precision; f, e or g for floats): defaults, precision, width
// with space and zero fill, scientific, shortest, int64, bool, and the attr errors.
#include "KernelTestUtil.h"
#include "clab/graph/AttrValues.h"

#include <QtTest/QtTest>

using namespace clab;
using namespace clab::testing;

Q_DECLARE_METATYPE(clab::Tensor)

namespace {

using Attrs = std::map<std::string, tensorflow::AttrValue>;

StatusOr<std::vector<Tensor>> AsString(const Tensor& input, Attrs attrs) {
  attrs["T"] = AttrOf(input.dtype());
  return RunKernel(MakeNode("s", "AsString", {"x"}, attrs), {input});
}

}  // namespace

class StringFormatTest : public QObject {
  Q_OBJECT

 private slots:
  void formats_data() {
    QTest::addColumn<Tensor>("input");
    QTest::addColumn<QString>("attrs");  // "precision=2 width=5 fill=0 scientific shortest"
    QTest::addColumn<QStringList>("expected");
    const Tensor floats = Tensor::Vector<float>({3.1415926f, -2.5f, 1e6f});
    QTest::newRow("float default") << floats << "" << QStringList{"3.141593", "-2.500000", "1000000.000000"};
    QTest::newRow("float precision 2") << floats << "precision=2" << QStringList{"3.14", "-2.50", "1000000.00"};
    QTest::newRow("float scientific") << floats << "scientific precision=1"
                                      << QStringList{"3.1e+00", "-2.5e+00", "1.0e+06"};
    QTest::newRow("float shortest") << floats << "shortest" << QStringList{"3.14159", "-2.5", "1e+06"};
    const Tensor ints = Tensor::Vector<int32_t>({3, -42, 12345});
    QTest::newRow("int default") << ints << "" << QStringList{"3", "-42", "12345"};
    QTest::newRow("int width 4") << ints << "width=4" << QStringList{"   3", " -42", "12345"};
    QTest::newRow("int width 4 fill 0") << ints << "width=4 fill=0" << QStringList{"0003", "-042", "12345"};
    QTest::newRow("int64") << Tensor::Vector<int64_t>({int64_t{1} << 40}) << "" << QStringList{"1099511627776"};
    QTest::newRow("bool") << Tensor::Vector<bool>({true, false}) << "" << QStringList{"true", "false"};
    // Longer than the formatter's first buffer (512 bytes): the whole text, not a cut one.
    QTest::newRow("width 700") << Tensor::Vector<int32_t>({7}) << "width=700" << QStringList{QString(699, ' ') + "7"};
    QTest::newRow("1e300 with 400 decimals")
        << Tensor::Vector<double>({1e300}) << "precision=400" << QStringList{QString::asprintf("%.400f", 1e300)};
  }
  void formats() {
    QFETCH(Tensor, input);
    QFETCH(QString, attrs);
    QFETCH(QStringList, expected);
    Attrs spec;
    for (const QString& item : attrs.split(' ', Qt::SkipEmptyParts)) {
      const QStringList kv = item.split('=');
      if (kv.size() == 1) spec[kv[0].toStdString()] = AttrOf(true);
      else if (kv[0] == "fill") spec["fill"] = AttrOf(kv[1].toStdString());
      else spec[kv[0].toStdString()] = AttrOf(static_cast<int64_t>(kv[1].toLongLong()));
    }
    auto out = AsString(input, spec);
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    QCOMPARE((*out)[0].shape(), input.shape());
    for (int i = 0; i < expected.size(); ++i)
      QCOMPARE(QString::fromStdString((*out)[0].data<std::string>()[i]), expected[i]);
  }

  void badAttrsAreNamed() {
    auto precision_int = AsString(Tensor::Vector<int32_t>({1}), {{"precision", AttrOf(int64_t{2})}});
    QVERIFY(!precision_int.ok());
    QVERIFY(std::string(precision_int.status().message()).find("precision not supported for datatype int32") !=
            std::string::npos);
    auto both = AsString(Tensor::Vector<float>({1}), {{"scientific", AttrOf(true)}, {"shortest", AttrOf(true)}});
    QVERIFY(!both.ok());
    auto fill = AsString(Tensor::Vector<float>({1}), {{"fill", AttrOf("x")}});
    QVERIFY(!fill.ok());
    QVERIFY(std::string(fill.status().message()).find("fill argument not supported") != std::string::npos);
    // printf makes room for every digit asked for: a precision of 2^33 asked it for 8 GiB.
    auto huge = AsString(Tensor::Vector<double>({1}), {{"precision", AttrOf(int64_t{1} << 33)}});
    QVERIFY(!huge.ok());
    QVERIFY2(std::string(huge.status().message()).find("precision 8589934592 is above the 1000") != std::string::npos,
             std::string(huge.status().message()).c_str());
    auto wide = AsString(Tensor::Vector<int64_t>({1}), {{"width", AttrOf(int64_t{1001})}});
    QVERIFY(!wide.ok());
    QVERIFY(std::string(wide.status().message()).find("width 1001") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(StringFormatTest)
#include "tst_string_format.moc"
