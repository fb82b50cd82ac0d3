// GraphBuilder: names and name scopes, device scopes with TensorFlow's merge order, device
// functions, colocation, control dependencies, build-time checks, tf.Variable.
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"

#include <QtTest>

// Options are written with designated initializers naming only what differs from the
// defaults; GCC 12 warns about every field left out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

using namespace clab;

namespace {

Output IntMatrix(GraphBuilder& g, std::vector<std::vector<int32_t>> rows, std::string_view name = "") {
  return ops::Const(g, Tensor::Matrix<int32_t>(rows), name);
}

std::string DeviceOf(const GraphBuilder& g, const Output& out) {
  const tensorflow::NodeDef* node = g.FindNode(out.node());
  return node == nullptr ? "<missing>" : node->device();
}

std::vector<std::string> ClassOf(const GraphBuilder& g, const std::string& node) {
  std::vector<std::string> groups;
  const tensorflow::NodeDef* def = g.FindNode(node);
  if (def != nullptr && HasNodeAttr(*def, "_class")) GetNodeAttr(*def, "_class", &groups).IgnoreError();
  return groups;
}

std::vector<std::string> InputsOf(const GraphBuilder& g, const std::string& node) {
  const tensorflow::NodeDef* def = g.FindNode(node);
  return def == nullptr ? std::vector<std::string>{}
                        : std::vector<std::string>(def->input().begin(), def->input().end());
}

QString Message(const Status& status) { return QString::fromStdString(std::string(status.message())); }

}  // namespace

class TestGraphBuilder : public QObject {
  Q_OBJECT

 private slots:
  void uniqueNamesFollowTensorFlow();
  void nameScopes();
  void nestedDeviceScopesMerge_data();
  void nestedDeviceScopesMerge();
  void withoutDeviceStopsOuterScopes();
  void malformedDeviceScopeIsRecorded();
  void deviceFunctionsRunInnermostFirst();
  void colocateWithSuppressesDeviceFunctions();
  void controlDependencies();
  void buildTimeShapeError();
  void buildTimeTypeErrors();
  void unknownOpIsRecordedAndBuildingGoesOn();
  void shapesAndConstantsAreTracked();
  void variableLikeTensorFlow();
  void variablesUnderReplicaDeviceSetter();
  void emptyDeviceFunctionIsNoScope();
};

void TestGraphBuilder::uniqueNamesFollowTensorFlow() {
  GraphBuilder g;
  auto a = IntMatrix(g, {{1}});
  auto b = IntMatrix(g, {{2}});
  auto m1 = ops::MatMul(g, a, b);
  auto m2 = ops::MatMul(g, a, b);
  auto m3 = ops::MatMul(g, a, b);
  QCOMPARE(a.node(), std::string("Const"));
  QCOMPARE(b.node(), std::string("Const_1"));
  QCOMPARE(m1.node(), std::string("MatMul"));
  QCOMPARE(m2.node(), std::string("MatMul_1"));
  QCOMPARE(m3.node(), std::string("MatMul_2"));
  // Names are compared without case, as TensorFlow does.
  QCOMPARE(ops::MatMul(g, a, b, false, false, "matmul").node(), std::string("matmul_3"));
  // A given name that is taken gets a suffix too; one already suffixed is skipped over.
  QCOMPARE(IntMatrix(g, {{3}}, "x").node(), std::string("x"));
  QCOMPARE(IntMatrix(g, {{3}}, "x_1").node(), std::string("x_1"));
  QCOMPARE(IntMatrix(g, {{3}}, "x").node(), std::string("x_2"));
  QCOMPARE(g.UniqueName("fresh"), std::string("fresh"));
  QVERIFY(g.status().ok());
  QCOMPARE(m1.name(), std::string("MatMul:0"));
  QCOMPARE(Output("split", 1).input_string(), std::string("split:1"));
  QCOMPARE(m1.control().input_string(), std::string("^MatMul"));
  QCOMPARE(m1.control().name(), std::string("MatMul"));
}

