// Helpers for the math, nn and random kernel suites: nodes with their type attrs, a CPU
// device without a thread pool (so both the parallel and the inline paths get run),
// casts between float and double tensors, and closeness checks with readable failures.
#pragma once

#include "KernelTestUtil.h"

#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

Q_DECLARE_METATYPE(clab::Tensor)
Q_DECLARE_METATYPE(clab::PartialShape)
Q_DECLARE_METATYPE(clab::TensorShape)
Q_DECLARE_METATYPE(clab::DataType)

namespace clab::testing {

inline QString Q(const absl::Status& s) { return QString::fromStdString(FormatStatus(s)); }
inline QString Q(const Tensor& t) { return QString::fromStdString(t.SummarizeValue(32)); }

// Evaluates each argument once: running a stateful kernel twice would change what is compared.
#define EXPECT_TENSOR(actual, expected)                                                                        \
  do {                                                                                                         \
    const ::clab::Tensor actual_ = (actual);                                                                   \
    const ::clab::Tensor expected_ = (expected);                                                               \
    QVERIFY2(actual_.Equals(expected_), qPrintable(QString("got %1, want %2").arg(Q(actual_), Q(expected_)))); \
  } while (0)

// A CPU device whose kernels see no Eigen pool: everything runs on the calling thread.
class NoPoolCpuDevice : public Device {
 public:
  NoPoolCpuDevice() : Device("/job:localhost/replica:0/task:0/device:CPU:0", "CPU", "test CPU without threads") {}
  Allocator* allocator() override { return CpuAllocator(); }
};

inline Device* SingleThreadedDevice() {
  static NoPoolCpuDevice device;
  return &device;
}

// Runs `node` and returns output 0; fails the test (and returns an empty Tensor) on error.
inline Tensor RunOne(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs, Device* device = nullptr) {
  auto out = RunKernel(node, inputs, device);
  if (!out.ok()) {
    QTest::qFail(qPrintable(Q(out.status())), __FILE__, __LINE__);
    return Tensor();
  }
  return (*out)[0];
}

inline tensorflow::NodeDef UnaryNode(const std::string& op, DataType type) {
  return MakeNode(op, op, {"x"}, {{"T", AttrOf(type)}});
}
inline tensorflow::NodeDef BinaryNode(const std::string& op, DataType type) {
  return MakeNode(op, op, {"x", "y"}, {{"T", AttrOf(type)}});
}

template <typename To, typename From>
Tensor CastTensor(const Tensor& t) {
  Tensor out(DataTypeOf<To>::value, t.shape());
  for (int64_t i = 0; i < t.NumElements(); ++i) out.data<To>()[i] = static_cast<To>(t.data<From>()[i]);
  return out;
}

// Values of a float or double tensor as doubles.
inline std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> values(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t.dtype() == DT_FLOAT) values[i] = t.data<float>()[i];
    else if (t.dtype() == DT_DOUBLE) values[i] = t.data<double>()[i];
    else if (t.dtype() == DT_INT32) values[i] = t.data<int32_t>()[i];
    else values[i] = static_cast<double>(t.data<int64_t>()[i]);
  }
  return values;
}

// Same shape and |a - b| <= atol + rtol * |b| everywhere (NaNs must match); otherwise
// `why` says where they differ.
inline bool AllClose(const Tensor& actual, const Tensor& expected, double rtol, double atol, QString* why) {
  if (actual.shape() != expected.shape()) {
    *why = QString("shape %1, want %2")
               .arg(QString::fromStdString(actual.shape().DebugString()),
                    QString::fromStdString(expected.shape().DebugString()));
    return false;
  }
  const std::vector<double> a = AsDoubles(actual), b = AsDoubles(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (a[i] == b[i]) continue;  // equal infinities
    if (!(std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i]))) {
      *why = QString("element %1 is %2, want %3 (rtol %4, atol %5)")
                 .arg(i)
                 .arg(a[i], 0, 'g', 17)
                 .arg(b[i], 0, 'g', 17)
                 .arg(rtol)
                 .arg(atol);
      return false;
    }
  }
  return true;
}

#define EXPECT_CLOSE(actual, expected, rtol, atol)                                                      \
  do {                                                                                                  \
    QString why_;                                                                                       \
    QVERIFY2(::clab::testing::AllClose((actual), (expected), (rtol), (atol), &why_), qPrintable(why_)); \
  } while (0)

// Output 0's shape from the node's shape function; fails the test on an error.
inline PartialShape OutputShape(const tensorflow::NodeDef& node, std::vector<PartialShape> inputs,
                                std::vector<const Tensor*> constants = {}) {
  auto shapes = InferShapes(node, std::move(inputs), std::move(constants));
  if (!shapes.ok()) {
    QTest::qFail(qPrintable(Q(shapes.status())), __FILE__, __LINE__);
    return PartialShape();
  }
  return (*shapes)[0];
}

// Deterministic pseudo-random test data in [lo, hi).
inline Tensor TestData(const TensorShape& shape, double lo, double hi, uint32_t seed = 1) {
  Tensor t(DT_DOUBLE, shape);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double unit = static_cast<double>(state >> 11) * 0x1.0p-53;
    t.data<double>()[i] = lo + (hi - lo) * unit;
  }
  return t;
}

}  // namespace clab::testing
