// The op registry: spec parsing, registration, node validation and type resolution.
#include "clab/graph/AttrValues.h"
#include "clab/graph/OpRegistry.h"

#include <google/protobuf/text_format.h>
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <thread>

using namespace clab;

Q_DECLARE_METATYPE(clab::DataType)

namespace {

QString Q(absl::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString Q(const absl::Status& s) { return QString::fromStdString(FormatStatus(s)); }

tensorflow::NodeDef ParseNode(const QString& text) {
  tensorflow::NodeDef node;
  if (!google::protobuf::TextFormat::ParseFromString(text.toStdString(), &node))
    qFatal("bad NodeDef text in test: %s", qPrintable(text));
  return node;
}

QString TypesText(const std::vector<DataType>& types) {
  QStringList names;
  for (DataType t : types) names << QString::fromStdString(DataTypeName(t));
  return names.join(",");
}

// An op with one of each kind of arg and attr, registered in a private registry.
OpRegistry& TestRegistry() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    r->Register("TestOp")
        .Input("a: T")
        .Input("b: N * int32")
        .Output("y: T")
        .Output("r: Ref(T)")
        .Attr("T: {float, double}")
        .Attr("N: int >= 1")
        .Attr("flag: bool = false")
        .Attr("mode: {'fast', 'slow'} = 'fast'")
        .Attr("dims: list(int) = []");
    // The type list attr is declared after the input that uses it.
    r->Register("TestList").Input("args: Tlist").Output("out: float").Attr("Tlist: list(type) >= 1");
    return r;
  }();
  return *registry;
}

// Runs `fn` in a child process and reports whether it aborted.
bool AbortsInChild(const std::function<void()>& fn) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::signal(SIGABRT, SIG_DFL);  // not QtTest's crash handler
    std::freopen("/dev/null", "w", stderr);
    fn();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

}  // namespace

class OpRegistryTest : public QObject {
  Q_OBJECT

 private slots:
  void parseArgSpec_data() {
    // clang-format off
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("name");
    QTest::addColumn<DataType>("fixedType");
    QTest::addColumn<QString>("typeAttr");
    QTest::addColumn<QString>("numberAttr");
    QTest::addColumn<bool>("isRef");
    QTest::newRow("type attr") << "a: T" << "a" << DT_INVALID << "T" << "" << false;
    QTest::newRow("ref") << "x: Ref(T)" << "x" << DT_INVALID << "T" << "" << true;
    QTest::newRow("list of N") << "values: N * T" << "values" << DT_INVALID << "T" << "N" << false;
    QTest::newRow("fixed") << "y: float" << "y" << DT_FLOAT << "" << "" << false;
    QTest::newRow("fixed list") << "sizes: N * int32" << "sizes" << DT_INT32 << "" << "N" << false;
    QTest::newRow("ref of attr") << "ref: Ref(dtype)" << "ref" << DT_INVALID << "dtype" << "" << true;
    QTest::newRow("no spaces") << "idx:int64" << "idx" << DT_INT64 << "" << "" << false;
    // clang-format on
  }
  void parseArgSpec() {
    QFETCH(QString, spec);
    auto arg = ParseArgSpec(spec.toStdString());
    QVERIFY2(arg.ok(), qPrintable(Q(arg.status())));
    QTEST(QString::fromStdString(arg->name), "name");
    QTEST(arg->fixed_type, "fixedType");
    QTEST(QString::fromStdString(arg->type_attr), "typeAttr");
    QTEST(QString::fromStdString(arg->number_attr), "numberAttr");
    QTEST(arg->is_ref, "isRef");
  }

  void malformedArgSpec_data() {
    // clang-format off
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("complaint");
    QTest::newRow("no colon") << "a T" << "expected 'name: type'";
    QTest::newRow("bad name") << "1a: T" << "'1a' is not a valid name";
    QTest::newRow("no type") << "a: " << "the type is missing";
    QTest::newRow("open ref") << "a: Ref(T" << "'Ref(' without ')'";
    QTest::newRow("count not attr") << "a: 3 * T" << "'3' is not the name of an int attr";
    QTest::newRow("junk type") << "a: T-1" << "neither a data type nor an attr name";
    // clang-format on
  }
  void malformedArgSpec() {
    QFETCH(QString, spec);
    QFETCH(QString, complaint);
    auto arg = ParseArgSpec(spec.toStdString());
    QVERIFY(!arg.ok());
    QCOMPARE(arg.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(arg.status()).contains(complaint), qPrintable(Q(arg.status())));
    QVERIFY2(Q(arg.status()).contains(spec), "the message quotes the spec");
  }