void TestGraphBuilder::nameScopes() {
  GraphBuilder g;
  auto a = IntMatrix(g, {{1}}, "a_value");
  {
    auto outer = g.WithNameScope("a");
    QCOMPARE(g.CurrentNameScope(), std::string("a"));
    {
      auto inner = g.WithNameScope("b");
      QCOMPARE(ops::MatMul(g, a, a).node(), std::string("a/b/MatMul"));
      QCOMPARE(ops::MatMul(g, a, a).node(), std::string("a/b/MatMul_1"));
    }
    QCOMPARE(ops::MatMul(g, a, a).node(), std::string("a/MatMul"));
    {
      auto top = g.WithNameScope("");
      QCOMPARE(ops::MatMul(g, a, a).node(), std::string("MatMul"));
    }
  }
  QCOMPARE(g.CurrentNameScope(), std::string());
  {
    auto again = g.WithNameScope("a");  // a second "a" scope is made unique
    QCOMPARE(g.CurrentNameScope(), std::string("a_1"));
    QCOMPARE(ops::MatMul(g, a, a).node(), std::string("a_1/MatMul"));
  }
  {
    auto reenter = g.WithNameScope("a/");  // a trailing '/' re-enters a scope as is
    QCOMPARE(ops::MatMul(g, a, a).node(), std::string("a/MatMul_1"));
  }
  // A scope's name is taken: a node named like it gets a suffix.
  QCOMPARE(IntMatrix(g, {{1}}, "a").node(), std::string("a_2"));
  QVERIFY(g.status().ok());
}

void TestGraphBuilder::nestedDeviceScopesMerge_data() {
  // clang-format off
  QTest::addColumn<QString>("outer");
  QTest::addColumn<QString>("inner");
  QTest::addColumn<QString>("expected");

  // TF_SEMANTICS 3.2: inner fields win, outer scopes fill only what is unset.
  QTest::newRow("job + gpu") << "/job:worker" << "/device:GPU:0" << "/job:worker/device:GPU:0";
  QTest::newRow("inner job replaces job only") << "/job:worker/task:1" << "/job:ps" << "/job:ps/task:1";
  QTest::newRow("inner type wins") << "/cpu:0" << "/gpu:0" << "/device:GPU:0";
  QTest::newRow("empty outer") << "" << "/job:ps" << "/job:ps";
  QTest::newRow("empty inner") << "/job:worker/task:0/" << "" << "/job:worker/task:0";
  QTest::newRow("full outer, partial inner")
      << "/job:worker/replica:0/task:0/device:CPU:0" << "/task:3" << "/job:worker/replica:0/task:3/device:CPU:0";
  QTest::newRow("legacy forms canonicalised") << "/job:ps/task:0" << "/CPU:0" << "/job:ps/task:0/device:CPU:0";
  QTest::newRow("any id") << "/job:worker" << "/device:GPU:*" << "/job:worker/device:GPU:*";
  // clang-format on
}

void TestGraphBuilder::nestedDeviceScopesMerge() {
  QFETCH(QString, outer);
  QFETCH(QString, inner);
  QFETCH(QString, expected);
  GraphBuilder g;
  Output x;
  {
    auto o = g.WithDevice(outer.toStdString());
    auto i = g.WithDevice(inner.toStdString());
    x = IntMatrix(g, {{1}});
  }
  QVERIFY2(g.status().ok(), g.status().ToString().c_str());
  QCOMPARE(QString::fromStdString(DeviceOf(g, x)), expected);
  // Out of every scope, nothing is set.
  QCOMPARE(DeviceOf(g, IntMatrix(g, {{1}})), std::string());
}

void TestGraphBuilder::withoutDeviceStopsOuterScopes() {
  GraphBuilder g;
  auto o = g.WithDevice("/job:worker/task:0");
  Output a, b, c;
  {
    auto none = g.WithoutDevice();
    a = IntMatrix(g, {{1}});
    auto inner = g.WithDevice("/cpu:0");
    b = IntMatrix(g, {{1}});
  }
  c = IntMatrix(g, {{1}});
  QCOMPARE(DeviceOf(g, a), std::string());
  QCOMPARE(DeviceOf(g, b), std::string("/device:CPU:0"));
  QCOMPARE(DeviceOf(g, c), std::string("/job:worker/task:0"));
}

