// MatMul and the element-wise math kernels against hand-computed values, the broadcasting
// table against a plain reference loop, and the run-time errors.
#include "MathTestUtil.h"

#include <limits>

using namespace clab;
using namespace clab::testing;

namespace {

template <typename T>
Tensor Typed(const Tensor& doubles) {
  return CastTensor<T, double>(doubles);
}

Tensor Convert(const Tensor& doubles, DataType type) {
  switch (type) {
    case DT_FLOAT: return Typed<float>(doubles);
    case DT_INT32: return Typed<int32_t>(doubles);
    case DT_INT64: return Typed<int64_t>(doubles);
    default: return doubles;
  }
}

tensorflow::NodeDef MatMulNode(DataType type, bool ta, bool tb) {
  return MakeNode("m", "MatMul", {"a", "b"},
                  {{"T", AttrOf(type)}, {"transpose_a", AttrOf(ta)}, {"transpose_b", AttrOf(tb)}});
}

// op(x) * op(y) computed the obvious way, in double.
Tensor ReferenceMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  const std::vector<double> av = AsDoubles(a), bv = AsDoubles(b);
  const int64_t m = a.shape().dim(ta ? 1 : 0), k = a.shape().dim(ta ? 0 : 1), n = b.shape().dim(tb ? 0 : 1);
  Tensor out(DT_DOUBLE, TensorShape{m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum +=
            av[static_cast<size_t>(ta ? p * m + i : i * k + p)] * bv[static_cast<size_t>(tb ? j * k + p : p * n + j)];
      out.data<double>()[i * n + j] = sum;
    }
  return out;
}

// Broadcast x op y by walking every output index and mapping it back to each input.
Tensor ReferenceBroadcast(const Tensor& x, const Tensor& y, const TensorShape& out_shape, char op) {
  Tensor out(DT_DOUBLE, out_shape);
  const int rank = out_shape.rank();
  std::vector<int64_t> index(static_cast<size_t>(rank));
  auto offset_in = [&](const TensorShape& s) {
    int64_t off = 0;
    for (int i = 0; i < s.rank(); ++i) {
      const int64_t idx = index[static_cast<size_t>(i + rank - s.rank())];
      off = off * s.dim(i) + (s.dim(i) == 1 ? 0 : idx);
    }
    return off;
  };
  for (int64_t flat = 0; flat < out.NumElements(); ++flat) {
    int64_t rest = flat;
    for (int i = rank - 1; i >= 0; --i) {
      index[static_cast<size_t>(i)] = rest % out_shape.dim(i);
      rest /= out_shape.dim(i);
    }
    const double a = x.data<double>()[offset_in(x.shape())];
    const double b = y.data<double>()[offset_in(y.shape())];
    out.data<double>()[flat] = op == '+' ? a + b : op == '-' ? a - b : op == '*' ? a * b : a / b;
  }
  return out;
}

}  // namespace

class MathOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void matMulSeedProgram() {
    const Tensor x = Tensor::Matrix<int32_t>({{1, 2, 3, 4}});
    const Tensor w = Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}});
    EXPECT_TENSOR(RunOne(MatMulNode(DT_INT32, false, false), {x, w}), Tensor::Matrix<int32_t>({{20}}));
  }

  void matMulHandComputed_data() {
    QTest::addColumn<DataType>("type");
    QTest::addColumn<bool>("ta");
    QTest::addColumn<bool>("tb");
    const DataType types[] = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64};
    for (DataType type : types)
      for (bool ta : {false, true})
        for (bool tb : {false, true})
          QTest::addRow("%s ta=%d tb=%d", DataTypeName(type).c_str(), ta, tb) << type << ta << tb;
  }
  void matMulHandComputed() {
    QFETCH(DataType, type);
    QFETCH(bool, ta);
    QFETCH(bool, tb);
    // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]], with each operand
    // stored transposed when its flag is set.
    const Tensor a =
        ta ? Tensor::Matrix<double>({{1, 4}, {2, 5}, {3, 6}}) : Tensor::Matrix<double>({{1, 2, 3}, {4, 5, 6}});
    const Tensor b =
        tb ? Tensor::Matrix<double>({{7, 9, 11}, {8, 10, 12}}) : Tensor::Matrix<double>({{7, 8}, {9, 10}, {11, 12}});
    const Tensor want = Convert(Tensor::Matrix<double>({{58, 64}, {139, 154}}), type);
    EXPECT_TENSOR(RunOne(MatMulNode(type, ta, tb), {Convert(a, type), Convert(b, type)}), want);
  }

  // Big enough to be split across threads, by rows (m >= n) and by columns (m < n); all but
  // the last reach Eigen's contraction on the pool (over 2^20 multiply-adds), in each of the
  // four transpose combinations.
  void matMulLargeMatchesReference_data() {
    // clang-format off
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("ta");
    QTest::addColumn<bool>("tb");
    QTest::newRow("rows split") << 300 << 200 << 100 << false << false;
    QTest::newRow("columns split") << 70 << 150 << 260 << false << true;
    QTest::newRow("both transposed") << 129 << 65 << 257 << true << true;
    QTest::newRow("a transposed") << 160 << 90 << 110 << true << false;
    QTest::newRow("just above naive") << 9 << 8 << 8 << true << false;
    // clang-format on
  }
  void matMulLargeMatchesReference() {
    QFETCH(int, m);
    QFETCH(int, k);
    QFETCH(int, n);
    QFETCH(bool, ta);
    QFETCH(bool, tb);
    const Tensor a = TestData(ta ? TensorShape{k, m} : TensorShape{m, k}, -1, 1, 3);
    const Tensor b = TestData(tb ? TensorShape{n, k} : TensorShape{k, n}, -1, 1, 4);
    const Tensor want = ReferenceMatMul(a, b, ta, tb);
    EXPECT_CLOSE(RunOne(MatMulNode(DT_DOUBLE, ta, tb), {a, b}), want, 1e-12, 1e-12);
    EXPECT_CLOSE(RunOne(MatMulNode(DT_DOUBLE, ta, tb), {a, b}, SingleThreadedDevice()), want, 1e-12, 1e-12);
    // Integers take Eigen's generic GEMM path too.
    const Tensor ai = CastTensor<int64_t, double>(TestData(a.shape(), -50, 50, 5));
    const Tensor bi = CastTensor<int64_t, double>(TestData(b.shape(), -50, 50, 6));
    EXPECT_TENSOR(RunOne(MatMulNode(DT_INT64, ta, tb), {ai, bi}),
                  (CastTensor<int64_t, double>(ReferenceMatMul(ai, bi, ta, tb))));
  }

  void matMulEmptyInnerDimensionGivesZeros() {
    const Tensor a(DT_FLOAT, TensorShape{2, 0});
    const Tensor b(DT_FLOAT, TensorShape{0, 3});
    EXPECT_TENSOR(RunOne(MatMulNode(DT_FLOAT, false, false), {a, b}), Tensor(DT_FLOAT, TensorShape({2, 3})));
  }

  void matMulRejectsIncompatibleShapes() {
    auto out = RunKernel(MatMulNode(DT_FLOAT, false, false),
                         {Tensor(DT_FLOAT, TensorShape{1, 4}), Tensor(DT_FLOAT, TensorShape{3, 1})});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(Q(out.status()), QString("INVALID_ARGUMENT: Matrix size-incompatible: In[0]: [1,4], In[1]: [3,1]"
                                      "\n\t [[{{node m}}]]"));
  }

  void matMulRejectsNonMatrix() {
    auto out = RunKernel(MatMulNode(DT_FLOAT, false, false),
                         {Tensor(DT_FLOAT, TensorShape{4}), Tensor(DT_FLOAT, TensorShape{4, 1})});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains("In[0] is not a matrix. Instead it has shape [4]"), qPrintable(Q(out.status())));
    QVERIFY(Q(out.status()).contains("{{node m}}"));
  }

  void binaryHandComputed_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<DataType>("type");
    QTest::addColumn<Tensor>("want");
    // x = [6, -4, 9, 0.5 (int: 0)], y = [3, 2, -3, 0.25 (int: 1)]
    const DataType types[] = {DT_FLOAT, DT_DOUBLE};
    for (DataType type : types) {
      const char* t = type == DT_FLOAT ? "float" : "double";
      QTest::addRow("Add %s", t) << "Add" << type << Convert(Tensor::Vector<double>({9, -2, 6, 0.75}), type);
      QTest::addRow("AddV2 %s", t) << "AddV2" << type << Convert(Tensor::Vector<double>({9, -2, 6, 0.75}), type);
      QTest::addRow("Sub %s", t) << "Sub" << type << Convert(Tensor::Vector<double>({3, -6, 12, 0.25}), type);
      QTest::addRow("Mul %s", t) << "Mul" << type << Convert(Tensor::Vector<double>({18, -8, -27, 0.125}), type);
      QTest::addRow("RealDiv %s", t) << "RealDiv" << type << Convert(Tensor::Vector<double>({2, -2, -3, 2}), type);
    }
    const DataType ints[] = {DT_INT32, DT_INT64};
    for (DataType type : ints) {
      const char* t = type == DT_INT32 ? "int32" : "int64";
      QTest::addRow("Add %s", t) << "Add" << type << Convert(Tensor::Vector<double>({9, -2, 6, 1}), type);
      QTest::addRow("Sub %s", t) << "Sub" << type << Convert(Tensor::Vector<double>({3, -6, 12, -1}), type);
      QTest::addRow("Mul %s", t) << "Mul" << type << Convert(Tensor::Vector<double>({18, -8, -27, 0}), type);
    }
  }
  void binaryHandComputed() {
    QFETCH(QString, op);
    QFETCH(DataType, type);
    QFETCH(Tensor, want);
    const bool floating = type == DT_FLOAT || type == DT_DOUBLE;
    const Tensor x = Convert(Tensor::Vector<double>({6, -4, 9, floating ? 0.5 : 0}), type);
    const Tensor y = Convert(Tensor::Vector<double>({3, 2, -3, floating ? 0.25 : 1}), type);
    EXPECT_TENSOR(RunOne(BinaryNode(op.toStdString(), type), {x, y}), want);
  }

  void integerArithmeticWraps() {
    const int32_t max = std::numeric_limits<int32_t>::max();
    EXPECT_TENSOR(RunOne(BinaryNode("AddV2", DT_INT32), {Tensor::Scalar<int32_t>(max), Tensor::Scalar<int32_t>(1)}),
                  Tensor::Scalar<int32_t>(std::numeric_limits<int32_t>::min()));
    EXPECT_TENSOR(RunOne(UnaryNode("Neg", DT_INT32), {Tensor::Scalar<int32_t>(std::numeric_limits<int32_t>::min())}),
                  Tensor::Scalar<int32_t>(std::numeric_limits<int32_t>::min()));
  }

  void realDivByZeroFollowsIeee() {
    const Tensor out =
        RunOne(BinaryNode("RealDiv", DT_FLOAT), {Tensor::Vector<float>({1, -1, 0}), Tensor::Scalar<float>(0)});
    QVERIFY(std::isinf(out.data<float>()[0]) && out.data<float>()[0] > 0);
    QVERIFY(std::isinf(out.data<float>()[1]) && out.data<float>()[1] < 0);
    QVERIFY(std::isnan(out.data<float>()[2]));
  }

  void realDivHasNoIntegerKernel() {
    auto out = RunKernel(BinaryNode("RealDiv", DT_INT32), {Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(1)});
    QVERIFY(!out.ok());
  }

  void broadcasting_data() {
    // clang-format off
    QTest::addColumn<TensorShape>("x");
    QTest::addColumn<TensorShape>("y");
    QTest::addColumn<TensorShape>("out");
    QTest::newRow("same shape") << TensorShape{2, 3} << TensorShape{2, 3} << TensorShape{2, 3};
    QTest::newRow("row vector") << TensorShape{2, 3} << TensorShape{3} << TensorShape{2, 3};
    QTest::newRow("column") << TensorShape{2, 3} << TensorShape{2, 1} << TensorShape{2, 3};
    QTest::newRow("vector on the left") << TensorShape{3} << TensorShape{2, 3} << TensorShape{2, 3};
    QTest::newRow("scalar left") << TensorShape{} << TensorShape{2, 3} << TensorShape{2, 3};
    QTest::newRow("scalar right") << TensorShape{2, 3} << TensorShape{} << TensorShape{2, 3};
    QTest::newRow("one-element higher rank") << TensorShape{3} << TensorShape{1, 1} << TensorShape{1, 3};
    QTest::newRow("outer product") << TensorShape{4, 1} << TensorShape{1, 5} << TensorShape{4, 5};
    QTest::newRow("both ways") << TensorShape{2, 1, 4} << TensorShape{3, 1} << TensorShape{2, 3, 4};
    QTest::newRow("trailing ones") << TensorShape{5, 1, 1} << TensorShape{1} << TensorShape{5, 1, 1};
    QTest::newRow("rank 5") << TensorShape{2, 3, 4, 5, 6} << TensorShape{3, 1, 5, 1} << TensorShape{2, 3, 4, 5, 6};
    QTest::newRow("rank 6") << TensorShape{2, 1, 3, 1, 2, 2} << TensorShape{1, 4, 1, 5, 2, 1}
                            << TensorShape{2, 4, 3, 5, 2, 2};
    QTest::newRow("rank 7") << TensorShape{2, 1, 2, 1, 2, 1, 2} << TensorShape{2, 1, 2, 1, 2, 1}
                            << TensorShape{2, 2, 2, 2, 2, 2, 2};
    QTest::newRow("empty") << TensorShape{0, 3} << TensorShape{3} << TensorShape{0, 3};
    QTest::newRow("empty against one") << TensorShape{1, 3} << TensorShape{0, 1} << TensorShape{0, 3};
    QTest::newRow("large bias add") << TensorShape{512, 300} << TensorShape{300} << TensorShape{512, 300};
    QTest::newRow("large column") << TensorShape{300, 512} << TensorShape{300, 1} << TensorShape{300, 512};
    QTest::newRow("large middle") << TensorShape{64, 1, 3000} << TensorShape{7, 1} << TensorShape{64, 7, 3000};
    // clang-format on
  }
  void broadcasting() {
    QFETCH(TensorShape, x);
    QFETCH(TensorShape, y);
    QFETCH(TensorShape, out);
    const Tensor xv = TestData(x, -2, 2, 11);
    const Tensor yv = TestData(y, 0.5, 3, 12);
    const std::pair<const char*, char> ops[] = {{"AddV2", '+'}, {"Sub", '-'}, {"Mul", '*'}, {"RealDiv", '/'}};
    for (const auto& [op, symbol] : ops) {
      const Tensor want = ReferenceBroadcast(xv, yv, out, symbol);
      EXPECT_TENSOR(RunOne(BinaryNode(op, DT_DOUBLE), {xv, yv}), want);
      EXPECT_TENSOR(RunOne(BinaryNode(op, DT_DOUBLE), {xv, yv}, SingleThreadedDevice()), want);
    }
    // Integers broadcast through the same code.
    const Tensor xi = CastTensor<int32_t, double>(TestData(x, -100, 100, 13));
    const Tensor yi = CastTensor<int32_t, double>(TestData(y, -100, 100, 14));
    const Tensor want = CastTensor<int32_t, double>(
        ReferenceBroadcast(CastTensor<double, int32_t>(xi), CastTensor<double, int32_t>(yi), out, '-'));
    EXPECT_TENSOR(RunOne(BinaryNode("Sub", DT_INT32), {xi, yi}), want);
  }

  void broadcastingRejectsIncompatibleShapes_data() {
    // clang-format off
    QTest::addColumn<TensorShape>("x");
    QTest::addColumn<TensorShape>("y");
    QTest::addColumn<QString>("message");
    QTest::newRow("trailing") << TensorShape{2, 3} << TensorShape{2} << "Incompatible shapes: [2,3] vs. [2]";
    QTest::newRow("leading") << TensorShape{4, 3} << TensorShape{2, 2, 3} << "Incompatible shapes: [4,3] vs. [2,2,3]";
    QTest::newRow("zero vs two") << TensorShape{0} << TensorShape{2} << "Incompatible shapes: [0] vs. [2]";
    // clang-format on
  }
  void broadcastingRejectsIncompatibleShapes() {
    QFETCH(TensorShape, x);
    QFETCH(TensorShape, y);
    QFETCH(QString, message);
    auto out = RunKernel(BinaryNode("Mul", DT_FLOAT), {Tensor(DT_FLOAT, x), Tensor(DT_FLOAT, y)});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(Q(out.status()), "INVALID_ARGUMENT: " + message + "\n\t [[{{node Mul}}]]");
  }

  void unaryHandComputed_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<DataType>("type");
    QTest::addColumn<Tensor>("x");
    QTest::addColumn<Tensor>("want");
    QTest::newRow("Neg float") << "Neg" << DT_FLOAT << Tensor::Vector<float>({1.5f, -2, 0})
                               << Tensor::Vector<float>({-1.5f, 2, -0.0f});
    QTest::newRow("Neg int64") << "Neg" << DT_INT64 << Tensor::Vector<int64_t>({3, -7}) << Tensor::Vector<int64_t>({-3, 7});
    QTest::newRow("Square double") << "Square" << DT_DOUBLE << Tensor::Vector<double>({-3, 0.5})
                                   << Tensor::Vector<double>({9, 0.25});
    QTest::newRow("Square int32") << "Square" << DT_INT32 << Tensor::Vector<int32_t>({-3, 12})
                                  << Tensor::Vector<int32_t>({9, 144});
    QTest::newRow("Sqrt float") << "Sqrt" << DT_FLOAT << Tensor::Vector<float>({4, 0, 2.25f})
                                << Tensor::Vector<float>({2, 0, 1.5f});
    QTest::newRow("Exp double") << "Exp" << DT_DOUBLE << Tensor::Vector<double>({0, 1, -1})
                                << Tensor::Vector<double>({1, M_E, 1 / M_E});
    QTest::newRow("Log double") << "Log" << DT_DOUBLE << Tensor::Vector<double>({1, M_E, 0.5})
                                << Tensor::Vector<double>({0, 1, -M_LN2});
    // clang-format on
  }
  void unaryHandComputed() {
    QFETCH(QString, op);
    QFETCH(DataType, type);
    QFETCH(Tensor, x);
    QFETCH(Tensor, want);
    EXPECT_CLOSE(RunOne(UnaryNode(op.toStdString(), type), {x}), want, 1e-6, 0);
  }

  void unaryEdgeValues() {
    const Tensor sqrt = RunOne(UnaryNode("Sqrt", DT_FLOAT), {Tensor::Vector<float>({-1})});
    QVERIFY(std::isnan(sqrt.data<float>()[0]));
    const Tensor log = RunOne(UnaryNode("Log", DT_DOUBLE), {Tensor::Vector<double>({0, -1})});
    QVERIFY(std::isinf(log.data<double>()[0]) && log.data<double>()[0] < 0);
    QVERIFY(std::isnan(log.data<double>()[1]));
    const Tensor exp = RunOne(UnaryNode("Exp", DT_FLOAT), {Tensor::Vector<float>({100, -200})});
    QVERIFY(std::isinf(exp.data<float>()[0]));
    QCOMPARE(exp.data<float>()[1], 0.0f);
  }

  // A large input goes through the thread pool; the result must equal the inline one.
  void unaryLargeInputMatchesSingleThreaded() {
    const Tensor x = CastTensor<float, double>(TestData(TensorShape{1 << 18}, -5, 5, 21));
    for (const char* op : {"Exp", "Square", "Neg"}) {
      const Tensor pooled = RunOne(UnaryNode(op, DT_FLOAT), {x});
      EXPECT_TENSOR(pooled, RunOne(UnaryNode(op, DT_FLOAT), {x}, SingleThreadedDevice()));
    }
  }

  void unaryIntegerOnlyWhereDefined() {
    auto out = RunKernel(UnaryNode("Exp", DT_INT32), {Tensor::Scalar<int32_t>(1)});
    QVERIFY(!out.ok());
  }
};

QTEST_APPLESS_MAIN(MathOpsTest)
#include "tst_math_ops.moc"