  void parseAttrSpec_data() {
    // clang-format off
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("defaultValue");  // AttrValueSummary, "-" for none
    QTest::addColumn<QString>("allowed");
    QTest::addColumn<int>("minimum");  // -1 for none
    QTest::newRow("bool default") << "transpose_a: bool = false" << "transpose_a" << "bool" << "false" << "" << -1;
    QTest::newRow("shape") << "shape: shape" << "shape" << "shape" << "-" << "" << -1;
    QTest::newRow("int minimum") << "N: int >= 1" << "N" << "int" << "-" << "" << 1;
    QTest::newRow("type") << "dtype: type" << "dtype" << "type" << "-" << "" << -1;
    QTest::newRow("tensor") << "value: tensor" << "value" << "tensor" << "-" << "" << -1;
    QTest::newRow("list(int)") << "perm: list(int)" << "perm" << "list(int)" << "-" << "" << -1;
    QTest::newRow("allowed types")
        << "T: {float, double, int32, int64} = DT_FLOAT" << "T" << "type" << "float"
        << "float,double,int32,int64" << -1;
    QTest::newRow("shape proto default")
        << "shape: shape = { unknown_rank: true }" << "shape" << "shape" << "<unknown>" << "" << -1;
    QTest::newRow("shape bracket default") << "s: shape = [2,?]" << "s" << "shape" << "[2,?]" << "" << -1;
    QTest::newRow("empty string") << "container: string = ''" << "container" << "string" << "\"\"" << "" << -1;
    QTest::newRow("string set") << "padding: {'SAME', 'VALID'}" << "padding" << "string" << "-" << "SAME,VALID" << -1;
    QTest::newRow("list minimum") << "ksize: list(int) >= 4" << "ksize" << "list(int)" << "-" << "" << 4;
    QTest::newRow("type list") << "Tlist: list(type) = []" << "Tlist" << "list(type)" << "[]" << "" << -1;
    QTest::newRow("float") << "alpha: float = 0.25" << "alpha" << "float" << "0.25" << "" << -1;
    QTest::newRow("int list") << "dims: list(int) = [1, -2]" << "dims" << "list(int)" << "[1, -2]" << "" << -1;
    QTest::newRow("restricted list")
        << "Ts: list({int32, int64}) >= 1" << "Ts" << "list(type)" << "-" << "int32,int64" << 1;
    QTest::newRow("int default with min") << "k: int >= 0 = 3" << "k" << "int" << "3" << "" << 0;
    // clang-format on
  }
  void parseAttrSpec() {
    QFETCH(QString, spec);
    QFETCH(QString, defaultValue);
    QFETCH(int, minimum);
    auto attr = ParseAttrSpec(spec.toStdString());
    QVERIFY2(attr.ok(), qPrintable(Q(attr.status())));
    QTEST(QString::fromStdString(attr->name), "name");
    QTEST(QString::fromStdString(attr->type), "type");
    QCOMPARE(attr->default_value ? QString::fromStdString(AttrValueSummary(*attr->default_value)) : QString("-"),
             defaultValue);
    QStringList allowed;
    for (DataType t : attr->allowed_types) allowed << QString::fromStdString(DataTypeName(t));
    for (const auto& s : attr->allowed_values) allowed << QString::fromStdString(s);
    QTEST(allowed.join(","), "allowed");
    QCOMPARE(attr->has_minimum, minimum >= 0);
    if (minimum >= 0) QCOMPARE(attr->minimum, int64_t(minimum));
  }

  void malformedAttrSpec_data() {
    // clang-format off
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("complaint");
    QTest::newRow("unknown type") << "N: integer" << "unknown attr type 'integer'";
    QTest::newRow("unknown dtype") << "T: {float, blob}" << "'blob' is not a data type";
    QTest::newRow("bad bool") << "a: bool = maybe" << "is not true or false";
    QTest::newRow("bad int") << "N: int = x" << "is not an int";
    QTest::newRow("unquoted string") << "s: string = abc" << "is not a quoted string";
    QTest::newRow("open list") << "x: list(int" << "'list(' without ')'";
    QTest::newRow("min on bool") << "b: bool >= 1" << "only int and list attrs have a minimum";
    QTest::newRow("min not number") << "N: int >= one" << "'>=' needs a number";
    QTest::newRow("empty set") << "T: {}" << "the set of allowed values is empty";
    QTest::newRow("trailing junk") << "x: int extra" << "unexpected 'extra'";
    QTest::newRow("list default") << "x: list(int) = 3" << "must be written [a, b, ...]";
    // clang-format on
  }
  void malformedAttrSpec() {
    QFETCH(QString, spec);
    QFETCH(QString, complaint);
    auto attr = ParseAttrSpec(spec.toStdString());
    QVERIFY(!attr.ok());
    QCOMPARE(attr.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(attr.status()).contains(complaint), qPrintable(Q(attr.status())));
  }

