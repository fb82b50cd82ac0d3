// Shape functions of the math, nn and random ops: output shapes from partial input shapes
// (and constant inputs), and the errors that reject known mismatches before a run.
#include "MathTestUtil.h"

using namespace clab;
using namespace clab::testing;

namespace {

tensorflow::NodeDef MatMulNode(bool ta = false, bool tb = false) {
  return MakeNode("MatMul", "MatMul", {"a", "b"},
                  {{"T", AttrOf(DT_FLOAT)}, {"transpose_a", AttrOf(ta)}, {"transpose_b", AttrOf(tb)}});
}

tensorflow::NodeDef SumNode(bool keep_dims) {
  return MakeNode("Sum", "Sum", {"x", "axes"},
                  {{"T", AttrOf(DT_FLOAT)}, {"Tidx", AttrOf(DT_INT32)}, {"keep_dims", AttrOf(keep_dims)}});
}

tensorflow::NodeDef RandomNode() {
  return MakeNode("r", "RandomUniform", {"shape"}, {{"dtype", AttrOf(DT_FLOAT)}, {"T", AttrOf(DT_INT32)}});
}

}  // namespace

class MathShapeFnsTest : public QObject {
  Q_OBJECT

 private slots:
  void matMul_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("a");
    QTest::addColumn<PartialShape>("b");
    QTest::addColumn<bool>("ta");
    QTest::addColumn<bool>("tb");
    QTest::addColumn<PartialShape>("out");
    QTest::newRow("seed program") << PartialShape{1, 4} << PartialShape{4, 1} << false << false << PartialShape{1, 1};
    QTest::newRow("transpose a") << PartialShape{4, 2} << PartialShape{4, 3} << true << false << PartialShape{2, 3};
    QTest::newRow("transpose b") << PartialShape{2, 4} << PartialShape{3, 4} << false << true << PartialShape{2, 3};
    QTest::newRow("unknown batch") << PartialShape{-1, 4} << PartialShape{4, 10} << false << false
                                   << PartialShape{-1, 10};
    QTest::newRow("unknown inner") << PartialShape{2, -1} << PartialShape{4, 3} << false << false << PartialShape{2, 3};
    QTest::newRow("unknown rank") << PartialShape() << PartialShape{4, 3} << false << false << PartialShape{-1, 3};
    // clang-format on
  }
  void matMul() {
    QFETCH(PartialShape, a);
    QFETCH(PartialShape, b);
    QFETCH(bool, ta);
    QFETCH(bool, tb);
    QFETCH(PartialShape, out);
    QCOMPARE(OutputShape(MatMulNode(ta, tb), {a, b}), out);
  }

  void matMulErrors_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("a");
    QTest::addColumn<PartialShape>("b");
    QTest::addColumn<bool>("tb");
    QTest::addColumn<QString>("message");
    QTest::newRow("inner mismatch") << PartialShape{1, 4} << PartialShape{3, 1} << false
                                    << "Dimensions must be equal, but are 4 and 3 for 'MatMul' (op: 'MatMul') with "
                                       "input shapes: [1,4], [3,1].";
    QTest::newRow("mismatch after transpose") << PartialShape{2, 3} << PartialShape{2, 4} << true
                                              << "Dimensions must be equal, but are 3 and 4 for 'MatMul' (op: "
                                                 "'MatMul') with input shapes: [2,3], [2,4].";
    QTest::newRow("rank 3") << PartialShape{2, 3, 4} << PartialShape{4, 1} << false
                            << "Shape must be rank 2 but is rank 3 for 'MatMul' (op: 'MatMul') with input shapes: "
                               "[2,3,4], [4,1].";
    // clang-format on
  }
  void matMulErrors() {
    QFETCH(PartialShape, a);
    QFETCH(PartialShape, b);
    QFETCH(bool, tb);
    QFETCH(QString, message);
    auto shapes = InferShapes(MatMulNode(false, tb), {a, b});
    QCOMPARE(shapes.status().code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(Q(shapes.status()), "INVALID_ARGUMENT: " + message);
  }

  void broadcast_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("x");
    QTest::addColumn<PartialShape>("y");
    QTest::addColumn<PartialShape>("out");
    QTest::newRow("same") << PartialShape{2, 3} << PartialShape{2, 3} << PartialShape{2, 3};
    QTest::newRow("vector") << PartialShape{2, 3} << PartialShape{3} << PartialShape{2, 3};
    QTest::newRow("scalar") << PartialShape::Scalar() << PartialShape{5, 1} << PartialShape{5, 1};
    QTest::newRow("ones both ways") << PartialShape{4, 1} << PartialShape{1, 5} << PartialShape{4, 5};
    QTest::newRow("unknown vs known") << PartialShape{-1, 3} << PartialShape{7, 3} << PartialShape{7, 3};
    QTest::newRow("unknown vs one") << PartialShape{-1, 3} << PartialShape{1, 3} << PartialShape{-1, 3};
    QTest::newRow("unknown vs unknown") << PartialShape{-1} << PartialShape{-1} << PartialShape{-1};
    QTest::newRow("unknown rank") << PartialShape() << PartialShape{3} << PartialShape();
    // clang-format on
  }
  void broadcast() {
    QFETCH(PartialShape, x);
    QFETCH(PartialShape, y);
    QFETCH(PartialShape, out);
    for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv"})
      QCOMPARE(OutputShape(BinaryNode(op, DT_FLOAT), {x, y}), out);
  }

  void broadcastError() {
    auto shapes = InferShapes(BinaryNode("AddV2", DT_FLOAT), {PartialShape{2, 3}, PartialShape{4}});
    QCOMPARE(Q(shapes.status()), QString("INVALID_ARGUMENT: Dimensions must be equal, but are 3 and 4 for 'AddV2' "
                                         "(op: 'AddV2') with input shapes: [2,3], [4]."));
  }

  void unaryKeepsShape() {
    for (const char* op : {"Neg", "Square", "Sqrt", "Exp", "Log", "Relu", "Sigmoid", "Tanh", "Softmax"}) {
      QCOMPARE(OutputShape(UnaryNode(op, DT_FLOAT), {PartialShape{-1, 10}}), (PartialShape{-1, 10}));
      QCOMPARE(OutputShape(UnaryNode(op, DT_FLOAT), {PartialShape()}), PartialShape());
    }
    auto scalar = InferShapes(UnaryNode("Softmax", DT_FLOAT), {PartialShape::Scalar()});
    QCOMPARE(Q(scalar.status()), QString("INVALID_ARGUMENT: Shape must be at least rank 1 but is rank 0 for 'Softmax' "
                                         "(op: 'Softmax') with input shapes: []."));
  }

  void reduction_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("input");
    QTest::addColumn<Tensor>("axes");  // an uninitialised Tensor: not a constant
    QTest::addColumn<PartialShape>("axes_shape");
    QTest::addColumn<bool>("keep_dims");
    QTest::addColumn<PartialShape>("out");
    QTest::newRow("constant axis") << PartialShape{2, 3, 4} << Tensor::Vector<int32_t>({1}) << PartialShape{1} << false
                                   << PartialShape{2, 4};
    QTest::newRow("negative, keep") << PartialShape{2, 3, 4} << Tensor::Vector<int32_t>({-1, 0}) << PartialShape{2}
                                    << true << PartialShape{1, 3, 1};
    QTest::newRow("scalar axis") << PartialShape{-1, 5} << Tensor::Scalar<int32_t>(0) << PartialShape::Scalar() << false
                                 << PartialShape{5};
    QTest::newRow("unknown axes") << PartialShape{2, 3} << Tensor() << PartialShape{1} << false << PartialShape();
    QTest::newRow("unknown axes, keep") << PartialShape{2, 3} << Tensor() << PartialShape{1} << true
                                        << PartialShape{-1, -1};
    QTest::newRow("empty axes") << PartialShape{2, -1} << Tensor() << PartialShape{0} << false << PartialShape{2, -1};
    QTest::newRow("unknown rank") << PartialShape() << Tensor::Vector<int32_t>({0}) << PartialShape{1} << false
                                  << PartialShape();
    // clang-format on
  }
  void reduction() {
    QFETCH(PartialShape, input);
    QFETCH(Tensor, axes);
    QFETCH(PartialShape, axes_shape);
    QFETCH(bool, keep_dims);
    QFETCH(PartialShape, out);
    QCOMPARE(OutputShape(SumNode(keep_dims), {input, axes_shape}, {nullptr, axes.IsInitialized() ? &axes : nullptr}),
             out);
  }

  void reductionError() {
    const Tensor axes = Tensor::Vector<int32_t>({2});
    auto shapes = InferShapes(SumNode(false), {PartialShape{2, 3}, PartialShape{1}}, {nullptr, &axes});
    QCOMPARE(shapes.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(shapes.status())
                 .startsWith("INVALID_ARGUMENT: Invalid reduction dimension 2 for input with 2 "
                             "dimension(s) for 'Sum' (op: 'Sum')"),
             qPrintable(Q(shapes.status())));
  }

  void random() {
    const Tensor dims = Tensor::Vector<int32_t>({3, 4});
    QCOMPARE(OutputShape(RandomNode(), {PartialShape{2}}, {&dims}), (PartialShape{3, 4}));
    QCOMPARE(OutputShape(RandomNode(), {PartialShape{3}}), PartialShape::UnknownOfRank(3));
    QCOMPARE(OutputShape(RandomNode(), {PartialShape{-1}}), PartialShape());
    const Tensor negative = Tensor::Vector<int32_t>({3, -4});
    auto shapes = InferShapes(RandomNode(), {PartialShape{2}}, {&negative});
    QCOMPARE(shapes.status().code(), absl::StatusCode::kInvalidArgument);
    auto matrix = InferShapes(RandomNode(), {PartialShape{2, 2}});
    QVERIFY(Q(matrix.status()).contains("Shape must be rank 1 but is rank 2"));
  }
};

QTEST_APPLESS_MAIN(MathShapeFnsTest)
#include "tst_math_shape_fns.moc"
