// Tensors: construction, sharing, proto round trips, formatting and shapes.
#include "clab/core/Tensor.h"

#include <google/protobuf/text_format.h>
#include <QtTest>

using namespace clab;

Q_DECLARE_METATYPE(clab::DataType)

class TensorTest : public QObject {
  Q_OBJECT

 private slots:
  // No entries but a trillion rows: the text stops after max_entries rows instead of
  // looping over every one of them.
  void debugStringOfManyEmptyRowsStops() {
    Tensor t(DT_FLOAT, TensorShape({1000000000000, 0}));
    QCOMPARE(t.NumElements(), int64_t{0});
    const std::string text = t.DebugString(3);
    QVERIFY2(text.size() < 100, text.c_str());
    QVERIFY2(text.find("...") != std::string::npos, text.c_str());
  }

  void zeroInitialisedAndAligned_data() {
    // clang-format off
    QTest::addColumn<DataType>("dtype");
    QTest::newRow("float") << DT_FLOAT;
    QTest::newRow("double") << DT_DOUBLE;
    QTest::newRow("int32") << DT_INT32;
    QTest::newRow("int64") << DT_INT64;
    QTest::newRow("bool") << DT_BOOL;
    QTest::newRow("uint8") << DT_UINT8;
    // clang-format on
  }
  void zeroInitialisedAndAligned() {
    QFETCH(DataType, dtype);
    Tensor t(dtype, TensorShape{3, 5});
    QCOMPARE(t.NumElements(), 15);
    QCOMPARE(t.TotalBytes(), 15 * DataTypeSize(dtype));
    QCOMPARE(reinterpret_cast<uintptr_t>(t.raw_data()) % Allocator::kAlignment, uintptr_t(0));
    const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) QCOMPARE(int(bytes[i]), 0);
  }

  void copiesShareBuffers() {
    Tensor a = Tensor::Vector<float>({1, 2, 3});
    Tensor b = a;
    QVERIFY(a.SharesBufferWith(b));
    QCOMPARE(a.BufferUseCount(), 2L);
    Tensor c = a.DeepCopy();
    QVERIFY(!c.SharesBufferWith(a));
    c.data<float>()[0] = 9;
    QCOMPARE(a.data<float>()[0], 1.0f);
    QVERIFY(a.Equals(b));
    QVERIFY(!a.Equals(c));
  }

  void reshapeKeepsBuffer() {
    Tensor a = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape{2, 3});
    auto r = a.Reshaped(TensorShape{3, 2});
    QVERIFY(r.ok());
    QVERIFY(r->SharesBufferWith(a));
    auto bad = a.Reshaped(TensorShape{4, 2});
    QVERIFY(!bad.ok());
    QVERIFY(std::string(bad.status().message()).find("6 elements") != std::string::npos);
  }

  void protoRoundTrip_data() {
    // clang-format off
    QTest::addColumn<bool>("typedFields");
    QTest::newRow("tensor_content") << false;
    QTest::newRow("typed fields") << true;
    // clang-format on
  }
  void protoRoundTrip() {
    QFETCH(bool, typedFields);
    const std::vector<Tensor> tensors = {Tensor::Matrix<float>({{1.5f, -2}, {3, 4}}),
                                         Tensor::Matrix<double>({{1e-300, 2}}),
                                         Tensor::Vector<int32_t>({-7, 0, 7}),
                                         Tensor::Scalar<int64_t>(1LL << 40),
                                         Tensor::Vector<bool>({true, false}),
                                         Tensor::Vector<uint8_t>({0, 255}),
                                         Tensor::Vector<std::string>({"a", std::string("\0b", 2)}),
                                         Tensor(DT_FLOAT, TensorShape{0, 3})};
    for (const Tensor& t : tensors) {
      tensorflow::TensorProto proto;
      t.AsProto(&proto, typedFields);
      auto back = Tensor::FromProto(proto);
      QVERIFY2(back.ok(), back.status().ToString().c_str());
      QVERIFY2(back->Equals(t), t.SummarizeValue().c_str());
    }
  }

  void protoSingleValueFillsShape() {
    tensorflow::TensorProto proto;
    proto.set_dtype(tensorflow::DT_FLOAT);
    proto.mutable_tensor_shape()->add_dim()->set_size(4);
    proto.add_float_val(2.5f);
    auto t = Tensor::FromProto(proto);
    QVERIFY(t.ok());
    for (int i = 0; i < 4; ++i) QCOMPARE(t->data<float>()[i], 2.5f);
  }

  void protoErrorsNameTheProblem_data() {
    // clang-format off
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("content size") << "dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: 'abc'"
                                  << "needs 8 bytes of tensor_content, got 3";
    QTest::newRow("too many values") << "dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 int_val: 2"
                                     << "has 2 values, more than its 1 elements";
    QTest::newRow("unsupported dtype") << "dtype: DT_COMPLEX64" << "complex64 are not supported";
    QTest::newRow("negative dim") << "dtype: DT_FLOAT tensor_shape { dim { size: -1 } }"
                                  << "fully defined shape, got [?]";
    // clang-format on
  }
  void protoErrorsNameTheProblem() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    tensorflow::TensorProto proto;
    QVERIFY(google::protobuf::TextFormat::ParseFromString(text.toStdString(), &proto));
    auto t = Tensor::FromProto(proto);
    QVERIFY(!t.ok());
    QCOMPARE(t.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(QString::fromStdString(std::string(t.status().message())).contains(expected),
             std::string(t.status().message()).c_str());
  }

  void debugStringLikeNumpy_data() {
    // clang-format off
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("which");
    QTest::newRow("int matrix") << "[[20]]" << 0;
    QTest::newRow("float vector") << "[1.5 2. -0.25]" << 1;
    QTest::newRow("2x2") << "[[1 2]\n [3 4]]" << 2;
    QTest::newRow("bool") << "[True False]" << 3;
    QTest::newRow("scalar") << "7" << 4;
    QTest::newRow("string") << "[b'hi' b'\\x01']" << 5;
    QTest::newRow("truncated") << "[0 1 2...]" << 6;
    // clang-format on
  }
  void debugStringLikeNumpy() {
    QFETCH(QString, expected);
    QFETCH(int, which);
    const std::vector<std::pair<Tensor, int>> cases = {
        {Tensor::Matrix<int32_t>({{20}}), 64},
        {Tensor::Vector<float>({1.5f, 2.f, -0.25f}), 64},
        {Tensor::Matrix<int64_t>({{1, 2}, {3, 4}}), 64},
        {Tensor::Vector<bool>({true, false}), 64},
        {Tensor::Scalar<int32_t>(7), 64},
        {Tensor::Vector<std::string>({"hi", "\x01"}), 64},
        {Tensor::Vector<int32_t>({0, 1, 2, 3, 4}), 3},
    };
    const auto& [t, max] = cases[static_cast<size_t>(which)];
    QCOMPARE(QString::fromStdString(t.DebugString(max)), expected);
  }

  void dataTypeNames_data() {
    // clang-format off
    QTest::addColumn<QString>("name");
    QTest::addColumn<DataType>("dtype");
    QTest::newRow("float") << "float" << DT_FLOAT;
    QTest::newRow("float32") << "float32" << DT_FLOAT;
    QTest::newRow("float64") << "float64" << DT_DOUBLE;
    QTest::newRow("DT_INT64") << "DT_INT64" << DT_INT64;
    QTest::newRow("ref") << "float_ref" << tensorflow::DT_FLOAT_REF;
    // clang-format on
  }
  void dataTypeNames() {
    QFETCH(QString, name);
    QFETCH(DataType, dtype);
    auto parsed = DataTypeFromName(name.toStdString());
    QVERIFY(parsed.ok());
    QCOMPARE(*parsed, dtype);
    QVERIFY(!DataTypeFromName("floaty").ok());
    QCOMPARE(DataTypeName(tensorflow::DT_INT32_REF), std::string("int32_ref"));
  }

  void partialShapes() {
    PartialShape a({2, -1});
    PartialShape b({-1, 3});
    QVERIFY(a.IsCompatibleWith(b));
    auto m = a.MergeWith(b);
    QVERIFY(m.ok());
    QCOMPARE(m->DebugString(), std::string("[2,3]"));
    QVERIFY(m->IsFullyDefined());
    QVERIFY(!PartialShape({2, 3}).MergeWith(PartialShape({3, 3})).ok());
    QCOMPARE(PartialShape().DebugString(), std::string("<unknown>"));
    QVERIFY(!TensorShape::FromDims({2, -3}).ok());
  }
};

QTEST_APPLESS_MAIN(TensorTest)
#include "tst_tensor.moc"
