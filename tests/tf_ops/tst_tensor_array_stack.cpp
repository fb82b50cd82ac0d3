// TensorArrays and stacks in a session (each lives for the step that made it): scatter,
// write, read, gather, size; a dynamic_size array growing; a gradient array adding writes to
// one index and reading zeros where nothing arrived; the errors TensorFlow gives (writing an
// index twice, reading one never written or already cleared, writing past a fixed size);
// stacks pushing and popping in order, V2 and the old ref-handle ops, and popping an empty
// stack. Ops of one step are ordered by control edges, as TensorFlow's flow values do.
#include "StatusText.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"
#include "clab/runtime/Session.h"

#include <QtTest/QtTest>

using namespace clab;
using clab::testing::StatusText;

namespace {

using Attrs = std::map<std::string, tensorflow::AttrValue>;

Output I32(GraphBuilder& g, int32_t v) { return ops::Const(g, Tensor::Scalar<int32_t>(v)); }
Output I32s(GraphBuilder& g, std::vector<int32_t> v) { return ops::Const(g, Tensor::Vector<int32_t>(v)); }

// A TensorArray of floats; outputs handle (0) and flow (1).
std::string MakeArray(GraphBuilder& g, const std::string& name, int32_t size, Attrs extra = {}) {
  extra["dtype"] = AttrOf(DT_FLOAT);
  g.AddNode("TensorArrayV3", {I32(g, size)}, extra, name);
  return name;
}

Output After(GraphBuilder& g, const char* op, std::vector<Output> inputs, Attrs attrs, const std::string& name,
             const std::vector<Output>& after) {
  for (const Output& dep : after) inputs.push_back(dep.control());
  return g.AddNode(op, inputs, attrs, name);
}

struct Run {
  Status status;
  std::vector<Tensor> out;
};

Run RunGraph(const GraphBuilder& g, const std::vector<std::string>& fetches) {
  Run run;
  auto session = NewSession(SessionOptions());
  run.status = (*session)->Create(g.graph_def());
  if (run.status.ok()) run.status = (*session)->Run({}, fetches, {}, &run.out);
  return run;
}

}  // namespace

class TensorArrayStackTest : public QObject {
  Q_OBJECT

 private slots:
  void scatterWriteReadGatherSize() {
    GraphBuilder g;
    const std::string ta = MakeArray(g, "ta", 3, {{"clear_after_read", AttrOf(false)}});
    const Output handle(ta, 0), flow(ta, 1);
    const Output scattered =
        After(g, "TensorArrayScatterV3",
              {handle, I32s(g, {2, 0}), ops::Const(g, Tensor::Matrix<float>({{1, 2}, {3, 4}})), flow},
              {{"T", AttrOf(DT_FLOAT)}}, "scatter", {});
    const Output written =
        After(g, "TensorArrayWriteV3", {handle, I32(g, 1), ops::Const(g, Tensor::Vector<float>({5, 6})), scattered},
              {{"T", AttrOf(DT_FLOAT)}}, "write", {});
    After(g, "TensorArrayReadV3", {handle, I32(g, 2), written}, {{"dtype", AttrOf(DT_FLOAT)}}, "read", {written});
    After(g, "TensorArrayGatherV3", {handle, I32s(g, {0, 1, 2}), written}, {{"dtype", AttrOf(DT_FLOAT)}}, "gather",
          {written});
    After(g, "TensorArraySizeV3", {handle, written}, {}, "size", {written});
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Run r = RunGraph(g, {"read:0", "gather:0", "size:0"});
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QVERIFY(r.out[0].Equals(Tensor::Vector<float>({1, 2})));
    QVERIFY2(r.out[1].Equals(Tensor::Matrix<float>({{3, 4}, {5, 6}, {1, 2}})), r.out[1].DebugString().c_str());
    QCOMPARE(r.out[2].scalar<int32_t>(), 3);
  }

