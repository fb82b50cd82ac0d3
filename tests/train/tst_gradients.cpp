// Gradients and optimizers. Every gradient function is checked against central finite
// differences in float64 (a data-driven table; ops defined for float alone in float32);
// every optimizer against its update rule written out in the test; linear regression on synthetic data learns its two
// parameters; with a ps and a worker, the gradients are computed on the worker and the updates (and the optimizer's
// slot variables) live on the ps.
#include "StatusText.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"
#include "clab/train/AdagradOptimizer.h"
#include "clab/train/AdamOptimizer.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/GradientDescentOptimizer.h"
#include "clab/train/Gradients.h"
#include "clab/train/MomentumOptimizer.h"
#include "clab/train/RMSPropOptimizer.h"

#include <QTcpServer>
#include <QtTest>

#include <cmath>
#include <functional>
#include <mutex>
#include <random>

using namespace clab;
using namespace clab::testing;

namespace {

using Builder = std::function<Output(GraphBuilder&, const std::vector<Output>&)>;

struct GradCase {
  std::vector<std::vector<int64_t>> shapes;  // one placeholder per shape
  Builder build;
  bool positive = false;       // inputs drawn from (0.5, 2) instead of (-2, 2) (Log)
  bool unknown_batch = false;  // placeholders declare dimension 0 unknown (shapes only known at run time)
};

Tensor RandomTensor(const std::vector<int64_t>& dims, std::mt19937& rng, bool positive) {
  Tensor t(DT_DOUBLE, TensorShape(dims));
  std::uniform_real_distribution<double> dist(positive ? 0.5 : -2.0, 2.0);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    double v = dist(rng);
    // Keep away from Relu's kink, where the derivative is not defined.
    if (!positive && std::abs(v) < 0.05) v = 0.3;
    t.data<double>()[i] = v;
  }
  return t;
}

Output SumAll(GraphBuilder& g, const Output& x) {
  std::vector<int32_t> axes;
  for (int i = 0; i < g.ShapeOf(x).rank(); ++i) axes.push_back(i);
  return ops::Sum(g, x, ops::Const(g, Tensor::Vector<int32_t>(axes)));
}

// Every element of every input's analytic gradient against central differences of
// `loss_at` with step `eps`: |numeric - exact| <= tolerance * max(1, |numeric|).
template <typename T, typename LossAt>
void ExpectCentralDifferences(const std::vector<Tensor>& values, const std::vector<Tensor>& analytic, LossAt loss_at,
                              T eps, double tolerance) {
  for (size_t i = 0; i < values.size(); ++i) {
    QCOMPARE(analytic[i].shape(), values[i].shape());
    for (int64_t k = 0; k < values[i].NumElements(); ++k) {
      std::vector<Tensor> plus = values, minus = values;
      plus[i] = values[i].DeepCopy();
      minus[i] = values[i].DeepCopy();
      plus[i].template data<T>()[k] += eps;
      minus[i].template data<T>()[k] -= eps;
      const double numeric = (loss_at(plus) - loss_at(minus)) / (2 * static_cast<double>(eps));
      const double exact = analytic[i].template data<T>()[k];
      QVERIFY2(
          std::abs(numeric - exact) <= tolerance * std::max(1.0, std::abs(numeric)),
          qPrintable(QString("input %1 element %2: analytic %3, numeric %4").arg(i).arg(k).arg(exact).arg(numeric)));
    }
  }
}

}  // namespace

Q_DECLARE_METATYPE(GradCase)

class GradientsTest : public QObject {
  Q_OBJECT