  void typeListArgsResolveInEitherOrder() {
    const OpDef* op = TestRegistry().Find("TestList");
    QVERIFY(op != nullptr);
    QCOMPARE(QString::fromStdString(op->inputs[0].type_list_attr), QString("Tlist"));
    QVERIFY(op->inputs[0].type_attr.empty());
    QVERIFY(ValidateOpDef(*op).ok());

    OpRegistry r;
    r.Register("AttrFirst").Attr("Tin: list(type)").Input("x: Tin");
    QCOMPARE(QString::fromStdString(r.Find("AttrFirst")->inputs[0].type_list_attr), QString("Tin"));
  }

  void validateOpDefNamesTheBadReference_data() {
    // clang-format off
    QTest::addColumn<QString>("complaint");
    QTest::newRow("undeclared") << "input 'x' refers to attr 'T', which the op does not declare";
    QTest::newRow("wrong kind") << "input 'x' needs attr 'N' to be of type int, not bool";
    // clang-format on
  }
  void validateOpDefNamesTheBadReference() {
    QFETCH(QString, complaint);
    OpRegistry r;
    if (QTest::currentDataTag() == QString("undeclared")) r.Register("Bad").Input("x: T");
    else r.Register("Bad").Input("x: N * float").Attr("N: bool");
    Status status = ValidateOpDef(*r.Find("Bad"));
    QVERIFY2(Q(status).contains(complaint), qPrintable(Q(status)));
  }

  void registrationMistakesAbort_data() {
    // clang-format off
    QTest::addColumn<int>("mistake");
    QTest::newRow("duplicate op") << 0;
    QTest::newRow("malformed input") << 1;
    QTest::newRow("default not allowed") << 2;
    QTest::newRow("duplicate attr") << 3;
    QTest::newRow("lower-case op name") << 4;
    // clang-format on
  }
  void registrationMistakesAbort() {
    QFETCH(int, mistake);
    QVERIFY(AbortsInChild([mistake] {
      OpRegistry r;
      switch (mistake) {
        case 0:
          r.Register("Twice");
          r.Register("Twice");
          break;
        case 1: r.Register("Op").Input("x T"); break;
        case 2: r.Register("Op").Attr("T: {float} = DT_INT32"); break;
        case 3: r.Register("Op").Attr("a: int").Attr("a: bool"); break;
        case 4: r.Register("lower"); break;
      }
    }));
  }

  void lookUpUnknownOp() {
    auto op = OpRegistry::Global().LookUp("Foo");
    QVERIFY(!op.ok());
    QCOMPARE(op.status().code(), absl::StatusCode::kNotFound);
    QCOMPARE(Q(op.status().message()), QString("Op type not registered 'Foo'"));
    QVERIFY(OpRegistry::Global().Find("Foo") == nullptr);
  }

