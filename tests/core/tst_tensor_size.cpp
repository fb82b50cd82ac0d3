// Tensor sizes from outside data: element and byte counts that would wrap, content that
// does not match the shape, and tensors over the task's limit are errors before anything
// is allocated; a tensor that cannot be had is RESOURCE_EXHAUSTED, never a crash.
#include "clab/core/ExceptionStatus.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorAllocation.h"
#include "clab/core/TensorSize.h"

#include <QtTest>

#include <cstdint>
#include <stdexcept>
#include <string>

using namespace clab;

namespace {

bool Mentions(const Status& status, const std::string& text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

tensorflow::TensorProto ProtoOfShape(DataType dtype, std::initializer_list<int64_t> dims) {
  tensorflow::TensorProto proto;
  proto.set_dtype(dtype);
  for (int64_t d : dims) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  return proto;
}

// Restores the default limit when a test ends, whatever it checked.
struct LimitGuard {
  explicit LimitGuard(uint64_t bytes) { TensorSize::SetMaxTensorBytes(bytes); }
  ~LimitGuard() { TensorSize::SetMaxTensorBytes(0); }
};

}  // namespace

class TensorSizeTest : public QObject {
  Q_OBJECT

 private slots:
  void countsThatFit() {
    auto size = TensorSize::Of(DT_FLOAT, {3, 5});
    QVERIFY(size.ok());
    QCOMPARE(size->elements, int64_t{15});
    QCOMPARE(size->bytes, uint64_t{60});
    QCOMPARE(TensorSize::Of(DT_DOUBLE, {})->bytes, uint64_t{8});
    QCOMPARE(TensorSize::Of(DT_INT32, {0, int64_t{1} << 62})->bytes, uint64_t{0});
  }

  void overflowNamesShapeAndType_data() {
    QTest::addColumn<int>("dtype");
    QTest::addColumn<QList<qint64>>("dims");
    QTest::addColumn<QString>("expected");
    // 2^62 elements fit in int64; 2^62 * 4 bytes wraps to 0.
    QTest::newRow("bytes wrap") << int(DT_FLOAT) << QList<qint64>{qint64(1) << 62}
                                << "float tensor of shape [4611686018427387904]";
    QTest::newRow("elements wrap") << int(DT_UINT8) << QList<qint64>{qint64(1) << 32, qint64(1) << 32}
                                   << "too many elements";
    QTest::newRow("negative") << int(DT_INT64) << QList<qint64>{2, -3} << "Dimension 1 of shape [2,-3] is negative";
  }
  void overflowNamesShapeAndType() {
    QFETCH(int, dtype);
    QFETCH(QList<qint64>, dims);
    QFETCH(QString, expected);
    const std::vector<int64_t> shape(dims.begin(), dims.end());
    auto size = TensorSize::Of(static_cast<DataType>(dtype), shape);
    QVERIFY(!size.ok());
    QCOMPARE(size.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Mentions(size.status(), expected.toStdString()), std::string(size.status().message()).c_str());
  }

  void protoWithWrappingShapeIsRejected() {
    // A single value fills the whole shape: with a byte count that wrapped to 0 the fill
    // used to run 2^62 elements past a 64-byte buffer.
    tensorflow::TensorProto proto = ProtoOfShape(DT_FLOAT, {int64_t{1} << 62});
    proto.add_float_val(1.5f);
    auto tensor = Tensor::FromProto(proto);
    QVERIFY(!tensor.ok());
    QCOMPARE(tensor.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY(Mentions(tensor.status(), "float"));
  }

  void contentIsCheckedBeforeAllocation() {
    // 4e12 bytes claimed, 4 bytes given: refused from the sizes alone.
    tensorflow::TensorProto proto = ProtoOfShape(DT_FLOAT, {1000000000000});
    proto.set_tensor_content(std::string(4, '\0'));
    auto tensor = Tensor::FromProto(proto);
    QVERIFY(!tensor.ok());
    QCOMPARE(tensor.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Mentions(tensor.status(), "needs 4000000000000 bytes of tensor_content, got 4"),
             std::string(tensor.status().message()).c_str());
  }

  void tooManyTypedValuesIsCheckedBeforeAllocation() {
    tensorflow::TensorProto proto = ProtoOfShape(DT_INT32, {2});
    for (int i = 0; i < 3; ++i) proto.add_int_val(i);
    auto tensor = Tensor::FromProto(proto);
    QVERIFY(!tensor.ok());
    QVERIFY(Mentions(tensor.status(), "has 3 values, more than its 2 elements"));
  }

  void limitIsResourceExhausted() {
    const LimitGuard limit(1 << 20);
    // One value for a billion strings: within int64, far over the limit.
    tensorflow::TensorProto proto = ProtoOfShape(DT_STRING, {1000000000});
    proto.add_string_val("x");
    auto tensor = Tensor::FromProto(proto);
    QVERIFY(!tensor.ok());
    QCOMPARE(tensor.status().code(), absl::StatusCode::kResourceExhausted);
    QVERIFY2(Mentions(tensor.status(), "--max_tensor_bytes"), std::string(tensor.status().message()).c_str());
    // Under the limit all is as before.
    tensorflow::TensorProto small = ProtoOfShape(DT_FLOAT, {1000});
    small.add_float_val(2);
    auto ok = Tensor::FromProto(small);
    QVERIFY(ok.ok());
    QCOMPARE(ok->data<float>()[999], 2.0f);
  }

  void constructorThrowsAllocationErrorWithStatus() {
    const LimitGuard limit(1 << 20);
    try {
      Tensor big(DT_DOUBLE, TensorShape{1 << 20});
      QFAIL("an 8 MiB tensor was allocated under a 1 MiB limit");
    } catch (const TensorAllocationError& e) {
      QCOMPARE(e.status().code(), absl::StatusCode::kResourceExhausted);
    }
    auto allocated = AllocateTensor(DT_DOUBLE, TensorShape{1 << 20});
    QCOMPARE(allocated.status().code(), absl::StatusCode::kResourceExhausted);
    QVERIFY(AllocateTensor(DT_DOUBLE, TensorShape{16}).ok());
  }

  void defaultLimitIsAFractionOfMemory() {
    QVERIFY(TensorSize::DefaultMaxTensorBytes() > 0);
    QCOMPARE(TensorSize::MaxTensorBytes(), TensorSize::DefaultMaxTensorBytes());
  }

  void exceptionsBecomeStatuses() {
    auto status_of = [](auto thrower) {
      try {
        thrower();
      } catch (...) {
        return CurrentExceptionStatus("RunStep request");
      }
      return OkStatus();
    };
    Status s = status_of([] { (void)std::stoi("99999999999"); });
    QCOMPARE(s.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY(Mentions(s, "RunStep request"));
    QCOMPARE(status_of([] { throw std::bad_alloc(); }).code(), absl::StatusCode::kResourceExhausted);
    QCOMPARE(status_of([] { std::string().resize(std::string().max_size() + 1); }).code(),
             absl::StatusCode::kInvalidArgument);
    QCOMPARE(status_of([] { throw 42; }).code(), absl::StatusCode::kInternal);
  }
};

QTEST_APPLESS_MAIN(TensorSizeTest)
#include "tst_tensor_size.moc"
