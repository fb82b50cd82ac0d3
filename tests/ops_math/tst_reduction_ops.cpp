// Sum and Mean: a table of axes (negative, repeated-free, empty), keep_dims and index
// types against a plain reference, integer truncation, empty inputs, and the errors.
#include "MathTestUtil.h"

#include <limits>

using namespace clab;
using namespace clab::testing;

Q_DECLARE_METATYPE(std::vector<int>)

namespace {

tensorflow::NodeDef ReductionNode(const std::string& op, DataType type, bool keep_dims,
                                  DataType index_type = DT_INT32) {
  return MakeNode(op, op, {"input", "axes"},
                  {{"T", AttrOf(type)}, {"Tidx", AttrOf(index_type)}, {"keep_dims", AttrOf(keep_dims)}});
}

// Sums (or means) of `x` over `axes` by visiting every input element.
Tensor ReferenceReduction(const Tensor& x, const std::vector<int>& axes, bool keep_dims, bool mean) {
  const int rank = x.shape().rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int axis : axes) reduced[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = true;
  TensorShape out_shape;
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    if (reduced[static_cast<size_t>(i)]) {
      count *= x.shape().dim(i);
      if (keep_dims) out_shape.AddDim(1);
    } else {
      out_shape.AddDim(x.shape().dim(i));
    }
  }
  Tensor out(DT_DOUBLE, out_shape);
  std::vector<int64_t> index(static_cast<size_t>(rank));
  for (int64_t flat = 0; flat < x.NumElements(); ++flat) {
    int64_t rest = flat;
    for (int i = rank - 1; i >= 0; --i) {
      index[static_cast<size_t>(i)] = rest % x.shape().dim(i);
      rest /= x.shape().dim(i);
    }
    int64_t out_flat = 0;
    for (int i = 0; i < rank; ++i)
      if (!reduced[static_cast<size_t>(i)]) out_flat = out_flat * x.shape().dim(i) + index[static_cast<size_t>(i)];
    out.data<double>()[out_flat] += x.data<double>()[flat];
  }
  if (mean)
    for (int64_t i = 0; i < out.NumElements(); ++i) out.data<double>()[i] /= static_cast<double>(count);
  return out;
}

}  // namespace

class ReductionOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void handComputed() {
    const Tensor x = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
    const Tensor axis0 = Tensor::Vector<int32_t>({0});
    const Tensor axis1 = Tensor::Scalar<int32_t>(-1);
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_FLOAT, false), {x, axis0}), Tensor::Vector<float>({5, 7, 9}));
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_FLOAT, true), {x, axis1}), Tensor::Matrix<float>({{6}, {15}}));
    EXPECT_TENSOR(RunOne(ReductionNode("Mean", DT_FLOAT, false), {x, axis1}), Tensor::Vector<float>({2, 5}));
    EXPECT_TENSOR(RunOne(ReductionNode("Mean", DT_FLOAT, false), {x, Tensor::Vector<int32_t>({0, 1})}),
                  Tensor::Scalar<float>(3.5f));
  }

  void integerMeanTruncatesTowardZero() {
    const Tensor x = Tensor::Matrix<int32_t>({{1, 2}, {-3, -4}, {5, 5}});
    EXPECT_TENSOR(RunOne(ReductionNode("Mean", DT_INT32, false), {x, Tensor::Scalar<int32_t>(1)}),
                  Tensor::Vector<int32_t>({1, -3, 5}));
    EXPECT_TENSOR(RunOne(ReductionNode("Mean", DT_INT64, false, DT_INT64),
                         {CastTensor<int64_t, int32_t>(x), Tensor::Vector<int64_t>({0, 1})}),
                  Tensor::Scalar<int64_t>(1));  // 6 / 6
  }

  void reductionTable_data() {
    QTest::addColumn<TensorShape>("shape");
    QTest::addColumn<std::vector<int>>("axes");
    QTest::addColumn<bool>("keep_dims");
    auto row = [](const char* name, TensorShape shape, std::vector<int> axes) {
      for (bool keep : {false, true}) QTest::addRow("%s%s", name, keep ? " keep_dims" : "") << shape << axes << keep;
    };
    row("vector all", TensorShape{7}, {0});
    row("matrix rows", TensorShape{4, 5}, {1});
    row("matrix columns", TensorShape{4, 5}, {0});
    row("matrix all", TensorShape{4, 5}, {0, 1});
    row("negative axis", TensorShape{4, 5}, {-2});
    row("unsorted axes", TensorShape{2, 3, 4}, {2, 0});
    row("middle axis", TensorShape{2, 3, 4}, {1});
    row("outer and inner", TensorShape{3, 4, 5}, {0, -1});
    row("alternating rank 5", TensorShape{2, 3, 2, 3, 2}, {0, 2, 4});
    row("size-one axis only", TensorShape{3, 1, 4}, {1});
    row("size-one and real axis", TensorShape{3, 1, 4}, {1, 2});
    row("no axes", TensorShape{2, 3}, {});
    row("scalar no axes", TensorShape{}, {});
    row("large all", TensorShape{1 << 20}, {0});
    row("large rows", TensorShape{3000, 700}, {1});
    row("large columns", TensorShape{3000, 700}, {0});
    row("large middle", TensorShape{20, 5000, 30}, {1});
    row("large alternating", TensorShape{50, 60, 70, 8}, {0, 2});
  }
  void reductionTable() {
    QFETCH(TensorShape, shape);
    QFETCH(std::vector<int>, axes);
    QFETCH(bool, keep_dims);
    const Tensor x = TestData(shape, -1, 1, 7);
    std::vector<int32_t> axes32(axes.begin(), axes.end());
    std::vector<int64_t> axes64(axes.begin(), axes.end());
    const Tensor axes_tensor = Tensor::FromVector(axes32, TensorShape{static_cast<int64_t>(axes.size())});
    const Tensor axes_tensor64 = Tensor::FromVector(axes64, TensorShape{static_cast<int64_t>(axes.size())});
    for (bool mean : {false, true}) {
      const char* op = mean ? "Mean" : "Sum";
      const Tensor want = ReferenceReduction(x, axes, keep_dims, mean);
      const Tensor pooled = RunOne(ReductionNode(op, DT_DOUBLE, keep_dims), {x, axes_tensor});
      EXPECT_CLOSE(pooled, want, 1e-12, 1e-9);
      // Fixed block boundaries: the thread count cannot change a single bit.
      EXPECT_TENSOR(
          RunOne(ReductionNode(op, DT_DOUBLE, keep_dims, DT_INT64), {x, axes_tensor64}, SingleThreadedDevice()),
          pooled);
      // Float inputs accumulate in double, so they stay close even over a million values.
      EXPECT_CLOSE(RunOne(ReductionNode(op, DT_FLOAT, keep_dims), {CastTensor<float, double>(x), axes_tensor}),
                   (CastTensor<float, double>(ReferenceReduction(
                       CastTensor<double, float>(CastTensor<float, double>(x)), axes, keep_dims, mean))),
                   1e-6, 1e-6);
    }
  }

  void integerSumsAreExact() {
    const Tensor x = CastTensor<int32_t, double>(TestData(TensorShape{1000, 300}, -1000, 1000, 9));
    const Tensor want =
        CastTensor<int32_t, double>(ReferenceReduction(CastTensor<double, int32_t>(x), {0}, false, false));
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_INT32, false), {x, Tensor::Vector<int32_t>({0})}), want);
  }

  // int64 sums past the type's range wrap around as two's complement does (a fuzz find: the
  // overflow itself was undefined behaviour), along a whole axis and down columns.
  void integerSumsWrapAround() {
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const Tensor x = Tensor::Matrix<int64_t>({{kMin, -2}, {kMax, 3}});
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_INT64, false), {x, Tensor::Scalar<int32_t>(1)}),
                  Tensor::Vector<int64_t>({kMax - 1, kMin + 2}));
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_INT64, false), {x, Tensor::Scalar<int32_t>(0)}),
                  Tensor::Vector<int64_t>({-1, 1}));
    std::vector<int64_t> many(10000, kMax);
    const Tensor column = Tensor::FromVector(many, TensorShape{10000, 1});
    // 10,000 * (2^63 - 1) mod 2^64, as a signed number: -10,000.
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_INT64, false), {column, Tensor::Scalar<int32_t>(0)}),
                  Tensor::Vector<int64_t>({-10000}));
  }

  void emptyInputs() {
    const Tensor x(DT_FLOAT, TensorShape{0, 3});
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_FLOAT, false), {x, Tensor::Scalar<int32_t>(0)}),
                  Tensor::Vector<float>({0, 0, 0}));
    const Tensor mean = RunOne(ReductionNode("Mean", DT_FLOAT, false), {x, Tensor::Scalar<int32_t>(0)});
    QCOMPARE(mean.shape(), TensorShape({3}));
    QVERIFY(std::isnan(mean.data<float>()[0]));
    EXPECT_TENSOR(RunOne(ReductionNode("Sum", DT_FLOAT, true), {x, Tensor::Scalar<int32_t>(1)}),
                  Tensor(DT_FLOAT, TensorShape({0, 1})));
    EXPECT_TENSOR(
        RunOne(ReductionNode("Mean", DT_INT32, false), {Tensor(DT_INT32, TensorShape{0}), Tensor::Scalar<int32_t>(0)}),
        Tensor::Scalar<int32_t>(0));
  }

  void errors_data() {
    // clang-format off
    QTest::addColumn<TensorShape>("shape");
    QTest::addColumn<Tensor>("axes");
    QTest::addColumn<QString>("message");
    QTest::newRow("too large") << TensorShape{2, 3} << Tensor::Vector<int32_t>({2})
                               << "Invalid reduction dimension 2 for input with 2 dimension(s)";
    QTest::newRow("too negative") << TensorShape{2, 3} << Tensor::Vector<int32_t>({-3})
                                  << "Invalid reduction dimension -3 for input with 2 dimension(s)";
    QTest::newRow("scalar input") << TensorShape{} << Tensor::Vector<int32_t>({0})
                                  << "Invalid reduction dimension 0 for input with 0 dimension(s)";
    QTest::newRow("repeated") << TensorShape{2, 3} << Tensor::Vector<int32_t>({1, -1})
                              << "Invalid reduction arguments: axes contain dimension 1 twice";
    QTest::newRow("matrix of axes") << TensorShape{2, 3} << Tensor::Matrix<int32_t>({{0}})
                                    << "reduction_indices must be a scalar or vector, got shape [1,1]";
    // clang-format on
  }
  void errors() {
    QFETCH(TensorShape, shape);
    QFETCH(Tensor, axes);
    QFETCH(QString, message);
    auto out = RunKernel(ReductionNode("Sum", DT_FLOAT, false), {Tensor(DT_FLOAT, shape), axes});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(Q(out.status()), "INVALID_ARGUMENT: " + message + "\n\t [[{{node Sum}}]]");
  }
};

QTEST_APPLESS_MAIN(ReductionOpsTest)
#include "tst_reduction_ops.moc"
