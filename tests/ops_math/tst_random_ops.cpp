// RandomUniform, RandomStandardNormal and TruncatedNormal: reproducible for fixed seeds
// (across kernels and thread counts), new values on each run of one kernel, roughly the
// right moments on 100k samples, and TruncatedNormal's bound.
#include "MathTestUtil.h"

#include <cmath>

using namespace clab;
using namespace clab::testing;

namespace {

tensorflow::NodeDef RandomNode(const std::string& op, DataType dtype, int64_t seed, int64_t seed2,
                               DataType shape_type = DT_INT32) {
  return MakeNode(
      op, op, {"shape"},
      {{"dtype", AttrOf(dtype)}, {"T", AttrOf(shape_type)}, {"seed", AttrOf(seed)}, {"seed2", AttrOf(seed2)}});
}

Tensor ShapeInput(std::vector<int32_t> dims) { return Tensor::Vector<int32_t>(dims); }

// One kernel, run several times: a graph's node keeps its kernel between steps.
class KernelRunner {
 public:
  explicit KernelRunner(tensorflow::NodeDef node) : node_(std::move(node)) {
    const OpDef* op = *OpRegistry::Global().LookUp(node_.op());
    QVERIFY(AddDefaultsAndValidate(*op, &node_).ok());
    QVERIFY(InOutTypesForNode(node_, *op, &input_types_, &output_types_).ok());
    OpKernelConstruction construction(node_, *op, TestCpuDevice(), input_types_, output_types_);
    auto kernel = op->kernels.at("CPU")(construction);
    QVERIFY(kernel.ok());
    kernel_ = std::move(kernel).value();
  }
  Tensor Run(const Tensor& input) {
    StepInfo step;
    OpKernelContext ctx(node_, TestCpuDevice(), step, ValueInputs({input}), 1);
    kernel_->Compute(&ctx);
    return ctx.status().ok() ? ctx.outputs()[0].tensor : Tensor();
  }