  void dynamicSizeGrows() {
    GraphBuilder g;
    const std::string ta = MakeArray(g, "ta", 0, {{"dynamic_size", AttrOf(true)}});
    const Output w = After(g, "TensorArrayWriteV3",
                           {Output(ta, 0), I32(g, 4), ops::Const(g, Tensor::Scalar<float>(7)), Output(ta, 1)},
                           {{"T", AttrOf(DT_FLOAT)}}, "write", {});
    After(g, "TensorArraySizeV3", {Output(ta, 0), w}, {}, "size", {w});
    Run r = RunGraph(g, {"size:0"});
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 5);
  }

  void gradientArrayAddsWrites() {
    GraphBuilder g;
    const std::string ta = MakeArray(g, "ta", 3, {{"element_shape", AttrOf(PartialShape({2}))}});
    const Output grad =
        After(g, "TensorArrayGradV3", {Output(ta, 0), Output(ta, 1)}, {{"source", AttrOf("gradients")}}, "grad", {});
    const Output w1 = After(g, "TensorArrayWriteV3",
                            {grad, I32(g, 1), ops::Const(g, Tensor::Vector<float>({1, 2})), Output("grad", 1)},
                            {{"T", AttrOf(DT_FLOAT)}}, "w1", {});
    const Output w2 =
        After(g, "TensorArrayWriteV3", {grad, I32(g, 1), ops::Const(g, Tensor::Vector<float>({10, 20})), w1},
              {{"T", AttrOf(DT_FLOAT)}}, "w2", {w1});
    After(g, "TensorArrayGatherV3", {grad, I32s(g, {0, 1}), w2}, {{"dtype", AttrOf(DT_FLOAT)}}, "gather", {w2});
    Run r = RunGraph(g, {"gather:0"});
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QVERIFY2(r.out[0].Equals(Tensor::Matrix<float>({{0, 0}, {11, 22}})), r.out[0].DebugString().c_str());
  }

  void errors_data() {
    QTest::addColumn<QString>("case_name");
    QTest::addColumn<QString>("message");
    QTest::newRow("write twice") << "write twice"
                                 << "because it has already been written to";
    QTest::newRow("read unwritten") << "read unwritten"
                                    << "because it has not yet been written to";
    QTest::newRow("read twice") << "read twice"
                                << "cleared after a previous read";
    QTest::newRow("past fixed size") << "past fixed size"
                                     << "array is not resizeable and size is: 2";
  }
  void errors() {
    QFETCH(QString, case_name);
    QFETCH(QString, message);
    GraphBuilder g;
    const std::string ta = MakeArray(g, "ta", 2);
    const Output handle(ta, 0);
    const Output value = ops::Const(g, Tensor::Scalar<float>(1));
    const Attrs write = {{"T", AttrOf(DT_FLOAT)}}, read = {{"dtype", AttrOf(DT_FLOAT)}};
    const Output w = After(g, "TensorArrayWriteV3", {handle, I32(g, 0), value, Output(ta, 1)}, write, "w", {});
    std::string fetch;
    if (case_name == "write twice") {
      fetch = After(g, "TensorArrayWriteV3", {handle, I32(g, 0), value, w}, write, "again", {w}).name();
    } else if (case_name == "read unwritten") {
      fetch = After(g, "TensorArrayReadV3", {handle, I32(g, 1), w}, read, "r", {w}).name();
    } else if (case_name == "read twice") {
      const Output r1 = After(g, "TensorArrayReadV3", {handle, I32(g, 0), w}, read, "r1", {w});
      fetch = After(g, "TensorArrayReadV3", {handle, I32(g, 0), w}, read, "r2", {r1}).name();
    } else {
      fetch = After(g, "TensorArrayWriteV3", {handle, I32(g, 2), value, w}, write, "past", {w}).name();
    }
    Run r = RunGraph(g, {fetch});
    QCOMPARE(r.status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(std::string(r.status.message()).find(message.toStdString()) != std::string::npos, StatusText(r.status));
  }

  void stacksPushAndPopInOrder_data() {
    QTest::addColumn<bool>("v2");
    QTest::newRow("StackV2") << true;
    QTest::newRow("Stack (ref handle)") << false;
  }
  void stacksPushAndPopInOrder() {
    QFETCH(bool, v2);
    const std::string suffix = v2 ? "V2" : "";
    GraphBuilder g;
    const Attrs make = {{"elem_type", AttrOf(DT_INT32)}, {"stack_name", AttrOf("s")}};
    const Output stack = v2 ? g.AddNode("StackV2", {I32(g, -1)}, make, "stack") : g.AddNode("Stack", {}, make, "stack");
    const Attrs push = {{"T", AttrOf(DT_INT32)}}, pop = {{"elem_type", AttrOf(DT_INT32)}};
    const Output p1 = After(g, ("StackPush" + suffix).c_str(), {stack, I32(g, 1)}, push, "p1", {});
    const Output p2 = After(g, ("StackPush" + suffix).c_str(), {stack, I32(g, 2)}, push, "p2", {p1});
    const Output o1 = After(g, ("StackPop" + suffix).c_str(), {stack}, pop, "o1", {p2});
    const Output o2 = After(g, ("StackPop" + suffix).c_str(), {stack}, pop, "o2", {o1});
    QVERIFY2(g.status().ok(), StatusText(g.status()));
    Run r = RunGraph(g, {p2.name(), o1.name(), o2.name()});
    QVERIFY2(r.status.ok(), StatusText(r.status));
    QCOMPARE(r.out[0].scalar<int32_t>(), 2);
    QCOMPARE(r.out[1].scalar<int32_t>(), 2);
    QCOMPARE(r.out[2].scalar<int32_t>(), 1);
    // A third pop finds it empty.
    After(g, ("StackPop" + suffix).c_str(), {stack}, pop, "o3", {o2});
    Run empty = RunGraph(g, {"o3:0"});
    QCOMPARE(empty.status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(std::string(empty.status.message()).find("] is empty.") != std::string::npos, StatusText(empty.status));
  }
};

QTEST_GUILESS_MAIN(TensorArrayStackTest)
#include "tst_tensor_array_stack.moc"