  void globalRegistryHasArrayAndStateOps_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("group");
    QTest::addColumn<bool>("stateful");
    for (const char* op : {"Const", "Placeholder", "Identity", "Reshape", "Transpose", "Fill", "ZerosLike",
                           "OnesLike"})
      QTest::newRow(op) << op << "array" << false;
    QTest::newRow("Cast") << "Cast" << "math" << false;
    QTest::newRow("NoOp") << "NoOp" << "control" << false;
    for (const char* op : {"VariableV2", "Assign", "AssignAdd", "AssignSub"}) QTest::newRow(op) << op << "state" << true;
    // clang-format on
  }
  void globalRegistryHasArrayAndStateOps() {
    QFETCH(QString, op);
    auto def = OpRegistry::Global().LookUp(op.toStdString());
    QVERIFY2(def.ok(), qPrintable(Q(def.status())));
    QVERIFY((*def)->HasKernel("CPU"));
    QVERIFY((*def)->shape_fn != nullptr);
    QVERIFY(!(*def)->summary.empty());
    QTEST(QString::fromStdString((*def)->group), "group");
    QTEST((*def)->is_stateful, "stateful");
  }

  void listOpsIsSortedAndValid() {
    auto ops = OpRegistry::Global().ListOps();
    QVERIFY(ops.size() >= 13);
    for (size_t i = 1; i < ops.size(); ++i) QVERIFY(ops[i - 1]->name < ops[i]->name);
    for (const OpDef* op : ops) QVERIFY2(ValidateOpDef(*op).ok(), op->name.c_str());
  }

  void globalIsThreadSafe() {
    // Every thread must see the same, fully built registry.
    std::vector<std::thread> threads;
    std::vector<const OpDef*> seen(8, nullptr);
    for (size_t i = 0; i < seen.size(); ++i)
      threads.emplace_back([&seen, i] { seen[i] = OpRegistry::Global().Find("VariableV2"); });
    for (auto& t : threads) t.join();
    for (const OpDef* op : seen) QCOMPARE(op, seen.front());
    QVERIFY(seen.front() != nullptr);
  }

  void addKernel() {
    OpRegistry r;
    r.Register("Plugged").Output("y: float");
    QVERIFY(r.AddKernel("Plugged", "GPU", nullptr).ok());
    QVERIFY(r.Find("Plugged")->HasKernel("GPU"));
    Status again = r.AddKernel("Plugged", "GPU", nullptr);
    QCOMPARE(again.code(), absl::StatusCode::kAlreadyExists);
    Status missing = r.AddKernel("Nope", "GPU", nullptr);
    QCOMPARE(missing.code(), absl::StatusCode::kNotFound);
    QVERIFY(Q(missing).contains("'Nope'"));
  }

  void addDefaultsAndValidate_data() {
    // clang-format off
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("error");  // empty: valid
    const QString base = "name: 'n' op: 'TestOp' input: 'x' input: 'y' ";
    const QString t = "attr { key: 'T' value { type: DT_FLOAT } } ";
    const QString n1 = "attr { key: 'N' value { i: 1 } } ";
    QTest::newRow("valid") << base + t + n1 << "";
    QTest::newRow("internal attrs pass") << base + t + n1 + "attr { key: '_class' value { list { s: 'loc:@x' } } }"
                                         << "";
    QTest::newRow("control inputs after data") << base + "input: '^c' " + t + n1 << "";
    QTest::newRow("missing attr") << base + n1
                                  << "Attr 'T' (type) of node 'n' (op 'TestOp') is missing and has no default";
    // Attrs a later TensorFlow added to an op are kept and ignored.
  QTest::newRow("unknown attr kept") << base + t + n1 + "attr { key: 'foo' value { i: 1 } }" << "";
    QTest::newRow("type not allowed")
        << base + "attr { key: 'T' value { type: DT_INT32 } } " + n1
        << "Attr 'T' of node 'n' (op 'TestOp') is int32, which is not in the list of allowed values: float, double";
    QTest::newRow("ref type") << base + "attr { key: 'T' value { type: DT_FLOAT_REF } } " + n1
                              << "holds float_ref, a reference type";
    QTest::newRow("wrong attr type") << base + t + n1 + "attr { key: 'flag' value { i: 1 } }"
                                     << "Attr 'flag' of node 'n' (op 'TestOp') has type int, expected bool";
    QTest::newRow("below minimum") << base + t + "attr { key: 'N' value { i: 0 } }"
                                   << "Attr 'N' of node 'n' (op 'TestOp') is 0, less than the minimum 1";
    QTest::newRow("string not allowed") << base + t + n1 + "attr { key: 'mode' value { s: 'medium' } }"
                                        << "is \"medium\", which is not in the list of allowed values: \"fast\", \"slow\"";
    QTest::newRow("list of wrong kind") << base + t + n1 + "attr { key: 'dims' value { list { f: 1.5 } } }"
                                        << "holds a list of float, expected list(int)";
    QTest::newRow("too few inputs") << base + t + "attr { key: 'N' value { i: 2 } }"
                                    << "Node 'n' (op 'TestOp') has 2 data input(s), but the op expects 3 (a: T, b: N * int32)";
    QTest::newRow("count beyond any list") << base + t + "attr { key: 'N' value { i: 1000000000000 } }"
                                           << "Attr 'N' of node 'n' is 1000000000000, more than the 65536 tensors";
    QTest::newRow("data after control") << "name: 'n' op: 'TestOp' input: 'x' input: '^c' input: 'y' " + t + n1
                                        << "lists data input 'y' after a control input";
    QTest::newRow("type list too short") << "name: 'l' op: 'TestList' attr { key: 'Tlist' value { list { } } }"
                                         << "Attr 'Tlist' of node 'l' (op 'TestList') has 0 element(s), fewer than the "
                                            "minimum 1";
    // clang-format on
  }
  void addDefaultsAndValidate() {
    QFETCH(QString, node);
    QFETCH(QString, error);
    tensorflow::NodeDef def = ParseNode(node);
    Status status = AddDefaultsAndValidate(*TestRegistry().Find(def.op()), &def);
    if (error.isEmpty()) {
      QVERIFY2(status.ok(), qPrintable(Q(status)));
    } else {
      QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
      QVERIFY2(Q(status).contains(error), qPrintable(Q(status)));
    }
  }

  void addDefaultsFillsTheRest() {
    tensorflow::NodeDef def = ParseNode(
        "name: 'n' op: 'TestOp' input: 'x' input: 'y' attr { key: 'T' value { type: DT_DOUBLE } } "
        "attr { key: 'N' value { i: 1 } } attr { key: 'flag' value { b: true } }");
    QVERIFY(AddDefaultsAndValidate(*TestRegistry().Find("TestOp"), &def).ok());
    QCOMPARE(def.attr().size(), size_t(5));
    bool flag = false;
    QVERIFY(GetNodeAttr(def, "flag", &flag).ok());
    QVERIFY2(flag, "a given value is kept");
    std::string mode;
    QVERIFY(GetNodeAttr(def, "mode", &mode).ok());
    QCOMPARE(QString::fromStdString(mode), QString("fast"));
    std::vector<int64_t> dims{9};
    QVERIFY(GetNodeAttr(def, "dims", &dims).ok());
    QVERIFY(dims.empty());
  }

  void inOutTypesForNode_data() {
    // clang-format off
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("inputs");
    QTest::addColumn<QString>("outputs");
    QTest::newRow("test op") << "name: 'n' op: 'TestOp' attr { key: 'T' value { type: DT_DOUBLE } } "
                                "attr { key: 'N' value { i: 3 } }"
                             << "double,int32,int32,int32" << "double,double_ref";
    QTest::newRow("type list") << "name: 'l' op: 'TestList' attr { key: 'Tlist' value { list { type: DT_BOOL type: "
                                  "DT_INT64 } } }"
                               << "bool,int64" << "float";
    QTest::newRow("variable") << "name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } }"
                              << "" << "float_ref";
    QTest::newRow("assign") << "name: 'a' op: 'Assign' attr { key: 'T' value { type: DT_INT32 } }"
                            << "int32_ref,int32" << "int32_ref";
    QTest::newRow("cast") << "name: 'c' op: 'Cast' attr { key: 'SrcT' value { type: DT_BOOL } } "
                             "attr { key: 'DstT' value { type: DT_FLOAT } }"
                          << "bool" << "float";
    // clang-format on
  }
  void inOutTypesForNode() {
    QFETCH(QString, node);
    tensorflow::NodeDef def = ParseNode(node);
    const OpDef* op = TestRegistry().Find(def.op());
    if (op == nullptr) op = OpRegistry::Global().Find(def.op());
    QVERIFY(op != nullptr);
    std::vector<DataType> in, out;
    Status status = InOutTypesForNode(def, *op, &in, &out);
    QVERIFY2(status.ok(), qPrintable(Q(status)));
    QTEST(TypesText(in), "inputs");
    QTEST(TypesText(out), "outputs");
  }

  void inOutTypesNeedTheTypeAttr() {
    tensorflow::NodeDef def = ParseNode("name: 'i' op: 'Identity'");
    std::vector<DataType> in, out;
    Status status = InOutTypesForNode(def, *OpRegistry::Global().Find("Identity"), &in, &out);
    QCOMPARE(status.code(), absl::StatusCode::kNotFound);
    QVERIFY2(Q(status).contains("Node 'i' has no attr 'T'"), qPrintable(Q(status)));
  }

  void unregisteredOps() {
    tensorflow::GraphDef graph;
    for (const char* op : {"Const", "Foo", "Bar", "Foo", "VariableV2"}) graph.add_node()->set_op(op);
    auto missing = UnregisteredOps(graph);
    QCOMPARE(missing, (std::vector<std::string>{"Bar", "Foo"}));
  }
};

QTEST_APPLESS_MAIN(OpRegistryTest)
#include "tst_op_registry.moc"
