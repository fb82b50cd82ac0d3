// The clab::ops wrappers for math, nn and random ops: the node each adds, its attrs, and
// the shapes and types the builder infers through the ops' shape functions.
#include "MathTestUtil.h"

#include "clab/ops/Ops.h"

using namespace clab;
using namespace clab::testing;

namespace {

const tensorflow::AttrValue* Attr(const GraphBuilder& g, const Output& out, const char* name) {
  const tensorflow::NodeDef* node = g.FindNode(out.node());
  if (node == nullptr) return nullptr;
  auto it = node->attr().find(name);
  return it == node->attr().end() ? nullptr : &it->second;
}

}  // namespace

class MathNnRandomBuildersTest : public QObject {
  Q_OBJECT

 private slots:
  void seedProgramMatMul() {
    GraphBuilder g;
    auto x = ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x");
    auto w = ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}}), "w");
    auto y = ops::MatMul(g, x, w);
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    QCOMPARE(QString::fromStdString(y.node()), QString("MatMul"));
    QCOMPARE(g.FindNode("MatMul")->op(), std::string("MatMul"));
    QCOMPARE(g.TypeOf(y), DT_INT32);
    QCOMPARE(g.ShapeOf(y), (PartialShape{1, 1}));
    QCOMPARE(Attr(g, y, "transpose_a")->b(), false);
    QCOMPARE(Attr(g, y, "T")->type(), DT_INT32);

    auto yt = ops::MatMul(g, x, x, false, true, "gram");
    QCOMPARE(QString::fromStdString(yt.node()), QString("gram"));
    QCOMPARE(Attr(g, yt, "transpose_b")->b(), true);
    QCOMPARE(g.ShapeOf(yt), (PartialShape{1, 1}));
  }

  void shapeMismatchIsRecorded() {
    GraphBuilder g;
    auto a = ops::Placeholder(g, DT_FLOAT, PartialShape{1, 4}, "a");
    auto b = ops::Placeholder(g, DT_FLOAT, PartialShape{3, 1}, "b");
    ops::MatMul(g, a, b);
    QCOMPARE(g.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(g.status()).contains("Dimensions must be equal, but are 4 and 3 for 'MatMul' (op: 'MatMul')"),
             qPrintable(Q(g.status())));
  }

  void elementwiseAndNn() {
    GraphBuilder g;
    auto x = ops::Placeholder(g, DT_FLOAT, PartialShape{-1, 3}, "x");
    auto b = ops::Const(g, Tensor::Vector<float>({1, 2, 3}), "b");
    auto sum = ops::Add(g, x, b);
    QCOMPARE(g.FindNode(sum.node())->op(), std::string("AddV2"));
    QCOMPARE(g.ShapeOf(sum), (PartialShape{-1, 3}));
    const std::pair<Output, const char*> built[] = {
        {ops::Sub(g, x, b), "Sub"},
        {ops::Mul(g, x, b), "Mul"},
        {ops::RealDiv(g, x, b), "RealDiv"},
        {ops::Neg(g, x), "Neg"},
        {ops::Square(g, x), "Square"},
        {ops::Sqrt(g, x), "Sqrt"},
        {ops::Exp(g, x), "Exp"},
        {ops::Log(g, x), "Log"},
        {ops::Relu(g, x), "Relu"},
        {ops::Sigmoid(g, x), "Sigmoid"},
        {ops::Tanh(g, x), "Tanh"},
        {ops::Softmax(g, x, "probabilities"), "Softmax"},
    };
    for (const auto& [out, op] : built) {
      QCOMPARE(g.FindNode(out.node())->op(), std::string(op));
      QCOMPARE(g.TypeOf(out), DT_FLOAT);
      QCOMPARE(g.ShapeOf(out), (PartialShape{-1, 3}));
    }
    QVERIFY(g.FindNode("probabilities") != nullptr);
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
  }

  void reductions() {
    GraphBuilder g;
    auto x = ops::Placeholder(g, DT_DOUBLE, PartialShape{2, 3, 4}, "x");
    auto axes = ops::Const(g, Tensor::Vector<int64_t>({-1}), "axes");
    auto sum = ops::Sum(g, x, axes);
    auto mean = ops::Mean(g, x, axes, true, "mean");
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    QCOMPARE(Attr(g, sum, "Tidx")->type(), DT_INT64);
    QCOMPARE(Attr(g, sum, "keep_dims")->b(), false);
    QCOMPARE(g.ShapeOf(sum), (PartialShape{2, 3}));
    QCOMPARE(g.ShapeOf(mean), (PartialShape{2, 3, 1}));
  }

  void random() {
    GraphBuilder g;
    auto shape = ops::Const(g, Tensor::Vector<int32_t>({4, 5}), "shape");
    auto u = ops::RandomUniform(g, shape, DT_FLOAT, 7, 9);
    auto n = ops::RandomStandardNormal(g, shape, DT_DOUBLE);
    auto t = ops::TruncatedNormal(g, shape, DT_FLOAT, 1, 0, "init");
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    QCOMPARE(g.FindNode(u.node())->op(), std::string("RandomUniform"));
    QCOMPARE(Attr(g, u, "seed")->i(), int64_t{7});
    QCOMPARE(Attr(g, u, "seed2")->i(), int64_t{9});
    QCOMPARE(g.TypeOf(u), DT_FLOAT);
    QCOMPARE(g.TypeOf(n), DT_DOUBLE);
    QCOMPARE(Attr(g, n, "seed")->i(), int64_t{0});
    QCOMPARE(g.ShapeOf(t), (PartialShape{4, 5}));
    QCOMPARE(QString::fromStdString(t.node()), QString("init"));
  }
};

QTEST_APPLESS_MAIN(MathNnRandomBuildersTest)
#include "tst_math_nn_random_builders.moc"
