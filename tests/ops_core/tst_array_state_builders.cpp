// The clab::ops wrappers for array and state ops: node names, op types, attrs taken from
// the inputs, and the shapes and types a GraphBuilder infers through the registry.
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"

#include <QtTest>

using namespace clab;

namespace {

// PartialShape{} is the unknown shape (its default constructor); a scalar needs dims.
PartialShape ScalarShape() { return PartialShape(std::vector<int64_t>{}); }

QString Q(const absl::Status& s) { return QString::fromStdString(FormatStatus(s)); }

DataType TypeAttr(const GraphBuilder& g, const Output& out, const char* attr) {
  DataType dtype = DT_INVALID;
  const tensorflow::NodeDef* node = g.FindNode(out.node());
  if (node == nullptr || !GetNodeAttr(*node, attr, &dtype).ok()) return DT_INVALID;
  return dtype;
}

}  // namespace

class ArrayStateBuildersTest : public QObject {
  Q_OBJECT

 private slots:
  void seedProgramPieces() {
    GraphBuilder g;
    auto x = ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x");
    auto p = ops::Placeholder(g, DT_FLOAT, PartialShape{-1, 3});
    auto w = ops::VariableV2(g, PartialShape{4, 1}, DT_INT32, "w");
    auto init = ops::Assign(g, w, ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}})));
    auto read = ops::Identity(g, w, "w/read");
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));

    QCOMPARE(QString::fromStdString(x.node()), QString("x"));
    QCOMPARE(QString::fromStdString(p.node()), QString("Placeholder"));
    QCOMPARE(QString::fromStdString(init.node()), QString("Assign"));
    QCOMPARE(g.FindNode("x")->op(), std::string("Const"));
    QCOMPARE(g.TypeOf(x), DT_INT32);
    QCOMPARE(g.ShapeOf(x), (PartialShape{1, 4}));
    QCOMPARE(g.ShapeOf(p), (PartialShape{-1, 3}));
    QCOMPARE(g.TypeOf(w), tensorflow::DT_INT32_REF);
    QCOMPARE(g.ShapeOf(w), (PartialShape{4, 1}));
    QCOMPARE(TypeAttr(g, init, "T"), DT_INT32);
    QCOMPARE(g.TypeOf(init), tensorflow::DT_INT32_REF);
    QCOMPARE(TypeAttr(g, read, "T"), DT_INT32);
    QCOMPARE(g.TypeOf(read), DT_INT32);
    QCOMPARE(g.ShapeOf(read), (PartialShape{4, 1}));
    // Defaults are filled in.
    bool validate = false;
    QVERIFY(GetNodeAttr(*g.FindNode("Assign"), "validate_shape", &validate).ok());
    QVERIFY(validate);
  }

  void arrayWrappersInferShapes() {
    GraphBuilder g;
    auto m = ops::Const(g, Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}}), "m");
    auto r = ops::Reshape(g, m, ops::Const(g, Tensor::Vector<int64_t>({3, -1})));
    auto t = ops::Transpose(g, m, ops::Const(g, Tensor::Vector<int32_t>({1, 0})));
    auto c = ops::Cast(g, m, DT_INT64);
    auto f = ops::Fill(g, ops::Const(g, Tensor::Vector<int32_t>({2, 2})), ops::Const(g, Tensor::Scalar<double>(1)));
    auto z = ops::ZerosLike(g, m);
    auto o = ops::OnesLike(g, c);
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    QCOMPARE(g.ShapeOf(r), (PartialShape{3, 2}));
    QCOMPARE(TypeAttr(g, r, "Tshape"), DT_INT64);
    QCOMPARE(g.ShapeOf(t), (PartialShape{3, 2}));
    QCOMPARE(g.TypeOf(c), DT_INT64);
    QCOMPARE(TypeAttr(g, c, "SrcT"), DT_FLOAT);
    QCOMPARE(g.ShapeOf(f), (PartialShape{2, 2}));
    QCOMPARE(g.TypeOf(f), DT_DOUBLE);
    QCOMPARE(g.ShapeOf(z), (PartialShape{2, 3}));
    QCOMPARE(g.TypeOf(o), DT_INT64);
  }

  void noOpTakesControlInputs() {
    GraphBuilder g;
    auto a = ops::Const(g, Tensor::Scalar<float>(1), "a");
    auto b = ops::Const(g, Tensor::Scalar<float>(2), "b");
    auto init = ops::NoOp(g, {a, b}, "init");
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    const auto* node = g.FindNode("init");
    QVERIFY(node != nullptr);
    QCOMPARE(node->input_size(), 2);
    QCOMPARE(node->input(0), std::string("^a"));
    QCOMPARE(node->input(1), std::string("^b"));
    QCOMPARE(QString::fromStdString(init.node()), QString("init"));
  }

  void updatesTakeTheVariablesType() {
    GraphBuilder g;
    auto step = ops::VariableV2(g, ScalarShape(), DT_INT64, "global_step");
    auto add = ops::AssignAdd(g, step, ops::Const(g, Tensor::Scalar<int64_t>(1)));
    auto sub = ops::AssignSub(g, step, ops::Const(g, Tensor::Scalar<int64_t>(1)));
    QVERIFY2(g.status().ok(), qPrintable(Q(g.status())));
    QCOMPARE(TypeAttr(g, add, "T"), DT_INT64);
    QCOMPARE(TypeAttr(g, sub, "T"), DT_INT64);
    QCOMPARE(g.ShapeOf(add), ScalarShape());
  }

  void shapeMismatchIsRecorded() {
    GraphBuilder g;
    auto w = ops::VariableV2(g, PartialShape{2}, DT_FLOAT, "w");
    ops::Assign(g, w, ops::Const(g, Tensor::Vector<float>({1, 2, 3})));
    QVERIFY(!g.status().ok());
    QVERIFY2(Q(g.status()).contains("for 'Assign' (op: 'Assign') with input shapes: [2], [3]"),
             qPrintable(Q(g.status())));
  }
};

QTEST_APPLESS_MAIN(ArrayStateBuildersTest)
#include "tst_array_state_builders.moc"
