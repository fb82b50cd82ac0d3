// Every float op in float32 against the same kernel in float64 on the same inputs (rounded
// to float first): a float32 kernel that loses precision, mixes up elements or takes a
// wrong fast path shows up as a difference beyond what float rounding explains.
#include "MathTestUtil.h"

using namespace clab;
using namespace clab::testing;

namespace {

struct InputSpec {
  TensorShape shape;
  double lo, hi;
};

}  // namespace

Q_DECLARE_METATYPE(std::vector<InputSpec>)

class Float32VsFloat64Test : public QObject {
  Q_OBJECT

 private slots:
  void compare_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<std::vector<InputSpec>>("inputs");
    QTest::addColumn<double>("rtol");
    QTest::addColumn<double>("atol");
    const TensorShape big{300, 257};  // large enough for the thread pool, odd sizes
    auto unary = [&](const char* op, double lo, double hi, double rtol, double atol) {
      QTest::addRow("%s small", op) << op << std::vector<InputSpec>{{TensorShape{7}, lo, hi}} << rtol << atol;
      QTest::addRow("%s large", op) << op << std::vector<InputSpec>{{big, lo, hi}} << rtol << atol;
    };
    auto binary = [&](const char* op, double lo, double hi, double rtol, double atol) {
      QTest::addRow("%s same shape", op) << op << std::vector<InputSpec>{{big, lo, hi}, {big, lo, hi}} << rtol << atol;
      QTest::addRow("%s broadcast", op) << op << std::vector<InputSpec>{{big, lo, hi}, {TensorShape{257}, lo, hi}}
                                        << rtol << atol;
      QTest::addRow("%s scalar", op) << op << std::vector<InputSpec>{{TensorShape{}, lo, hi}, {big, lo, hi}} << rtol
                                     << atol;
    };
    // Tolerances: one float rounding of the result (6e-8) and of each input, amplified by
    // the op's condition number; sums of differently signed terms need an absolute one.
    binary("AddV2", -10, 10, 1e-6, 1e-5);
    binary("Sub", -10, 10, 1e-6, 1e-5);
    binary("Mul", -10, 10, 1e-6, 0);
    binary("RealDiv", 0.5, 10, 1e-6, 0);
    unary("Neg", -10, 10, 0, 0);
    unary("Square", -10, 10, 1e-6, 0);
    unary("Sqrt", 0, 100, 1e-6, 0);
    unary("Exp", -10, 10, 1e-5, 0);
    unary("Log", 0.01, 100, 1e-6, 1e-6);
    unary("Relu", -10, 10, 0, 0);
    unary("Sigmoid", -10, 10, 1e-5, 1e-7);
    unary("Tanh", -5, 5, 1e-5, 1e-6);
    unary("Softmax", -10, 10, 1e-5, 1e-9);
    QTest::newRow("MatMul") << "MatMul" << std::vector<InputSpec>{{TensorShape{64, 300}, -1, 1}, {TensorShape{300, 40}, -1, 1}}
                            << 0.0 << 1e-4;
    QTest::newRow("MatMul small") << "MatMul" << std::vector<InputSpec>{{TensorShape{1, 4}, -1, 1}, {TensorShape{4, 1}, -1, 1}}
                                  << 0.0 << 1e-6;
    QTest::newRow("Sum") << "Sum" << std::vector<InputSpec>{{TensorShape{200, 50, 30}, -1, 1}} << 1e-6 << 1e-5;
    QTest::newRow("Mean") << "Mean" << std::vector<InputSpec>{{TensorShape{200, 50, 30}, -1, 1}} << 1e-6 << 1e-7;
    // clang-format on
  }
  void compare() {
    QFETCH(QString, op);
    QFETCH(std::vector<InputSpec>, inputs);
    QFETCH(double, rtol);
    QFETCH(double, atol);
    std::vector<Tensor> as_float, as_double;
    uint32_t seed = 100;
    for (const InputSpec& spec : inputs) {
      const Tensor f = CastTensor<float, double>(TestData(spec.shape, spec.lo, spec.hi, seed++));
      as_float.push_back(f);
      as_double.push_back(CastTensor<double, float>(f));
    }
    const bool reduction = op == "Sum" || op == "Mean";
    if (reduction) {
      as_float.push_back(Tensor::Vector<int32_t>({0, -1}));
      as_double.push_back(Tensor::Vector<int32_t>({0, -1}));
    }
    auto node = [&](DataType type) {
      if (reduction) return MakeNode(op.toStdString(), op.toStdString(), {"x", "axes"}, {{"T", AttrOf(type)}});
      if (inputs.size() == 1) return UnaryNode(op.toStdString(), type);
      return BinaryNode(op.toStdString(), type);
    };
    const Tensor reference = RunOne(node(DT_DOUBLE), as_double);
    const Tensor single = RunOne(node(DT_FLOAT), as_float);
    QCOMPARE(single.dtype(), DT_FLOAT);
    EXPECT_CLOSE(single, reference, rtol, atol);
  }
};

QTEST_APPLESS_MAIN(Float32VsFloat64Test)
#include "tst_float32_vs_float64.moc"
