// Variables: VariableV2 in the device's ResourceMgr, Assign with shape validation and
// copy-on-write, AssignAdd/AssignSub, their shape functions and error messages.
#include "KernelTestUtil.h"

#include <QtTest>

using namespace clab;
using namespace clab::testing;
using tensorflow::AttrValue;

Q_DECLARE_METATYPE(clab::Tensor)
Q_DECLARE_METATYPE(clab::PartialShape)

namespace {

// PartialShape{} is the unknown shape (its default constructor); a scalar needs dims.
PartialShape ScalarShape() { return PartialShape(std::vector<int64_t>{}); }

QString Q(const absl::Status& s) { return QString::fromStdString(FormatStatus(s)); }
QString Q(const Tensor& t) { return QString::fromStdString(t.SummarizeValue(32)); }

#define EXPECT_TENSOR(actual, expected) \
  QVERIFY2((actual).Equals(expected), qPrintable(QString("got %1, want %2").arg(Q(actual), Q(expected))))

ResourceMgr* Resources() { return TestCpuDevice()->resource_mgr(); }

tensorflow::NodeDef VariableNode(const std::string& name, DataType dtype, const PartialShape& shape,
                                 const std::map<std::string, AttrValue>& extra = {}) {
  auto attrs = extra;
  attrs["dtype"] = AttrOf(dtype);
  attrs["shape"] = AttrOf(shape);
  return MakeNode(name, "VariableV2", {}, attrs);
}

// Creates variable `name` through its kernel and returns it.
std::shared_ptr<Variable> MakeVariable(const std::string& name, DataType dtype, const PartialShape& shape) {
  auto out = RunKernelOnEdges(VariableNode(name, dtype, shape), {});
  if (!out.ok()) qFatal("VariableV2 failed: %s", qPrintable(Q(out.status())));
  return (*out)[0].ref;
}

StatusOr<std::vector<EdgeValue>> Write(const std::string& op, const std::shared_ptr<Variable>& var, const Tensor& value,
                                       const std::map<std::string, AttrValue>& extra = {}) {
  auto attrs = extra;
  if (!attrs.count("T")) attrs["T"] = AttrOf(value.dtype());
  std::vector<EdgeValue> inputs{RefInput(var), EdgeValue{value, nullptr}};
  return RunKernelOnEdges(MakeNode(op == "Assign" ? "w/Assign" : "w/" + op, op, {"w", "v"}, attrs), std::move(inputs));
}

Tensor ValueOf(const std::shared_ptr<Variable>& var) {
  std::lock_guard<std::mutex> lock(var->mu());
  return var->value();
}

}  // namespace

class StateOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void init() { Resources()->Clear(); }

  void variableLivesInTheResourceMgr() {
    auto out = RunKernelOnEdges(VariableNode("w", DT_FLOAT, PartialShape{2, 3}), {});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QCOMPARE(out->size(), size_t(1));
    std::shared_ptr<Variable> var = (*out)[0].ref;
    QVERIFY2(var != nullptr, "the output is a reference");
    QVERIFY(!(*out)[0].tensor.IsInitialized());
    QCOMPARE(var->dtype(), DT_FLOAT);
    QCOMPARE(var->declared_shape(), (PartialShape{2, 3}));
    QVERIFY(!var->initialized());
    QCOMPARE(Resources()->Names(), (std::vector<std::string>{"w"}));
    QCOMPARE(Resources()->Lookup<Variable>("", "w"), var);
    // A second run, or another kernel for the same name, finds the same variable.
    QCOMPARE(MakeVariable("w", DT_FLOAT, PartialShape{2, 3}), var);
  }

  void sharedNameAndContainer() {
    auto out = RunKernelOnEdges(VariableNode("local_name", DT_INT32, ScalarShape(),
                                             {{"shared_name", AttrOf("global")}, {"container", AttrOf("c")}}),
                                {});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QCOMPARE(Resources()->Names("c"), (std::vector<std::string>{"global"}));
    QVERIFY(Resources()->Names().empty());
    const std::string container = "c";
    Resources()->Clear(&container);
    QVERIFY(Resources()->Names("c").empty());
  }

  void variableTypeMustMatchExisting() {
    MakeVariable("w", DT_FLOAT, PartialShape{2});
    auto out = RunKernelOnEdges(VariableNode("w", DT_INT32, PartialShape{2}), {});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status())
                 .contains("Variable 'w' in container '' already exists with dtype float, but node 'w' "
                           "declares int32"),
             qPrintable(Q(out.status())));
  }

  void assignInitialisesAndOutputsTheRef() {
    auto var = MakeVariable("w", DT_FLOAT, PartialShape{2, 2});
    const Tensor value = Tensor::Matrix<float>({{1, 2}, {3, 4}});
    auto out = Write("Assign", var, value);
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QCOMPARE((*out)[0].ref, var);
    EXPECT_TENSOR(ValueOf(var), value);
    QCOMPARE(QString::fromStdString(var->DebugString()), QString("float/[2,2]"));
  }

  void assignValidatesShapes_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("declared");
    QTest::addColumn<Tensor>("initial");  // uninitialised: none
    QTest::addColumn<Tensor>("value");
    QTest::addColumn<QString>("error");
    const Tensor m23 = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
    const Tensor m32 = Tensor::Matrix<float>({{1, 2}, {3, 4}, {5, 6}});
    QTest::newRow("against value") << PartialShape{-1, -1} << m23 << m32
                                   << "Assign requires shapes of both tensors to match. lhs shape= [2,3] rhs shape= "
                                      "[3,2] (variable 'w')";
    QTest::newRow("against declared") << PartialShape{2} << Tensor() << Tensor::Vector<float>({1, 2, 3})
                                      << "lhs shape= [2] rhs shape= [3] (variable 'w')";
    QTest::newRow("partial declared fits") << PartialShape{-1, 2} << Tensor() << m32 << "";
    QTest::newRow("same shape") << PartialShape{2, 3} << m23 << m23 << "";
    // clang-format on
  }
  void assignValidatesShapes() {
    QFETCH(PartialShape, declared);
    QFETCH(Tensor, initial);
    QFETCH(Tensor, value);
    QFETCH(QString, error);
    auto var = MakeVariable("w", DT_FLOAT, declared);
    if (initial.IsInitialized()) QVERIFY(Write("Assign", var, initial).ok());
    auto out = Write("Assign", var, value);
    if (error.isEmpty()) {
      QVERIFY2(out.ok(), qPrintable(Q(out.status())));
      EXPECT_TENSOR(ValueOf(var), value);
      return;
    }
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains(error), qPrintable(Q(out.status())));
    // Without validation the new shape simply replaces the old one.
    out = Write("Assign", var, value, {{"validate_shape", AttrOf(false)}});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    EXPECT_TENSOR(ValueOf(var), value);
  }

  void assignTypeMustMatchVariable() {
    auto var = MakeVariable("w", DT_FLOAT, ScalarShape());
    auto out = Write("Assign", var, Tensor::Scalar<int32_t>(1));
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains("Cannot assign a int32 value to variable 'w' of type float"),
             qPrintable(Q(out.status())));
  }

  void writesAreCopyOnWrite() {
    auto var = MakeVariable("w", DT_FLOAT, PartialShape{3});
    QVERIFY(Write("Assign", var, Tensor::Vector<float>({1, 2, 3})).ok());
    const void* buffer = ValueOf(var).raw_data();

    // Nobody else holds the buffer: the update happens in place.
    QVERIFY(Write("Assign", var, Tensor::Vector<float>({4, 5, 6})).ok());
    QCOMPARE(ValueOf(var).raw_data(), buffer);
    QVERIFY(Write("AssignAdd", var, Tensor::Vector<float>({1, 1, 1})).ok());
    QCOMPARE(ValueOf(var).raw_data(), buffer);
    EXPECT_TENSOR(ValueOf(var), Tensor::Vector<float>({5, 6, 7}));

    // A reader holds the value: writes go to a new buffer and the reader's view stays.
    const Tensor snapshot = ValueOf(var);
    QVERIFY(Write("Assign", var, Tensor::Vector<float>({0, 0, 0})).ok());
    EXPECT_TENSOR(snapshot, Tensor::Vector<float>({5, 6, 7}));
    EXPECT_TENSOR(ValueOf(var), Tensor::Vector<float>({0, 0, 0}));
    QVERIFY(!ValueOf(var).SharesBufferWith(snapshot));

    const Tensor before_sub = ValueOf(var);
    QVERIFY(Write("AssignSub", var, Tensor::Vector<float>({1, 2, 3})).ok());
    EXPECT_TENSOR(before_sub, Tensor::Vector<float>({0, 0, 0}));
    EXPECT_TENSOR(ValueOf(var), Tensor::Vector<float>({-1, -2, -3}));
  }

  void assignSharesAValueItOwnsNot() {
    // A value still held elsewhere (a Const's buffer) is shared, then copied on the next write.
    auto var = MakeVariable("w", DT_INT32, PartialShape{2});
    const Tensor constant = Tensor::Vector<int32_t>({1, 2});
    QVERIFY(Write("Assign", var, constant).ok());
    QVERIFY(ValueOf(var).SharesBufferWith(constant));
    QVERIFY(Write("AssignAdd", var, Tensor::Vector<int32_t>({10, 10})).ok());
    EXPECT_TENSOR(constant, Tensor::Vector<int32_t>({1, 2}));
    EXPECT_TENSOR(ValueOf(var), Tensor::Vector<int32_t>({11, 12}));
  }

  void assignAddAndSub_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<Tensor>("initial");
    QTest::addColumn<Tensor>("delta");
    QTest::addColumn<Tensor>("expected");
    QTest::newRow("add float") << "AssignAdd" << Tensor::Matrix<float>({{1, 2}}) << Tensor::Matrix<float>({{0.5f, -2}})
                               << Tensor::Matrix<float>({{1.5f, 0}});
    QTest::newRow("add int64") << "AssignAdd" << Tensor::Scalar<int64_t>(41) << Tensor::Scalar<int64_t>(1)
                               << Tensor::Scalar<int64_t>(42);
    QTest::newRow("sub double") << "AssignSub" << Tensor::Vector<double>({1, 2}) << Tensor::Vector<double>({0.25, 3})
                                << Tensor::Vector<double>({0.75, -1});
    QTest::newRow("sub int32") << "AssignSub" << Tensor::Vector<int32_t>({5}) << Tensor::Vector<int32_t>({7})
                               << Tensor::Vector<int32_t>({-2});
    QTest::newRow("add int32 wraps") << "AssignAdd" << Tensor::Scalar<int32_t>(2147483647) << Tensor::Scalar<int32_t>(1)
                                     << Tensor::Scalar<int32_t>(-2147483647 - 1);
    // clang-format on
  }
  void assignAddAndSub() {
    QFETCH(QString, op);
    QFETCH(Tensor, initial);
    QFETCH(Tensor, delta);
    QFETCH(Tensor, expected);
    auto var = MakeVariable("w", initial.dtype(), PartialShape(initial.shape()));
    QVERIFY(Write("Assign", var, initial.DeepCopy()).ok());
    auto out = Write(op.toStdString(), var, delta);
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QCOMPARE((*out)[0].ref, var);
    EXPECT_TENSOR(ValueOf(var), expected);
  }

  void updatesNeedAnInitialisedVariable_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::newRow("AssignAdd") << "AssignAdd";
    QTest::newRow("AssignSub") << "AssignSub";
    // clang-format on
  }
  void updatesNeedAnInitialisedVariable() {
    QFETCH(QString, op);
    auto var = MakeVariable("w", DT_FLOAT, ScalarShape());
    auto out = Write(op.toStdString(), var, Tensor::Scalar<float>(1));
    QCOMPARE(out.status().code(), absl::StatusCode::kFailedPrecondition);
    QVERIFY2(Q(out.status()).contains("Attempting to use uninitialized value w\n"), qPrintable(Q(out.status())));
    QCOMPARE(QString::fromStdString(var->DebugString()), QString("float/[] (uninitialized)"));
  }

  void updatesNeedEqualShapes() {
    auto var = MakeVariable("w", DT_FLOAT, PartialShape{2});
    QVERIFY(Write("Assign", var, Tensor::Vector<float>({1, 2})).ok());
    auto out = Write("AssignAdd", var, Tensor::Vector<float>({1, 2, 3}));
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status())
                 .contains("Cannot update variable 'w' with shape [2] using a Tensor with shape [3], shapes "
                           "must be equal."),
             qPrintable(Q(out.status())));
  }

  void shapeFunctions_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<bool>("validateShape");
    QTest::addColumn<PartialShape>("ref");
    QTest::addColumn<PartialShape>("value");
    QTest::addColumn<PartialShape>("expected");
    QTest::addColumn<QString>("error");
    QTest::newRow("assign merges") << "Assign" << true << PartialShape{-1, 3} << PartialShape{2, -1} << PartialShape{2, 3}
                                   << "";
    QTest::newRow("assign unvalidated") << "Assign" << false << PartialShape{2} << PartialShape{5, 5}
                                        << PartialShape{5, 5} << "";
    QTest::newRow("assign mismatch") << "Assign" << true << PartialShape{2} << PartialShape{3} << PartialShape()
                                     << "for 'a' (op: 'Assign') with input shapes: [2], [3].";
    QTest::newRow("add unknown ref") << "AssignAdd" << true << PartialShape() << PartialShape{4} << PartialShape{4} << "";
    QTest::newRow("sub mismatch") << "AssignSub" << true << PartialShape{2, 2} << PartialShape{2} << PartialShape()
                                  << "for 'a' (op: 'AssignSub') with input shapes: [2,2], [2].";
    // clang-format on
  }
  void shapeFunctions() {
    QFETCH(QString, op);
    QFETCH(bool, validateShape);
    QFETCH(PartialShape, ref);
    QFETCH(PartialShape, value);
    QFETCH(PartialShape, expected);
    QFETCH(QString, error);
    std::map<std::string, AttrValue> attrs{{"T", AttrOf(DT_FLOAT)}};
    if (op == "Assign") attrs["validate_shape"] = AttrOf(validateShape);
    auto shapes = InferShapes(MakeNode("a", op.toStdString(), {"w", "v"}, attrs), {ref, value});
    if (!error.isEmpty()) {
      QCOMPARE(shapes.status().code(), absl::StatusCode::kInvalidArgument);
      QVERIFY2(Q(shapes.status()).contains(error), qPrintable(Q(shapes.status())));
      return;
    }
    QVERIFY2(shapes.ok(), qPrintable(Q(shapes.status())));
    QCOMPARE((*shapes)[0], expected);
  }

  void variableShapeFunction() {
    auto shapes = InferShapes(VariableNode("w", DT_FLOAT, PartialShape{-1, 3}), {});
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[0], (PartialShape{-1, 3}));
  }

  void clearDropsEverything() {
    MakeVariable("a", DT_FLOAT, ScalarShape());
    MakeVariable("b", DT_FLOAT, ScalarShape());
    QCOMPARE(Resources()->Names(), (std::vector<std::string>{"a", "b"}));
    Resources()->Clear();
    QVERIFY(Resources()->Names().empty());
    QVERIFY(Resources()->Lookup<Variable>("", "a") == nullptr);
  }
};

QTEST_APPLESS_MAIN(StateOpsTest)
#include "tst_state_ops.moc"
