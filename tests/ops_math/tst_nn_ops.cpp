// Relu, Sigmoid, Tanh and Softmax against hand-computed values, Softmax's stability for
// large logits, and its errors.
#include "MathTestUtil.h"

#include <cmath>

using namespace clab;
using namespace clab::testing;

class NnOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void activations_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<Tensor>("x");
    QTest::addColumn<Tensor>("want");
    QTest::newRow("Relu float") << "Relu" << Tensor::Vector<float>({-2, 0, 3.5f}) << Tensor::Vector<float>({0, 0, 3.5f});
    QTest::newRow("Relu int32") << "Relu" << Tensor::Vector<int32_t>({-2, 0, 7}) << Tensor::Vector<int32_t>({0, 0, 7});
    QTest::newRow("Relu int64") << "Relu" << Tensor::Vector<int64_t>({-9, 4}) << Tensor::Vector<int64_t>({0, 4});
    QTest::newRow("Sigmoid double") << "Sigmoid" << Tensor::Vector<double>({0, std::log(3.0), -std::log(3.0)})
                                    << Tensor::Vector<double>({0.5, 0.75, 0.25});
    QTest::newRow("Sigmoid saturates") << "Sigmoid" << Tensor::Vector<float>({-100, 100}) << Tensor::Vector<float>({0, 1});
    QTest::newRow("Tanh double") << "Tanh" << Tensor::Vector<double>({0, std::log(2.0), -std::log(2.0)})
                                 << Tensor::Vector<double>({0, 0.6, -0.6});
    QTest::newRow("Tanh saturates") << "Tanh" << Tensor::Vector<float>({-50, 50}) << Tensor::Vector<float>({-1, 1});
    // clang-format on
  }
  void activations() {
    QFETCH(QString, op);
    QFETCH(Tensor, x);
    QFETCH(Tensor, want);
    EXPECT_CLOSE(RunOne(UnaryNode(op.toStdString(), x.dtype()), {x}), want, 1e-6, 1e-7);
  }

  void softmaxHandComputed() {
    // softmax([0, ln 2, ln 5]) = [1, 2, 5] / 8; the second row is uniform.
    const Tensor logits = Tensor::Matrix<double>({{0, std::log(2.0), std::log(5.0)}, {3, 3, 3}});
    EXPECT_CLOSE(RunOne(UnaryNode("Softmax", DT_DOUBLE), {logits}),
                 Tensor::Matrix<double>({{0.125, 0.25, 0.625}, {1.0 / 3, 1.0 / 3, 1.0 / 3}}), 1e-14, 0);
  }

  void softmaxIsStableForLargeLogits() {
    // Near 1000 a float is only good to 6e-5, which bounds how close the result can be.
    const Tensor logits = Tensor::Matrix<float>({{1000, 1000 + std::log(3.0f)}, {-1000, -1000}});
    EXPECT_CLOSE(RunOne(UnaryNode("Softmax", DT_FLOAT), {logits}),
                 Tensor::Matrix<float>({{0.25f, 0.75f}, {0.5f, 0.5f}}), 1e-4, 0);
  }

  void softmaxUsesTheLastAxisOfAnyRank() {
    const Tensor vector = RunOne(UnaryNode("Softmax", DT_DOUBLE), {Tensor::Vector<double>({0, 0, 0, 0})});
    EXPECT_CLOSE(vector, Tensor::Vector<double>({0.25, 0.25, 0.25, 0.25}), 1e-15, 0);
    // Every row of a large rank-3 input sums to 1, whether or not the pool splits it.
    const Tensor logits = TestData(TensorShape{40, 50, 300}, -20, 20, 5);
    const Tensor pooled = RunOne(UnaryNode("Softmax", DT_DOUBLE), {logits});
    EXPECT_TENSOR(pooled, RunOne(UnaryNode("Softmax", DT_DOUBLE), {logits}, SingleThreadedDevice()));
    for (int64_t row = 0; row < 40 * 50; ++row) {
      double sum = 0;
      for (int64_t j = 0; j < 300; ++j) sum += pooled.data<double>()[row * 300 + j];
      QVERIFY2(std::abs(sum - 1) < 1e-12, qPrintable(QString("row %1 sums to %2").arg(row).arg(sum, 0, 'g', 17)));
    }
  }

  void softmaxRejectsScalars() {
    auto out = RunKernel(UnaryNode("Softmax", DT_FLOAT), {Tensor::Scalar<float>(1)});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(Q(out.status()),
             QString("INVALID_ARGUMENT: logits must have >= 1 dimension, got []\n\t [[{{node Softmax}}]]"));
  }

  void activationsOfLargeInputsMatchSingleThreaded() {
    const Tensor x = CastTensor<float, double>(TestData(TensorShape{1000, 300}, -8, 8, 6));
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "Softmax"}) {
      EXPECT_TENSOR(RunOne(UnaryNode(op, DT_FLOAT), {x}), RunOne(UnaryNode(op, DT_FLOAT), {x}, SingleThreadedDevice()));
    }
  }
};

QTEST_APPLESS_MAIN(NnOpsTest)
#include "tst_nn_ops.moc"
