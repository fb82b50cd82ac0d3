// Resource variables in a session: VarHandleOp's handle, AssignVariableOp,
// AssignAddVariableOp, AssignSubVariableOp, ReadVariableOp, VarIsInitializedOp and
// ResourceGather, a handle passed through Identity (as tf.cond passes one through Switch),
// two handles of one shared_name naming one variable, the ResourceApply* optimizer updates
// (against their formulas worked out by hand), and the errors: reading before any
// assignment, a dtype other than the variable's, a shape other than the declared one, a
// gather index out of range.
#include "StatusText.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"

#include <QtTest/QtTest>

using namespace clab;
using clab::testing::StatusText;

namespace {

Output Handle(GraphBuilder& g, const std::string& name, DataType dtype, const PartialShape& shape,
              const std::string& shared_name = "") {
  return g.AddNode("VarHandleOp", {},
                   {{"dtype", AttrOf(dtype)}, {"shape", AttrOf(shape)}, {"shared_name", AttrOf(shared_name)}}, name);
}

Output Write(GraphBuilder& g, const char* op, const Output& handle, const Output& value, DataType dtype,
             const std::string& name) {
  g.AddNode(op, {handle, value}, {{"dtype", AttrOf(dtype)}}, name);
  return Output(name);
}

Output Read(GraphBuilder& g, const Output& handle, DataType dtype, const std::string& name) {
  return g.AddNode("ReadVariableOp", {handle}, {{"dtype", AttrOf(dtype)}}, name);
}

std::string Message(const Status& s) { return std::string(s.message()); }

}  // namespace

class ResourceVariablesTest : public QObject {
  Q_OBJECT