 private:
  tensorflow::NodeDef node_;
  std::vector<DataType> input_types_, output_types_;
  std::unique_ptr<OpKernel> kernel_;
};

struct Moments {
  double mean = 0, stddev = 0, min = 0, max = 0;
};

Moments MomentsOf(const Tensor& t) {
  const std::vector<double> v = AsDoubles(t);
  Moments m;
  m.min = m.max = v[0];
  for (double x : v) {
    m.mean += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.stddev += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(m.stddev / static_cast<double>(v.size()));
  return m;
}

}  // namespace

class RandomOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void fixedSeedsReproduce_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<DataType>("dtype");
    for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
      QTest::addRow("%s float", op) << op << DT_FLOAT;
      QTest::addRow("%s double", op) << op << DT_DOUBLE;
    }
  }
  void fixedSeedsReproduce() {
    QFETCH(QString, op);
    QFETCH(DataType, dtype);
    const Tensor shape = ShapeInput({301, 7});  // not a multiple of the values per counter
    const Tensor first = RunOne(RandomNode(op.toStdString(), dtype, 42, 7), {shape});
    QCOMPARE(first.shape(), TensorShape({301, 7}));
    QCOMPARE(first.dtype(), dtype);
    EXPECT_TENSOR(RunOne(RandomNode(op.toStdString(), dtype, 42, 7), {shape}), first);
    EXPECT_TENSOR(RunOne(RandomNode(op.toStdString(), dtype, 42, 7), {shape}, SingleThreadedDevice()), first);
    // A large output is generated on several threads, and must not notice.
    const Tensor big_shape = ShapeInput({1 << 18});
    EXPECT_TENSOR(RunOne(RandomNode(op.toStdString(), dtype, 42, 7), {big_shape}),
                  RunOne(RandomNode(op.toStdString(), dtype, 42, 7), {big_shape}, SingleThreadedDevice()));
    // The first values do not depend on how many values are asked for.
    const Tensor prefix = RunOne(RandomNode(op.toStdString(), dtype, 42, 7), {ShapeInput({16})});
    const std::vector<double> a = AsDoubles(prefix), b = AsDoubles(first);
    for (size_t i = 0; i < a.size(); ++i) QCOMPARE(a[i], b[i]);
    // Other seeds, other values.
    QVERIFY(!RunOne(RandomNode(op.toStdString(), dtype, 42, 8), {shape}).Equals(first));
    QVERIFY(!RunOne(RandomNode(op.toStdString(), dtype, 43, 7), {shape}).Equals(first));
  }

  void zeroSeedsDifferPerKernel() {
    const Tensor shape = ShapeInput({64});
    QVERIFY(!RunOne(RandomNode("RandomUniform", DT_FLOAT, 0, 0), {shape})
                 .Equals(RunOne(RandomNode("RandomUniform", DT_FLOAT, 0, 0), {shape})));
  }

  void eachRunContinuesTheSequence() {
    KernelRunner first(RandomNode("RandomStandardNormal", DT_FLOAT, 1, 2));
    KernelRunner second(RandomNode("RandomStandardNormal", DT_FLOAT, 1, 2));
    const Tensor shape = ShapeInput({10});
    const Tensor run1 = first.Run(shape);
    const Tensor run2 = first.Run(shape);
    QVERIFY(run1.IsInitialized() && run2.IsInitialized());
    QVERIFY(!run1.Equals(run2));
    // Another kernel with the same seeds replays the same sequence.
    EXPECT_TENSOR(second.Run(shape), run1);
    EXPECT_TENSOR(second.Run(shape), run2);
  }

  void moments_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<DataType>("dtype");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("stddev");
    QTest::addColumn<double>("low");   // every value >= low
    QTest::addColumn<double>("high");  // every value < high
    // A standard normal cut at +-2 has variance 1 - 4 phi(2) / (Phi(2) - Phi(-2)) = 0.77374.
    const double truncated_stddev = std::sqrt(0.773741);
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      const char* t = dtype == DT_FLOAT ? "float" : "double";
      QTest::addRow("uniform %s", t) << "RandomUniform" << dtype << 0.5 << std::sqrt(1.0 / 12) << 0.0 << 1.0;
      QTest::addRow("normal %s", t) << "RandomStandardNormal" << dtype << 0.0 << 1.0 << -10.0 << 10.0;
      QTest::addRow("truncated %s", t) << "TruncatedNormal" << dtype << 0.0 << truncated_stddev << -2.0 << 2.0;
    }
  }
  void moments() {
    QFETCH(QString, op);
    QFETCH(DataType, dtype);
    QFETCH(double, mean);
    QFETCH(double, stddev);
    QFETCH(double, low);
    QFETCH(double, high);
    const Tensor samples =
        RunOne(RandomNode(op.toStdString(), dtype, 123, 456, DT_INT64), {Tensor::Vector<int64_t>({100000})});
    QCOMPARE(samples.NumElements(), int64_t{100000});
    const Moments m = MomentsOf(samples);
    // With 100k samples the standard error of the mean is ~0.003 for a unit stddev.
    QVERIFY2(std::abs(m.mean - mean) < 0.015, qPrintable(QString("mean %1, want %2").arg(m.mean).arg(mean)));
    QVERIFY2(std::abs(m.stddev - stddev) < 0.02 * stddev,
             qPrintable(QString("stddev %1, want %2").arg(m.stddev).arg(stddev)));
    QVERIFY2(m.min >= low && m.max < high, qPrintable(QString("range [%1, %2]").arg(m.min).arg(m.max)));
    if (op == "TruncatedNormal") {
      // The bound is respected, yet values come close to it.
      QVERIFY(m.max > 1.99 && m.min < -1.99);
    }
  }

  void shapeErrors() {
    auto not_vector = RunKernel(RandomNode("RandomUniform", DT_FLOAT, 1, 1), {Tensor::Matrix<int32_t>({{2, 2}})});
    QCOMPARE(not_vector.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(not_vector.status()).contains("shape must be a vector of int32 or int64, got shape [1,2]"),
             qPrintable(Q(not_vector.status())));
    QVERIFY(Q(not_vector.status()).contains("{{node RandomUniform}}"));
    auto negative = RunKernel(RandomNode("TruncatedNormal", DT_FLOAT, 1, 1), {ShapeInput({3, -1})});
    QCOMPARE(negative.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY(Q(negative.status()).contains("{{node TruncatedNormal}}"));
  }

  void emptyAndScalarShapes() {
    QCOMPARE(RunOne(RandomNode("RandomUniform", DT_FLOAT, 1, 1), {ShapeInput({0, 5})}).shape(), TensorShape({0, 5}));
    QCOMPARE(RunOne(RandomNode("RandomUniform", DT_DOUBLE, 1, 1), {Tensor(DT_INT32, TensorShape{0})}).shape(),
             TensorShape());
  }

  void opsAreStateful() {
    for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
      QVERIFY2(OpRegistry::Global().Find(op)->is_stateful, op);
  }
};

QTEST_APPLESS_MAIN(RandomOpsTest)
#include "tst_random_ops.moc"