 private slots:
  void matchesFiniteDifferences_data() {
    // clang-format off
    QTest::addColumn<GradCase>("c");
    auto unary = [](auto op) {
      return [op](GraphBuilder& g, const std::vector<Output>& in) { return op(g, in[0], ""); };
    };
    QTest::newRow("Identity") << GradCase{{{2, 3}}, unary(ops::Identity)};
    QTest::newRow("Neg") << GradCase{{{2, 3}}, unary(ops::Neg)};
    QTest::newRow("Square") << GradCase{{{2, 3}}, unary(ops::Square)};
    QTest::newRow("Exp") << GradCase{{{2, 3}}, unary(ops::Exp)};
    QTest::newRow("Log") << GradCase{{{2, 3}}, unary(ops::Log), true};
    QTest::newRow("Sigmoid") << GradCase{{{2, 3}}, unary(ops::Sigmoid)};
    QTest::newRow("Tanh") << GradCase{{{2, 3}}, unary(ops::Tanh)};
    QTest::newRow("Relu") << GradCase{{{2, 3}}, unary(ops::Relu)};
    QTest::newRow("Add") << GradCase{{{2, 3}, {2, 3}}, [](GraphBuilder& g, const auto& in) { return ops::Add(g, in[0], in[1]); }};
    QTest::newRow("Add bias broadcast") << GradCase{{{4, 3}, {3}}, [](GraphBuilder& g, const auto& in) { return ops::Add(g, in[0], in[1]); }};
    QTest::newRow("Sub column broadcast") << GradCase{{{4, 3}, {4, 1}}, [](GraphBuilder& g, const auto& in) { return ops::Sub(g, in[0], in[1]); }};
    QTest::newRow("Mul") << GradCase{{{2, 3}, {2, 3}}, [](GraphBuilder& g, const auto& in) { return ops::Mul(g, in[0], in[1]); }};
    QTest::newRow("Mul scalar broadcast") << GradCase{{{2, 3}, {}}, [](GraphBuilder& g, const auto& in) { return ops::Mul(g, in[0], in[1]); }};
    QTest::newRow("Mul same input twice") << GradCase{{{3}}, [](GraphBuilder& g, const auto& in) { return ops::Mul(g, in[0], in[0]); }};
    QTest::newRow("MatMul") << GradCase{{{2, 3}, {3, 4}}, [](GraphBuilder& g, const auto& in) { return ops::MatMul(g, in[0], in[1]); }};
    QTest::newRow("MatMul transpose_a") << GradCase{{{3, 2}, {3, 4}}, [](GraphBuilder& g, const auto& in) { return ops::MatMul(g, in[0], in[1], true, false); }};
    QTest::newRow("MatMul transpose_b") << GradCase{{{2, 3}, {4, 3}}, [](GraphBuilder& g, const auto& in) { return ops::MatMul(g, in[0], in[1], false, true); }};
    QTest::newRow("MatMul both") << GradCase{{{3, 2}, {4, 3}}, [](GraphBuilder& g, const auto& in) { return ops::MatMul(g, in[0], in[1], true, true); }};
    QTest::newRow("Sum axis 1") << GradCase{{{3, 4}}, [](GraphBuilder& g, const auto& in) { return ops::Sum(g, in[0], ops::Const(g, Tensor::Scalar<int32_t>(1))); }};
    QTest::newRow("Mean axis 0 keep") << GradCase{{{3, 4}}, [](GraphBuilder& g, const auto& in) { return ops::Mean(g, in[0], ops::Const(g, Tensor::Scalar<int32_t>(0)), true); }};
    QTest::newRow("Reshape") << GradCase{{{2, 6}}, [](GraphBuilder& g, const auto& in) { return ops::Reshape(g, in[0], ops::Const(g, Tensor::Vector<int32_t>({3, 4}))); }};
    QTest::newRow("Gather rows, one repeated") << GradCase{{{4, 3}}, [](GraphBuilder& g, const auto& in) {
      return ops::Gather(g, in[0], ops::Const(g, Tensor::Vector<int32_t>({2, 0, 2})));
    }};
    QTest::newRow("Gather with 2-D indices") << GradCase{{{5, 2}}, [](GraphBuilder& g, const auto& in) {
      return ops::Gather(g, in[0], ops::Const(g, Tensor::Matrix<int64_t>({{1, 4}, {1, 0}})));
    }};
    for (const char* op : {"SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"})
      QTest::newRow(op) << GradCase{{{4, 3}}, [op](GraphBuilder& g, const auto& in) {
        // Rows 3, 0 and 3 again into segments 0, 0 and 2 (segment 1 empty).
        return g.AddNode(op, {in[0], ops::Const(g, Tensor::Vector<int32_t>({3, 0, 3})), ops::Const(g, Tensor::Vector<int32_t>({0, 0, 2}))},
                         {{"T", AttrOf(DT_DOUBLE)}});
      }};
    QTest::newRow("SparseSegmentMean over an unknown batch") << GradCase{{{4, 3}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("SparseSegmentMean", {in[0], ops::Const(g, Tensor::Vector<int32_t>({1, 2})), ops::Const(g, Tensor::Vector<int32_t>({0, 1}))},
                       {{"T", AttrOf(DT_DOUBLE)}});
    }, false, true};
    QTest::newRow("GatherNd, one slice twice") << GradCase{{{3, 2, 2}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("GatherNd", {in[0], ops::Const(g, Tensor::Matrix<int64_t>({{2, 1}, {0, 0}, {2, 1}}))},
                       {{"Tparams", AttrOf(DT_DOUBLE)}, {"Tindices", AttrOf(DT_INT64)}});
    }};
    QTest::newRow("Mean over an unknown batch") << GradCase{{{5, 3}}, [](GraphBuilder& g, const auto& in) {
      return ops::Mean(g, in[0], ops::Const(g, Tensor::Scalar<int32_t>(0)));
    }, false, true};
    QTest::newRow("Sum over an unknown batch, keep_dims") << GradCase{{{4, 2}}, [](GraphBuilder& g, const auto& in) {
      return ops::Sum(g, in[0], ops::Const(g, Tensor::Scalar<int32_t>(1)), true);
    }, false, true};
    QTest::newRow("Add bias, unknown batch") << GradCase{{{4, 3}, {3}}, [](GraphBuilder& g, const auto& in) {
      return ops::Add(g, in[0], in[1]);
    }, false, true};
    QTest::newRow("SparseSoftmaxCrossEntropyWithLogits") << GradCase{{{4, 3}}, [](GraphBuilder& g, const auto& in) {
      return ops::SparseSoftmaxCrossEntropyWithLogits(g, in[0], ops::Const(g, Tensor::Vector<int32_t>({0, 2, 1, 2})));
    }};
    QTest::newRow("BiasAdd") << GradCase{{{4, 3}, {3}}, [](GraphBuilder& g, const auto& in) {
      return ops::BiasAdd(g, in[0], in[1]);
    }};
    QTest::newRow("L2Loss") << GradCase{{{2, 3}}, [](GraphBuilder& g, const auto& in) { return ops::L2Loss(g, in[0]); }};
    QTest::newRow("chain: MLP layer") << GradCase{{{4, 3}, {3, 2}, {2}}, [](GraphBuilder& g, const auto& in) {
      return ops::Tanh(g, ops::Add(g, ops::MatMul(g, in[0], in[1]), in[2]));
    }};
    // Ops TensorFlow-written graphs use, built by name.
    auto by_name = [](const char* op) {
      return [op](GraphBuilder& g, const std::vector<Output>& in) {
        return g.AddNode(op, in, {{"T", AttrOf(g.TypeOf(in[0]))}});
      };
    };
    QTest::newRow("Maximum broadcast") << GradCase{{{3, 4}, {4}}, by_name("Maximum")};
    QTest::newRow("Minimum broadcast") << GradCase{{{3, 1}, {3, 4}}, by_name("Minimum")};
    QTest::newRow("Abs") << GradCase{{{2, 3}}, by_name("Abs")};
    QTest::newRow("Reciprocal") << GradCase{{{2, 3}}, by_name("Reciprocal"), true};
    QTest::newRow("Sqrt") << GradCase{{{2, 3}}, by_name("Sqrt"), true};
    QTest::newRow("Rsqrt") << GradCase{{{2, 3}}, by_name("Rsqrt"), true};
    QTest::newRow("Log1p") << GradCase{{{2, 3}}, by_name("Log1p"), true};
    QTest::newRow("SquaredDifference broadcast") << GradCase{{{3, 4}, {1, 4}}, by_name("SquaredDifference")};
    QTest::newRow("ExpandDims") << GradCase{{{2, 3}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("ExpandDims", {in[0], ops::Const(g, Tensor::Scalar<int32_t>(1))}, {{"T", AttrOf(DT_DOUBLE)}});
    }};
    QTest::newRow("Squeeze") << GradCase{{{2, 1, 3}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("Squeeze", {in[0]}, {{"T", AttrOf(DT_DOUBLE)}});
    }};
    QTest::newRow("Pack axis 1") << GradCase{{{2, 3}, {2, 3}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("Pack", in, {{"T", AttrOf(DT_DOUBLE)}, {"N", AttrOf(int64_t{2})}, {"axis", AttrOf(int64_t{1})}});
    }};
    QTest::newRow("Softmax") << GradCase{{{3, 4}}, unary(ops::Softmax)};
    QTest::newRow("LogSoftmax") << GradCase{{{3, 4}}, unary(ops::LogSoftmax)};
    // The op's backprop, softmax - labels, assumes (as TensorFlow's does) that each row of
    // labels sums to 1: the labels here are the softmax of the second input.
    QTest::newRow("SoftmaxCrossEntropyWithLogits: features and labels") << GradCase{{{4, 3}, {4, 3}}, [](GraphBuilder& g, const auto& in) {
      return ops::SoftmaxCrossEntropyWithLogits(g, in[0], ops::Softmax(g, in[1]));
    }};
    auto conv = [](int stride, const char* padding) {
      return [=](GraphBuilder& g, const std::vector<Output>& in) {
        return ops::Conv2D(g, in[0], in[1], {1, stride, stride, 1}, padding);
      };
    };
    QTest::newRow("Conv2D VALID") << GradCase{{{2, 5, 5, 3}, {3, 3, 3, 2}}, conv(1, "VALID")};
    QTest::newRow("Conv2D SAME") << GradCase{{{2, 5, 4, 2}, {3, 3, 2, 3}}, conv(1, "SAME")};
    QTest::newRow("Conv2D VALID stride 2") << GradCase{{{1, 7, 6, 1}, {3, 3, 1, 2}}, conv(2, "VALID")};
    QTest::newRow("Conv2D SAME stride 2") << GradCase{{{1, 6, 5, 2}, {3, 2, 2, 2}}, conv(2, "SAME")};
    QTest::newRow("Conv2D EXPLICIT padding") << GradCase{{{1, 4, 5, 2}, {2, 3, 2, 2}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("Conv2D", {in[0], in[1]},
                       {{"strides", AttrOf(std::vector<int64_t>{1, 1, 2, 1})}, {"padding", AttrOf("EXPLICIT")},
                        {"explicit_paddings", AttrOf(std::vector<int64_t>{0, 0, 2, 0, 1, 1, 0, 0})}});
    }};
    QTest::newRow("LeakyRelu alpha 0.3") << GradCase{{{3, 4}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("LeakyRelu", {in[0]}, {{"T", AttrOf(DT_DOUBLE)}, {"alpha", AttrOf(0.3f)}});
    }};
    QTest::newRow("ReverseSequence batch 1, seq 0") << GradCase{{{4, 3, 2}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("ReverseSequence", {in[0], ops::Const(g, Tensor::Vector<int64_t>({4, 0, 2}))},
                       {{"T", AttrOf(DT_DOUBLE)}, {"seq_dim", AttrOf(int64_t{0})}, {"batch_dim", AttrOf(int64_t{1})}});
    }};
    QTest::newRow("MaxPool VALID 2x2") << GradCase{{{2, 4, 4, 3}}, [](GraphBuilder& g, const auto& in) {
      return ops::MaxPool(g, in[0], {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
    }};
    QTest::newRow("MaxPool SAME 3x3 stride 2") << GradCase{{{1, 5, 5, 2}}, [](GraphBuilder& g, const auto& in) {
      return ops::MaxPool(g, in[0], {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME");
    }};
    auto pool_attrs = [](std::vector<int64_t> k, std::vector<int64_t> s, const char* padding) {
      return std::map<std::string, tensorflow::AttrValue>{
          {"ksize", AttrOf(k)}, {"strides", AttrOf(s)}, {"padding", AttrOf(padding)}};
    };
    QTest::newRow("AvgPool VALID 2x2") << GradCase{{{2, 4, 4, 3}}, [pool_attrs](GraphBuilder& g, const auto& in) {
      return g.AddNode("AvgPool", {in[0]}, pool_attrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
    }};
    QTest::newRow("AvgPool SAME 3x3 stride 2") << GradCase{{{1, 5, 4, 2}}, [pool_attrs](GraphBuilder& g, const auto& in) {
      return g.AddNode("AvgPool", {in[0]}, pool_attrs({1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"));
    }};
    QTest::newRow("MaxPoolV2 SAME 3x2 stride 2") << GradCase{{{2, 5, 5, 2}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("MaxPoolV2", {in[0], ops::Const(g, Tensor::Vector<int32_t>({1, 3, 2, 1})),
                                     ops::Const(g, Tensor::Vector<int32_t>({1, 2, 2, 1}))},
                       {{"padding", AttrOf("SAME")}});
    }};
    QTest::newRow("BatchMatMul") << GradCase{{{2, 3, 4}, {2, 4, 2}}, by_name("BatchMatMul")};
    QTest::newRow("BatchMatMul adj_x adj_y") << GradCase{{{2, 4, 3}, {2, 2, 4}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("BatchMatMul", {in[0], in[1]}, {{"adj_x", AttrOf(true)}, {"adj_y", AttrOf(true)}});
    }};
    QTest::newRow("BatchMatMulV2 broadcast") << GradCase{{{2, 1, 3, 4}, {3, 4, 2}}, by_name("BatchMatMulV2")};
    QTest::newRow("BatchMatMulV2 adj_y, matrix times batch") << GradCase{{{3, 4}, {2, 5, 4}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("BatchMatMulV2", {in[0], in[1]}, {{"adj_y", AttrOf(true)}});
    }};
    QTest::newRow("StridedSlice strides, shrink, new axis") << GradCase{{{4, 5, 3}}, [](GraphBuilder& g, const auto& in) {
      return g.AddNode("StridedSlice", {in[0], ops::Const(g, Tensor::Vector<int32_t>({3, 0, 1, 1})),
                                        ops::Const(g, Tensor::Vector<int32_t>({0, 5, 2, 3})),
                                        ops::Const(g, Tensor::Vector<int32_t>({-1, 2, 1, 1}))},
                       {{"shrink_axis_mask", AttrOf(int64_t{4})}, {"new_axis_mask", AttrOf(int64_t{8})}});
    }};
    // A small CNN: conv (SAME) + bias -> relu -> 2x2 max-pool -> flatten -> dense.
    auto cnn = [](GraphBuilder& g, const std::vector<Output>& in) {
      const Output conv = ops::BiasAdd(g, ops::Conv2D(g, in[0], in[1], {1, 1, 1, 1}, "SAME"), in[2]);
      const Output pooled = ops::MaxPool(g, ops::Relu(g, conv), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
      return ops::MatMul(g, ops::Reshape(g, pooled, ops::Const(g, Tensor::Vector<int32_t>({-1, 36}))), in[3]);
    };
    QTest::newRow("chain: conv, relu, max-pool, reshape, matmul") << GradCase{{{2, 6, 6, 1}, {3, 3, 1, 4}, {4}, {36, 3}}, cnn};
    // Every placeholder's first dimension unknown: the gradients read shapes when the step runs.
    QTest::newRow("chain: conv to matmul, shapes known only at run time") << GradCase{{{2, 6, 6, 1}, {3, 3, 1, 4}, {4}, {36, 3}}, cnn, false, true};
    // clang-format on
  }

  void matchesFiniteDifferences() {
    QFETCH(GradCase, c);
    std::mt19937 rng(7);
    GraphBuilder g;
    std::vector<Output> inputs;
    std::vector<Tensor> values;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      std::vector<int64_t> declared = c.shapes[i];
      if (c.unknown_batch && !declared.empty()) declared[0] = -1;
      inputs.push_back(ops::Placeholder(g, DT_DOUBLE, PartialShape(declared), "x" + std::to_string(i)));
      values.push_back(RandomTensor(c.shapes[i], rng, c.positive));
    }
    const Output y = c.build(g, inputs);
    // A weighted sum, so that every output element matters differently.
    // The weights need the output's real shape: for an unknown batch, that of the first input.
    std::vector<int64_t> y_dims = g.ShapeOf(y).dims();
    if (c.unknown_batch && !y_dims.empty() && y_dims[0] < 0) y_dims[0] = c.shapes[0][0];
    const Output weights = ops::Const(g, RandomTensor(y_dims, rng, false));
    const Output loss = SumAll(g, ops::Mul(g, y, weights));
    auto grads = Gradients(g, loss, inputs);
    QVERIFY2(grads.ok(), StatusText(grads.status()));
    QVERIFY2(g.status().ok(), StatusText(g.status()));

    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    auto feeds_of = [&](const std::vector<Tensor>& v) {
      FeedList feeds;
      for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(inputs[i].name(), v[i]);
      return feeds;
    };
    auto loss_at = [&](const std::vector<Tensor>& v) {
      std::vector<Tensor> out;
      Status s = (*session)->Run(feeds_of(v), {loss.name()}, {}, &out);
      return s.ok() ? out[0].scalar<double>() : NAN;
    };
    std::vector<std::string> grad_names;
    for (const Output& grad : *grads) grad_names.push_back(grad.name());
    std::vector<Tensor> analytic;
    const Status run = (*session)->Run(feeds_of(values), grad_names, {}, &analytic);
    QVERIFY2(run.ok(), StatusText(run));
    ExpectCentralDifferences<double>(values, analytic, loss_at, 1e-6, 1e-5);
  }

  // Ops TensorFlow defines for float alone (LRN, FusedBatchNorm): their gradient functions
  // against central differences in float, with a step and a tolerance float allows.
  void floatOnlyOpsMatchFiniteDifferences_data() {
    QTest::addColumn<GradCase>("c");
    QTest::newRow("LRN") << GradCase{{{2, 2, 3, 6}}, [](GraphBuilder& g, const auto& in) {
                                       return g.AddNode("LRN", {in[0]},
                                                        {{"T", AttrOf(DT_FLOAT)},
                                                         {"depth_radius", AttrOf(int64_t{2})},
                                                         {"bias", AttrOf(1.5f)},
                                                         {"alpha", AttrOf(0.3f)},
                                                         {"beta", AttrOf(0.75f)}});
                                     }};
    for (const bool training : {true, false})
      QTest::newRow(training ? "FusedBatchNorm training" : "FusedBatchNorm inference") << GradCase{
          {{3, 2, 2, 3}, {3}, {3}}, [training](GraphBuilder& g, const auto& in) {
            const Output mean = ops::Const(g, training ? Tensor(DT_FLOAT, TensorShape({0}))
                                                       : Tensor::Vector<float>({0.1f, -0.2f, 0.3f}));
            const Output variance = ops::Const(g, training ? Tensor(DT_FLOAT, TensorShape({0}))
                                                           : Tensor::Vector<float>({1.5f, 0.7f, 2.0f}));
            return g.AddNode("FusedBatchNorm", {in[0], in[1], in[2], mean, variance},
                             {{"T", AttrOf(DT_FLOAT)}, {"epsilon", AttrOf(0.001f)}, {"is_training", AttrOf(training)}});
          }};
  }
  void floatOnlyOpsMatchFiniteDifferences() {
    QFETCH(GradCase, c);
    std::mt19937 rng(11);
    GraphBuilder g;
    std::vector<Output> inputs;
    std::vector<Tensor> values;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      inputs.push_back(ops::Placeholder(g, DT_FLOAT, PartialShape(c.shapes[i]), "x" + std::to_string(i)));
      const Tensor d = RandomTensor(c.shapes[i], rng, false);
      Tensor f(DT_FLOAT, d.shape());
      for (int64_t k = 0; k < d.NumElements(); ++k) f.data<float>()[k] = static_cast<float>(d.data<double>()[k]);
      values.push_back(f);
    }
    const Output y = c.build(g, inputs);
    Tensor w(DT_FLOAT, TensorShape(g.ShapeOf(y).dims()));
    const Tensor wd = RandomTensor(g.ShapeOf(y).dims(), rng, false);
    for (int64_t k = 0; k < w.NumElements(); ++k) w.data<float>()[k] = static_cast<float>(wd.data<double>()[k]);
    const Output loss = SumAll(g, ops::Mul(g, y, ops::Const(g, w)));
    auto grads = Gradients(g, loss, inputs);
    QVERIFY2(grads.ok(), StatusText(grads.status()));
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    auto feeds_of = [&](const std::vector<Tensor>& v) {
      FeedList feeds;
      for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(inputs[i].name(), v[i]);
      return feeds;
    };
    auto loss_at = [&](const std::vector<Tensor>& v) {
      std::vector<Tensor> out;
      return (*session)->Run(feeds_of(v), {loss.name()}, {}, &out).ok() ? double(out[0].scalar<float>()) : NAN;
    };
    std::vector<std::string> names;
    for (const Output& grad : *grads) names.push_back(grad.name());
    std::vector<Tensor> analytic;
    const Status run = (*session)->Run(feeds_of(values), names, {}, &analytic);
    QVERIFY2(run.ok(), StatusText(run));
    ExpectCentralDifferences<float>(values, analytic, loss_at, 1e-2f, 2e-2);
  }

  void accuracyInTheGraph() {
    // ArgMax, Equal, Cast and Mean: the fraction of rows whose largest logit is the label.
    GraphBuilder g;
    Output logits = ops::Const(
        g, Tensor::Matrix<float>({{0.1f, 0.9f, 0.0f}, {2.0f, 1.0f, 0.5f}, {0.0f, 0.2f, 0.3f}, {1.0f, 3.0f, 2.0f}}));
    Output labels = ops::Const(g, Tensor::Vector<int64_t>({1, 0, 1, 1}));
    Output predicted = ops::ArgMax(g, logits, 1, "predicted");
    Output correct = ops::Cast(g, ops::Equal(g, predicted, labels), DT_FLOAT);
    Output accuracy = ops::Mean(g, correct, ops::Const(g, Tensor::Scalar<int32_t>(0)), false, "accuracy");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    const Status run = (*session)->Run({}, {predicted.name(), accuracy.name()}, {}, &out);
    QVERIFY2(run.ok(), StatusText(run));
    QCOMPARE(out[0].DebugString(), std::string("[1 0 2 1]"));
    QCOMPARE(out[1].scalar<float>(), 0.75f);
  }

  void opWithoutGradientIsNamed() {
    GraphBuilder g;
    Output x = ops::Placeholder(g, DT_FLOAT, PartialShape(TensorShape({3})), "x");
    // Floor has no gradient (it is flat almost everywhere; TensorFlow gives none either).
    Output y = g.AddNode("Floor", {x}, {{"T", AttrOf(DT_FLOAT)}});
    auto grads = Gradients(g, ops::Sum(g, y, ops::Const(g, Tensor::Scalar<int32_t>(0))), {x});
    QVERIFY(!grads.ok());
    QCOMPARE(grads.status().code(), absl::StatusCode::kUnimplemented);
    QVERIFY2(std::string(grads.status().message()).find("op Floor") != std::string::npos, StatusText(grads.status()));
  }

  // Three steps of each optimizer on loss = sum(w^2) (gradient 2w), against the same rule
  // written out here in double precision.
  void optimizersFollowTheirUpdateRules_data() {
    // clang-format off
    QTest::addColumn<QString>("optimizer");
    for (const char* name : {"GradientDescent", "Momentum", "Nesterov", "Adagrad", "RMSProp", "Adam"})
      QTest::newRow(name) << QString(name);
    // clang-format on
  }
  void optimizersFollowTheirUpdateRules() {
    QFETCH(QString, optimizer);
    GraphBuilder g;
    ops::Variable w = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<double>({1.0, -2.0})), "w");
    const Output loss = ops::Sum(g, ops::Square(g, w.read), ops::Const(g, Tensor::Scalar<int32_t>(0)));
    std::unique_ptr<Optimizer> opt;
    if (optimizer == "GradientDescent") opt = std::make_unique<GradientDescentOptimizer>(0.1);
    if (optimizer == "Momentum") opt = std::make_unique<MomentumOptimizer>(0.1, 0.9);
    if (optimizer == "Nesterov") opt = std::make_unique<MomentumOptimizer>(0.1, 0.9, true);
    if (optimizer == "Adagrad") opt = std::make_unique<AdagradOptimizer>(0.1, 0.1);
    if (optimizer == "RMSProp") opt = std::make_unique<RMSPropOptimizer>(0.01, 0.9, 0.5, 1e-10);
    if (optimizer == "Adam") opt = std::make_unique<AdamOptimizer>(0.1);
    auto train = opt->Minimize(g, loss);
    QVERIFY2(train.ok(), StatusText(train.status()));
    const Output init = ops::GlobalVariablesInitializer(g);
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {init.node()}, &out).ok());

    double x[2] = {1.0, -2.0};
    double s1[2] = {0, 0}, s2[2] = {0, 0};
    if (optimizer == "Adagrad") s1[0] = s1[1] = 0.1;
    if (optimizer == "RMSProp") s1[0] = s1[1] = 1.0;
    double b1p = 0.9, b2p = 0.999;
    for (int step = 0; step < 3; ++step) {
      QVERIFY((*session)->Run({}, {}, {train->node()}, &out).ok());
      for (int i = 0; i < 2; ++i) {
        const double grad = 2 * x[i];
        if (optimizer == "GradientDescent") x[i] -= 0.1 * grad;
        if (optimizer == "Momentum") {
          s1[i] = 0.9 * s1[i] + grad;
          x[i] -= 0.1 * s1[i];
        }
        if (optimizer == "Nesterov") {
          s1[i] = 0.9 * s1[i] + grad;
          x[i] -= 0.1 * (grad + 0.9 * s1[i]);
        }
        if (optimizer == "Adagrad") {
          s1[i] += grad * grad;
          x[i] -= 0.1 * grad / std::sqrt(s1[i]);
        }
        if (optimizer == "RMSProp") {
          s1[i] = 0.9 * s1[i] + 0.1 * grad * grad;
          s2[i] = 0.5 * s2[i] + 0.01 * grad / std::sqrt(s1[i] + 1e-10);
          x[i] -= s2[i];
        }
        if (optimizer == "Adam") {
          s1[i] = 0.9 * s1[i] + 0.1 * grad;
          s2[i] = 0.999 * s2[i] + 0.001 * grad * grad;
          x[i] -= 0.1 * std::sqrt(1 - b2p) / (1 - b1p) * s1[i] / (std::sqrt(s2[i]) + 1e-8);
        }
      }
      b1p *= 0.9;
      b2p *= 0.999;
    }
    QVERIFY((*session)->Run({}, {"w:0"}, {}, &out).ok());
    for (int i = 0; i < 2; ++i)
      QVERIFY2(std::abs(out[0].data<double>()[i] - x[i]) < 1e-12,
               qPrintable(QString("w[%1] = %2, expected %3")
                              .arg(i)
                              .arg(out[0].data<double>()[i], 0, 'g', 17)
                              .arg(x[i], 0, 'g', 17)));
  }

  void linearRegressionLearnsItsParameters() {
    // y = 3 x + 2 on 64 points; the loss falls and w, b approach 3 and 2.
    std::vector<float> xs, ys;
    for (int i = 0; i < 64; ++i) {
      const float x = -1.0f + 2.0f * static_cast<float>(i) / 63.0f;
      xs.push_back(x);
      ys.push_back(3.0f * x + 2.0f);
    }
    GraphBuilder g;
    Output global_step = GetOrCreateGlobalStep(g);
    Output x = ops::Const(g, Tensor::FromVector<float>(xs, TensorShape({64, 1})), "x");
    Output y = ops::Const(g, Tensor::FromVector<float>(ys, TensorShape({64, 1})), "y");
    ops::Variable w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<float>({{0.0f}})), "w");
    ops::Variable b = ops::MakeVariable(g, ops::Const(g, Tensor::Vector<float>({0.0f})), "b");
    Output prediction = ops::Add(g, ops::MatMul(g, x, w.read), b.read, "prediction");
    Output loss = ops::Mean(g, ops::Square(g, ops::Sub(g, prediction, y)),
                            ops::Const(g, Tensor::Vector<int32_t>({0, 1})), false, "loss");
    GradientDescentOptimizer sgd(0.2);
    auto train = sgd.Minimize(g, loss, global_step);
    QVERIFY2(train.ok(), StatusText(train.status()));
    Output init = ops::GlobalVariablesInitializer(g);
    QVERIFY2(g.status().ok(), StatusText(g.status()));

    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {init.node()}, &out).ok());
    QVERIFY((*session)->Run({}, {loss.name()}, {}, &out).ok());
    const float first_loss = out[0].scalar<float>();
    for (int step = 0; step < 300; ++step) QVERIFY((*session)->Run({}, {}, {train->node()}, &out).ok());
    QVERIFY((*session)->Run({}, {loss.name(), "w:0", "b:0", "global_step:0"}, {}, &out).ok());
    qInfo("loss %g -> %g, w = %g, b = %g", first_loss, out[0].scalar<float>(), out[1].data<float>()[0],
          out[2].data<float>()[0]);
    QVERIFY(out[0].scalar<float>() < 1e-4f);
    QVERIFY(std::abs(out[1].data<float>()[0] - 3.0f) < 0.02f);
    QVERIFY(std::abs(out[2].data<float>()[0] - 2.0f) < 0.02f);
    QCOMPARE(out[3].scalar<int64_t>(), int64_t(300));
  }

  void sparseGradientsUpdateOnlyTheGatheredRows_data() {
    // clang-format off
    QTest::addColumn<QString>("optimizer");
    QTest::newRow("GradientDescent (ScatterSub)") << QString("sgd");
    QTest::newRow("Momentum (summed into a dense gradient on the ps)") << QString("momentum");
    // clang-format on
  }
  void sparseGradientsUpdateOnlyTheGatheredRows() {
    QFETCH(QString, optimizer);
    GraphBuilder g;
    Tensor initial = Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}});
    ops::Variable emb = ops::MakeVariable(g, ops::Const(g, initial), "emb");
    Output rows = ops::Gather(g, emb.read, ops::Const(g, Tensor::Vector<int32_t>({1, 3, 1})));
    Output loss = SumAll(g, ops::Square(g, rows));
    auto train = optimizer == "sgd" ? GradientDescentOptimizer(0.1).Minimize(g, loss)
                                    : MomentumOptimizer(0.1, 0.9).Minimize(g, loss);
    QVERIFY2(train.ok(), StatusText(train.status()));
    if (optimizer == "sgd") {
      const tensorflow::NodeDef* update = g.FindNode("GradientDescent/update_emb");
      QVERIFY(update != nullptr);
      QCOMPARE(QString::fromStdString(update->op()), QString("ScatterSub"));
    }
    Output init = ops::GlobalVariablesInitializer(g);
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {init.node()}, &out).ok());
    QVERIFY((*session)->Run({}, {}, {train->node()}, &out).ok());
    QVERIFY((*session)->Run({}, {"emb:0"}, {}, &out).ok());
    // d loss / d row = 2 * row per lookup: row 1 is looked up twice, row 3 once.
    const std::vector<float> expected = {
        1, 2, 3 - 0.1f * 4 * 3, 4 - 0.1f * 4 * 4, 5, 6, 7 - 0.1f * 2 * 7, 8 - 0.1f * 2 * 8, 9, 10};
    for (size_t i = 0; i < expected.size(); ++i) QCOMPARE(out[0].data<float>()[i], expected[i]);
  }

  void gradientsRunOnTheWorkerAndUpdatesOnThePs() {
    QTcpServer a, b;
    QVERIFY(a.listen(QHostAddress::LocalHost) && b.listen(QHostAddress::LocalHost));
    const std::map<std::string, std::vector<std::string>> jobs = {
        {"ps", {"127.0.0.1:" + std::to_string(a.serverPort())}},
        {"worker", {"127.0.0.1:" + std::to_string(b.serverPort())}}};
    a.close();
    b.close();
    std::mutex mu;
    std::vector<std::string> lines;
    auto start = [&](const std::string& job) {
      ServerOptions options;
      options.cluster = *ClusterSpec::FromDict(jobs);
      options.job_name = job;
      options.log = [&](const std::string& line) {
        std::lock_guard<std::mutex> lock(mu);
        lines.push_back(line);
      };
      return Server::Create(options);
    };
    auto ps = start("ps");
    auto worker = start("worker");
    QVERIFY(ps.ok() && worker.ok());

    GraphBuilder g;
    ReplicaDeviceSetterOptions setter_options;
    setter_options.worker_device = "/job:worker/task:0";
    setter_options.cluster = jobs;
    auto setter = ReplicaDeviceSetter(setter_options);
    QVERIFY(setter.ok());
    std::string train;
    {
      auto scope = g.WithDevice(*setter);
      Output global_step = GetOrCreateGlobalStep(g);
      Output x = ops::Const(g, Tensor::Matrix<float>({{1, 2}, {3, 4}}), "x");
      ops::Variable w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<float>({{0.5f}, {-0.5f}})), "w");
      ops::Variable emb = ops::MakeVariable(g, ops::Const(g, Tensor(DT_FLOAT, TensorShape({1000, 8}))), "emb");
      Output looked_up = ops::Gather(g, emb.read, ops::Const(g, Tensor::Vector<int32_t>({3, 7})));
      Output loss = ops::Add(
          g, ops::Mean(g, ops::Square(g, ops::MatMul(g, x, w.read)), ops::Const(g, Tensor::Vector<int32_t>({0, 1}))),
          SumAll(g, ops::Square(g, looked_up)));
      auto op = MomentumOptimizer(0.01, 0.9).Minimize(g, loss, global_step);
      QVERIFY2(op.ok(), StatusText(op.status()));
      train = op->node();
    }
    Output init = ops::GlobalVariablesInitializer(g);
    SessionOptions options;
    options.target = (*worker)->target();
    options.config.set_log_device_placement(true);
    auto session = NewSession(options);
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    Status initialised = (*session)->Run({}, {}, {init.node()}, &out);
    QVERIFY2(initialised.ok(), StatusText(initialised));
    for (int i = 0; i < 5; ++i) QVERIFY((*session)->Run({}, {}, {train}, &out).ok());
    QVERIFY((*session)->Run({}, {"global_step:0"}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int64_t>(), int64_t(5));
    std::lock_guard<std::mutex> lock(mu);
    auto placed = [&](const std::string& prefix, const std::string& device) {
      for (const std::string& line : lines)
        if (line.rfind(prefix, 0) == 0 && line.find(device) != std::string::npos) return true;
      return false;
    };
    QVERIFY(placed("Momentum/update_w: (AssignSub)", "/job:ps/replica:0/task:0"));
    // The optimizer's slot lives with its variable.
    QVERIFY(placed("Momentum/w/Momentum: (VariableV2)", "/job:ps/replica:0/task:0"));
    QVERIFY(placed("gradients/MatMul", "/job:worker/replica:0/task:0"));
    // The embedding's gradient travels as 2 rows and their indices; it is summed into the
    // dense [1000, 8] form only on the ps.
    QVERIFY(!placed("gradients/UnsortedSegmentSum", "/job:worker"));
    QVERIFY(placed("Momentum/emb/sparse_to_dense: (UnsortedSegmentSum)", "/job:ps/replica:0/task:0"));
  }
};

QTEST_GUILESS_MAIN(GradientsTest)
#include "tst_gradients.moc"