void TestGraphBuilder::malformedDeviceScopeIsRecorded() {
  GraphBuilder g;
  {
    auto bad = g.WithDevice("/job:my-job/task:0");
    IntMatrix(g, {{1}});
  }
  QCOMPARE(g.status().code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(Message(g.status()).contains("job name 'my-job'"), qPrintable(Message(g.status())));
}

void TestGraphBuilder::deviceFunctionsRunInnermostFirst() {
  GraphBuilder g;
  std::vector<std::string> seen;
  // Outer function: records what the inner scopes decided and adds a task.
  auto outer = g.WithDevice([&](const tensorflow::NodeDef& node) {
    seen.push_back(node.device());
    return std::string("/job:ignored/task:7");
  });
  auto spec = g.WithDevice("/job:worker");
  auto inner = g.WithDevice([](const tensorflow::NodeDef& node) {
    return node.op() == "Const" ? std::string("/device:GPU:1") : std::string();
  });
  auto x = IntMatrix(g, {{1}});
  QCOMPARE(seen, std::vector<std::string>{"/job:worker/device:GPU:1"});
  // The outer function's answer is used as is: a function decides, unlike a spec.
  QCOMPARE(DeviceOf(g, x), std::string("/job:ignored/task:7"));

  auto returns_garbage = g.WithDevice([](const tensorflow::NodeDef&) { return std::string("/job:1"); });
  IntMatrix(g, {{1}}, "bad");
  QVERIFY2(Message(g.status()).contains("Device function for node 'bad' returned '/job:1'"),
           qPrintable(Message(g.status())));
}

void TestGraphBuilder::colocateWithSuppressesDeviceFunctions() {
  GraphBuilder g;
  int calls = 0;
  auto fn = g.WithDevice([&](const tensorflow::NodeDef& node) {
    ++calls;
    return node.device().empty() ? std::string("/job:worker/task:0") : node.device();
  });
  Output anchor;
  {
    auto ps = g.WithDevice("/job:ps/task:1");
    anchor = IntMatrix(g, {{1}}, "anchor");
  }
  QCOMPARE(calls, 1);
  QCOMPARE(DeviceOf(g, anchor), std::string("/job:ps/task:1"));
  Output follower, inner_scoped;
  {
    auto colocated = g.ColocateWith(anchor);
    follower = ops::Identity(g, anchor, "follower");
    // A device scope opened inside colocation still applies, but colocation has the last word.
    auto inner = g.WithDevice("/device:CPU:0");
    inner_scoped = ops::Identity(g, anchor, "inner_scoped");
  }
  QCOMPARE(calls, 1);  // the device function never saw the colocated nodes
  QCOMPARE(DeviceOf(g, follower), std::string("/job:ps/task:1"));
  QCOMPARE(DeviceOf(g, inner_scoped), std::string("/job:ps/task:1"));
  QCOMPARE(ClassOf(g, "follower"), std::vector<std::string>{"loc:@anchor"});
  // Colocating with a colocated node joins the original group.
  {
    auto colocated = g.ColocateWith(follower);
    ops::Identity(g, follower, "second");
  }
  QCOMPARE(ClassOf(g, "second"), std::vector<std::string>{"loc:@anchor"});
  auto after = ops::Identity(g, anchor, "after");
  QCOMPARE(calls, 2);
  QCOMPARE(DeviceOf(g, after), std::string("/job:worker/task:0"));
  QVERIFY(ClassOf(g, "after").empty());
  QVERIFY(g.status().ok());

  auto missing = g.ColocateWith(Output("nowhere"));
  QCOMPARE(g.status().code(), absl::StatusCode::kNotFound);
}

void TestGraphBuilder::controlDependencies() {
  GraphBuilder g;
  auto a = IntMatrix(g, {{1}}, "a");
  auto b = IntMatrix(g, {{2}}, "b");
  auto c = IntMatrix(g, {{3}}, "c");
  Output inner_first, uses_inner, uses_a;
  {
    auto deps = g.WithControlDependencies({a});
    {
      auto more = g.WithControlDependencies({b, a});
      inner_first = ops::Identity(g, c, "inner_first");
    }
    // Fed by a node built inside the same scope: the dependency already holds.
    uses_inner = ops::Identity(g, inner_first, "uses_inner");
    // A data input from the dependency itself needs no control edge.
    uses_a = ops::Identity(g, a, "uses_a");
  }
  auto outside = ops::Identity(g, c, "outside");
  auto explicit_control = g.AddNode("NoOp", {a.control(), b.control(), a.control()}, {}, "group");
  QCOMPARE(InputsOf(g, "inner_first"), (std::vector<std::string>{"c", "^a", "^b"}));
  QCOMPARE(InputsOf(g, "uses_inner"), (std::vector<std::string>{"inner_first"}));
  QCOMPARE(InputsOf(g, "uses_a"), (std::vector<std::string>{"a"}));
  QCOMPARE(InputsOf(g, "outside"), (std::vector<std::string>{"c"}));
  QCOMPARE(InputsOf(g, "group"), (std::vector<std::string>{"^a", "^b"}));
  QVERIFY(g.status().ok());
}

void TestGraphBuilder::buildTimeShapeError() {
  GraphBuilder g;
  auto x = IntMatrix(g, {{1, 2, 3, 4}}, "x");
  auto w = IntMatrix(g, {{2}, {2}, {2}}, "w");
  auto product = ops::MatMul(g, x, w);
  QCOMPARE(g.status().code(), absl::StatusCode::kInvalidArgument);
  const QString message = Message(g.status());
  QVERIFY2(message.contains("Dimensions must be equal, but are 4 and 3"), qPrintable(message));
  QVERIFY2(message.contains("for 'MatMul' (op: 'MatMul') with input shapes: [1,4], [3,1]"), qPrintable(message));
  // Later nodes are still added; the first error stays.
  ops::Identity(g, product, "after");
  QVERIFY(g.FindNode("after") != nullptr);
  QVERIFY(Message(g.status()).contains("Dimensions must be equal"));
}

void TestGraphBuilder::buildTimeTypeErrors() {
  {
    GraphBuilder g;
    auto i = IntMatrix(g, {{1}});
    auto f = ops::Const(g, Tensor::Matrix<float>({{1.f}}));
    ops::MatMul(g, i, f);
    QCOMPARE(g.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Message(g.status()).contains("Input 'b' of 'MatMul' Op has type float"), qPrintable(Message(g.status())));
  }
  {
    GraphBuilder g;
    auto value = IntMatrix(g, {{1}});
    g.AddNode("Assign", {value, value}, {}, "assign_to_constant");
    QVERIFY2(Message(g.status()).contains("Input 'ref' of 'Assign' Op requires l-value input"),
             qPrintable(Message(g.status())));
  }
  {
    GraphBuilder g;
    auto value = IntMatrix(g, {{1}});
    g.AddNode("Identity", {Output(value.node(), 3)}, {}, "bad_slot");
    QVERIFY2(Message(g.status()).contains("names output 3 of a node with 1 output(s)"),
             qPrintable(Message(g.status())));
  }
}

void TestGraphBuilder::unknownOpIsRecordedAndBuildingGoesOn() {
  GraphBuilder g;
  auto bad = g.AddNode("NoSuchOp", {}, {}, "weird");
  auto ok = IntMatrix(g, {{1}}, "fine");
  QCOMPARE(g.status().code(), absl::StatusCode::kNotFound);
  QVERIFY(Message(g.status()).contains("NoSuchOp"));
  QVERIFY(g.FindNode("weird") != nullptr);
  QVERIFY(g.FindNode("fine") != nullptr);
  QCOMPARE(g.graph_def().node_size(), 2);
}

void TestGraphBuilder::shapesAndConstantsAreTracked() {
  GraphBuilder g;
  auto x = IntMatrix(g, {{1, 2, 3, 4}}, "x");
  auto w = IntMatrix(g, {{2}, {2}, {2}, {2}}, "w");
  auto y = ops::MatMul(g, x, w);
  QVERIFY(g.status().ok());
  QCOMPARE(g.ShapeOf(y).DebugString(), PartialShape({1, 1}).DebugString());
  QCOMPARE(g.TypeOf(y), DT_INT32);
  QVERIFY(g.ConstantValue(x) != nullptr);
  QCOMPARE(g.ConstantValue(x)->NumElements(), int64_t{4});
  QVERIFY(g.ConstantValue(y) == nullptr);
  QCOMPARE(g.Outputs("MatMul").size(), size_t{1});
  QCOMPARE(g.TypeOf(Output("nowhere")), DT_INVALID);
  // The builder fills default attrs, as TensorFlow's GraphDefs show them.
  QVERIFY(HasNodeAttr(*g.FindNode("MatMul"), "transpose_a"));
}

void TestGraphBuilder::variableLikeTensorFlow() {
  GraphBuilder g;
  auto init = IntMatrix(g, {{2}, {2}, {2}, {2}}, "w_init");
  auto w = ops::MakeVariable(g, init, "w");
  auto frozen = ops::MakeVariable(g, init, "w", /*trainable=*/false);
  QVERIFY2(g.status().ok(), g.status().ToString().c_str());
  QCOMPARE(w.var.node(), std::string("w"));
  QCOMPARE(w.initializer.node(), std::string("w/Assign"));
  QCOMPARE(w.read.node(), std::string("w/read"));
  QCOMPARE(frozen.var.node(), std::string("w_1"));
  QCOMPARE(frozen.read.node(), std::string("w_1/read"));
  QCOMPARE(g.TypeOf(w.var), tensorflow::DT_INT32_REF);
  QCOMPARE(g.TypeOf(w.read), DT_INT32);
  QCOMPARE(g.ShapeOf(w.read).DebugString(), PartialShape({4, 1}).DebugString());
  QCOMPARE(ClassOf(g, "w/Assign"), std::vector<std::string>{"loc:@w"});
  QCOMPARE(ClassOf(g, "w/read"), std::vector<std::string>{"loc:@w"});
  QCOMPARE(InputsOf(g, "w/Assign"), (std::vector<std::string>{"w", "w_init"}));
  QCOMPARE(g.Collection("variables"), (std::vector<std::string>{"w", "w_1"}));
  QCOMPARE(g.Collection("trainable_variables"), std::vector<std::string>{"w"});
  QVERIFY(g.Collection("no_such_collection").empty());

  auto initializer = ops::GlobalVariablesInitializer(g);
  QCOMPARE(initializer.node(), std::string("init"));
  QCOMPARE(InputsOf(g, "init"), (std::vector<std::string>{"^w/Assign", "^w_1/Assign"}));
  QCOMPARE(g.FindNode("init")->op(), std::string("NoOp"));
}

void TestGraphBuilder::variablesUnderReplicaDeviceSetter() {
  GraphBuilder g;
  auto setter = ReplicaDeviceSetter({.ps_tasks = 2, .worker_device = "/job:worker/task:0/"});
  QVERIFY(setter.ok());
  auto scope = g.WithDevice(*setter);
  auto x = IntMatrix(g, {{1, 2, 3, 4}}, "x");
  auto w = ops::MakeVariable(g, IntMatrix(g, {{2}, {2}, {2}, {2}}), "w");
  auto v = ops::MakeVariable(g, IntMatrix(g, {{2}, {2}, {2}, {2}}), "v");
  auto y = ops::MatMul(g, x, w.read);
  QVERIFY(g.status().ok());
  QCOMPARE(DeviceOf(g, x), std::string("/job:worker/task:0"));
  QCOMPARE(DeviceOf(g, w.var), std::string("/job:ps/task:0"));
  QCOMPARE(DeviceOf(g, w.initializer), std::string("/job:ps/task:0"));
  QCOMPARE(DeviceOf(g, w.read), std::string("/job:ps/task:0"));
  // The reads and initializers did not advance the round robin.
  QCOMPARE(DeviceOf(g, v.var), std::string("/job:ps/task:1"));
  QCOMPARE(DeviceOf(g, v.read), std::string("/job:ps/task:1"));
  QCOMPARE(DeviceOf(g, y), std::string("/job:worker/task:0"));
}

void TestGraphBuilder::emptyDeviceFunctionIsNoScope() {
  GraphBuilder g;
  auto outer = g.WithDevice("/job:worker/task:0");
  auto setter = ReplicaDeviceSetter({.ps_tasks = 0});
  QVERIFY(setter.ok());
  QVERIFY(!*setter);
  auto scope = g.WithDevice(*setter);
  QCOMPARE(DeviceOf(g, IntMatrix(g, {{1}})), std::string("/job:worker/task:0"));
}

QTEST_APPLESS_MAIN(TestGraphBuilder)
#include "tst_graph_builder.moc"