 private slots:
  void assignReadAddSubtractAndGather() {
    GraphBuilder g;
    const Output v = Handle(g, "v", DT_FLOAT, PartialShape({3, 2}));
    const Output init = ops::Const(g, Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}}));
    Write(g, "AssignVariableOp", v, init, DT_FLOAT, "assign");
    Write(g, "AssignAddVariableOp", v, ops::Const(g, Tensor::Matrix<float>({{1, 1}, {1, 1}, {1, 1}})), DT_FLOAT, "add");
    Write(g, "AssignSubVariableOp", v, ops::Const(g, Tensor::Matrix<float>({{0, 0}, {0, 0}, {0, 4}})), DT_FLOAT, "sub");
    const Output is_init = g.AddNode("VarIsInitializedOp", {v}, {}, "is_init");
    // The handle through Identity, as a tf.cond's Switch passes it.
    const Output passed = g.AddNode("Identity", {v}, {{"T", AttrOf(tensorflow::DT_RESOURCE)}}, "passed");
    const Output read = Read(g, passed, DT_FLOAT, "read");
    const Output rows = g.AddNode("ResourceGather", {v, ops::Const(g, Tensor::Matrix<int32_t>({{2, 0}}))},
                                  {{"dtype", AttrOf(DT_FLOAT)}, {"Tindices", AttrOf(DT_INT32)}}, "gather");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {is_init.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<bool>(), false);
    QVERIFY((*session)->Run({}, {}, {"assign"}, &out).ok());
    QVERIFY((*session)->Run({}, {is_init.name(), read.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<bool>(), true);
    QVERIFY(out[1].Equals(Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}})));
    const Tensor before = out[1];
    QVERIFY((*session)->Run({}, {}, {"add"}, &out).ok());
    QVERIFY((*session)->Run({}, {}, {"sub"}, &out).ok());
    // A value read before the writes keeps its value.
    QVERIFY(before.Equals(Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}})));
    const Status run = (*session)->Run({}, {read.name(), rows.name()}, {}, &out);
    QVERIFY2(run.ok(), StatusText(run));
    QVERIFY(out[0].Equals(Tensor::Matrix<float>({{2, 3}, {4, 5}, {6, 3}})));
    QVERIFY2(out[1].Equals(Tensor::FromVector<float>({6, 3, 2, 3}, TensorShape({1, 2, 2}))),
             out[1].DebugString().c_str());
  }

  void sharedNameIsOneVariable() {
    GraphBuilder g;
    const Output a = Handle(g, "a", DT_INT32, PartialShape({}), "counter");
    const Output b = Handle(g, "b", DT_INT32, PartialShape({}), "counter");
    Write(g, "AssignVariableOp", a, ops::Const(g, Tensor::Scalar<int32_t>(40)), DT_INT32, "set");
    Write(g, "AssignAddVariableOp", b, ops::Const(g, Tensor::Scalar<int32_t>(2)), DT_INT32, "bump");
    const Output read = Read(g, a, DT_INT32, "read");
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    QVERIFY((*session)->Run({}, {}, {"set"}, &out).ok());
    QVERIFY((*session)->Run({}, {}, {"bump"}, &out).ok());
    QVERIFY((*session)->Run({}, {read.name()}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int32_t>(), 42);
  }

  // var -= 0.5 * [2, 4]; Momentum: accum = 0.5 * 0.9 + 2 = 2.45, var = 1 - 0.1 * 2.45;
  // Adagrad: accum = 1 + 1, var = 1 - 0.1 * 1 / sqrt(2). A value read before keeps its value.
  void resourceApplyUpdates() {
    GraphBuilder g;
    auto scalar = [&](float v) { return ops::Const(g, Tensor::Scalar<float>(v)); };
    auto vector = [&](std::vector<float> v) { return ops::Const(g, Tensor::Vector<float>(v)); };
    const Output w = Handle(g, "w", DT_FLOAT, PartialShape({2}));
    const Output m = Handle(g, "m", DT_FLOAT, PartialShape({1}));
    const Output m_accum = Handle(g, "m_accum", DT_FLOAT, PartialShape({1}));
    const Output a = Handle(g, "a", DT_FLOAT, PartialShape({1}));
    const Output a_accum = Handle(g, "a_accum", DT_FLOAT, PartialShape({1}));
    const Output init[] = {Write(g, "AssignVariableOp", w, vector({1, 2}), DT_FLOAT, "init_w"),
                           Write(g, "AssignVariableOp", m, vector({1}), DT_FLOAT, "init_m"),
                           Write(g, "AssignVariableOp", m_accum, vector({0.5f}), DT_FLOAT, "init_m_accum"),
                           Write(g, "AssignVariableOp", a, vector({1}), DT_FLOAT, "init_a"),
                           Write(g, "AssignVariableOp", a_accum, vector({1}), DT_FLOAT, "init_a_accum")};
    const std::map<std::string, tensorflow::AttrValue> t = {{"T", AttrOf(DT_FLOAT)}};
    g.AddNode("ResourceApplyGradientDescent", {w, scalar(0.5f), vector({2, 4})}, t, "sgd");
    g.AddNode("ResourceApplyMomentum", {m, m_accum, scalar(0.1f), vector({2}), scalar(0.9f)}, t, "momentum");
    g.AddNode("ResourceApplyAdagrad", {a, a_accum, scalar(0.1f), vector({1})}, t, "adagrad");
    const Output read_w = Read(g, w, DT_FLOAT, "read_w");
    Read(g, m, DT_FLOAT, "read_m");
    Read(g, m_accum, DT_FLOAT, "read_m_accum");
    Read(g, a, DT_FLOAT, "read_a");
    Read(g, a_accum, DT_FLOAT, "read_a_accum");
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    for (const Output& op : init) QVERIFY((*session)->Run({}, {}, {op.node()}, &out).ok());
    QVERIFY((*session)->Run({}, {read_w.name()}, {}, &out).ok());
    const Tensor before = out[0];
    const Status run = (*session)->Run({}, {}, {"sgd", "momentum", "adagrad"}, &out);
    QVERIFY2(run.ok(), StatusText(run));
    QVERIFY(
        (*session)->Run({}, {"read_w:0", "read_m:0", "read_m_accum:0", "read_a:0", "read_a_accum:0"}, {}, &out).ok());
    QVERIFY(before.Equals(Tensor::Vector<float>({1, 2})));
    QVERIFY2(out[0].Equals(Tensor::Vector<float>({0, 0})), out[0].DebugString().c_str());
    QVERIFY(std::abs(out[1].data<float>()[0] - 0.755f) < 1e-6f);
    QVERIFY(std::abs(out[2].data<float>()[0] - 2.45f) < 1e-6f);
    QVERIFY(std::abs(out[3].data<float>()[0] - (1.0f - 0.1f / std::sqrt(2.0f))) < 1e-6f);
    QCOMPARE(out[4].data<float>()[0], 2.0f);
  }

  void errorsNameTheVariable() {
    GraphBuilder g;
    const Output v = Handle(g, "v", DT_FLOAT, PartialShape({2}));
    Read(g, v, DT_FLOAT, "read");
    Read(g, v, DT_INT32, "read_int");
    Write(g, "AssignVariableOp", v, ops::Const(g, Tensor::Vector<float>({1, 2, 3})), DT_FLOAT, "too_long");
    Write(g, "AssignVariableOp", v, ops::Const(g, Tensor::Vector<float>({1, 2})), DT_FLOAT, "assign");
    g.AddNode("ResourceGather", {v, ops::Const(g, Tensor::Vector<int64_t>({2}))},
              {{"dtype", AttrOf(DT_FLOAT)}, {"Tindices", AttrOf(DT_INT64)}}, "gather");
    auto session = NewSession(SessionOptions());
    QVERIFY((*session)->Create(g.graph_def()).ok());
    std::vector<Tensor> out;
    Status s = (*session)->Run({}, {"read:0"}, {}, &out);
    QCOMPARE(s.code(), absl::StatusCode::kFailedPrecondition);
    QVERIFY2(Message(s).find("resource variable v") != std::string::npos &&
                 Message(s).find("uninitialized") != std::string::npos,
             StatusText(s));
    s = (*session)->Run({}, {}, {"too_long"}, &out);
    QCOMPARE(s.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Message(s).find("declared [2]") != std::string::npos, StatusText(s));
    QVERIFY((*session)->Run({}, {}, {"assign"}, &out).ok());
    s = (*session)->Run({}, {"read_int:0"}, {}, &out);
    QCOMPARE(s.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Message(s).find("holds float") != std::string::npos, StatusText(s));
    s = (*session)->Run({}, {"gather:0"}, {}, &out);
    QCOMPARE(s.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Message(s).find("indices[0] = 2 is not in [0, 2)") != std::string::npos, StatusText(s));
  }
};

QTEST_GUILESS_MAIN(ResourceVariablesTest)
#include "tst_resource_variables.moc"
