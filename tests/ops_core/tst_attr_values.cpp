// Typed attr access, AttrValue construction and summaries, and shape-function errors.
#include "clab/graph/AttrValues.h"
#include "clab/graph/ShapeContext.h"

#include <QtTest>

using namespace clab;
using tensorflow::AttrValue;

Q_DECLARE_METATYPE(tensorflow::AttrValue)

namespace {

QString Q(const absl::Status& s) { return QString::fromStdString(FormatStatus(s)); }

tensorflow::NodeDef NodeWith(const std::string& attr, const AttrValue& value) {
  tensorflow::NodeDef node;
  node.set_name("n");
  node.set_op("Test");
  (*node.mutable_attr())[attr] = value;
  return node;
}

}  // namespace

class AttrValuesTest : public QObject {
  Q_OBJECT

 private slots:
  void scalarsRoundTrip() {
    int64_t i = 0;
    QVERIFY(GetNodeAttr(NodeWith("a", AttrOf(int64_t{1} << 40)), "a", &i).ok());
    QCOMPARE(i, int64_t{1} << 40);
    int32_t i32 = 0;
    QVERIFY(GetNodeAttr(NodeWith("a", AttrOf(-7)), "a", &i32).ok());
    QCOMPARE(i32, -7);
    float f = 0;
    QVERIFY(GetNodeAttr(NodeWith("a", AttrOf(0.5f)), "a", &f).ok());
    QCOMPARE(f, 0.5f);
    bool b = false;
    QVERIFY(GetNodeAttr(NodeWith("a", AttrOf(true)), "a", &b).ok());
    QVERIFY(b);
    std::string s;
    QVERIFY(GetNodeAttr(NodeWith("a", AttrOf("SAME")), "a", &s).ok());
    QCOMPARE(QString::fromStdString(s), QString("SAME"));
    DataType t = DT_INVALID;
    QVERIFY(GetNodeAttr(NodeWith("a", AttrOf(DT_INT64)), "a", &t).ok());
    QCOMPARE(t, DT_INT64);
  }

  void shapesAndTensorsRoundTrip() {
    PartialShape shape;
    QVERIFY(GetNodeAttr(NodeWith("s", AttrOf(PartialShape{-1, 3})), "s", &shape).ok());
    QCOMPARE(shape, (PartialShape{-1, 3}));
    QVERIFY(GetNodeAttr(NodeWith("s", AttrOf(PartialShape())), "s", &shape).ok());
    QVERIFY(!shape.known_rank());
    QVERIFY(GetNodeAttr(NodeWith("s", AttrOf(TensorShape{2})), "s", &shape).ok());
    QCOMPARE(shape, (PartialShape{2}));

    Tensor value;
    const Tensor m = Tensor::Matrix<int32_t>({{1, 2}, {3, 4}});
    QVERIFY(GetNodeAttr(NodeWith("v", AttrOf(m)), "v", &value).ok());
    QVERIFY(value.Equals(m));
  }

  void listsRoundTrip() {
    std::vector<int64_t> ints;
    QVERIFY(GetNodeAttr(NodeWith("l", AttrOf(std::vector<int64_t>{1, 0, 2})), "l", &ints).ok());
    QCOMPARE(ints, (std::vector<int64_t>{1, 0, 2}));
    std::vector<std::string> strings;
    QVERIFY(GetNodeAttr(NodeWith("l", AttrOf(std::vector<std::string>{"loc:@w"})), "l", &strings).ok());
    QCOMPARE(strings, (std::vector<std::string>{"loc:@w"}));
    std::vector<DataType> types;
    QVERIFY(GetNodeAttr(NodeWith("l", AttrOf(std::vector<DataType>{DT_FLOAT, DT_BOOL})), "l", &types).ok());
    QCOMPARE(types, (std::vector<DataType>{DT_FLOAT, DT_BOOL}));
    // An attr with no value at all reads as an empty list.
    ints = {5};
    QVERIFY(GetNodeAttr(NodeWith("l", AttrValue()), "l", &ints).ok());
    QVERIFY(ints.empty());
  }

  void missingAttrIsNotFound() {
    int64_t i = 0;
    Status status = GetNodeAttr(NodeWith("a", AttrOf(1)), "b", &i);
    QCOMPARE(status.code(), absl::StatusCode::kNotFound);
    QCOMPARE(QString::fromUtf8(status.message().data(), status.message().size()), QString("Node 'n' has no attr 'b'"));
    QVERIFY(HasNodeAttr(NodeWith("a", AttrOf(1)), "a"));
    QVERIFY(!HasNodeAttr(NodeWith("a", AttrOf(1)), "b"));
  }

  void wrongTypeNamesBoth_data() {
    // clang-format off
    QTest::addColumn<AttrValue>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("int as float") << AttrOf(3) << "Attr 'a' of node 'n' has type int, expected float";
    QTest::newRow("string as float") << AttrOf("x") << "Attr 'a' of node 'n' has type string, expected float";
    QTest::newRow("list as float") << AttrOf(std::vector<int64_t>{1}) << "Attr 'a' of node 'n' has type list, expected float";
    // clang-format on
  }
  void wrongTypeNamesBoth() {
    QFETCH(AttrValue, value);
    QFETCH(QString, message);
    float f = 0;
    Status status = GetNodeAttr(NodeWith("a", value), "a", &f);
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(QString::fromUtf8(status.message().data(), status.message().size()), message);
  }

  void int32Overflow() {
    int32_t i = 0;
    Status status = GetNodeAttr(NodeWith("a", AttrOf(int64_t{1} << 33)), "a", &i);
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(status).contains("does not fit in int32"), qPrintable(Q(status)));
  }

  void listOfWrongKind() {
    std::vector<DataType> types;
    Status status = GetNodeAttr(NodeWith("a", AttrOf(7)), "a", &types);
    QVERIFY2(Q(status).contains("has type int, expected list(type)"), qPrintable(Q(status)));
  }

  void summaries_data() {
    // clang-format off
    QTest::addColumn<AttrValue>("value");
    QTest::addColumn<QString>("summary");
    QTest::newRow("type") << AttrOf(DT_FLOAT) << "float";
    QTest::newRow("shape") << AttrOf(TensorShape{2, 3}) << "[2,3]";
    QTest::newRow("partial shape") << AttrOf(PartialShape{-1, 3}) << "[?,3]";
    QTest::newRow("unknown shape") << AttrOf(PartialShape()) << "<unknown>";
    QTest::newRow("bool") << AttrOf(true) << "true";
    QTest::newRow("string") << AttrOf("s") << "\"s\"";
    QTest::newRow("int") << AttrOf(-4) << "-4";
    QTest::newRow("float") << AttrOf(0.25f) << "0.25";
    QTest::newRow("int list") << AttrOf(std::vector<int64_t>{1, 2}) << "[1, 2]";
    QTest::newRow("string list") << AttrOf(std::vector<std::string>{"a", "b"}) << "[\"a\", \"b\"]";
    QTest::newRow("type list") << AttrOf(std::vector<DataType>{DT_INT32, DT_BOOL}) << "[int32, bool]";
    QTest::newRow("empty list") << AttrOf(std::vector<int64_t>{}) << "[]";
    QTest::newRow("tensor") << AttrOf(Tensor::Scalar<int32_t>(20))
                            << "Tensor<type: int32 shape: [] values: 20>";
    // clang-format on
  }
  void summaries() {
    QFETCH(AttrValue, value);
    QTEST(QString::fromStdString(AttrValueSummary(value)), "summary");
  }

  void shapeErrorsReadLikeTensorFlow() {
    tensorflow::NodeDef node;
    node.set_name("MatMul");
    node.set_op("MatMul");
    ShapeContext ctx(node, {DT_FLOAT, DT_FLOAT}, {PartialShape{2, 3}, PartialShape{4, 2}}, {nullptr, nullptr}, 1);
    Status status = ctx.MakeError("Dimensions must be equal, but are 3 and 4");
    QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
    QCOMPARE(QString::fromUtf8(status.message().data(), status.message().size()),
             QString("Dimensions must be equal, but are 3 and 4 for 'MatMul' (op: 'MatMul') with input shapes: "
                     "[2,3], [4,2]."));
  }

  void shapeErrorsShowUnknownRanksAndConstants() {
    tensorflow::NodeDef node;
    node.set_name("r");
    node.set_op("Reshape");
    const Tensor sizes = Tensor::Vector<int32_t>({4});
    ShapeContext ctx(node, {DT_FLOAT, DT_INT32}, {PartialShape(), PartialShape{1}}, {nullptr, &sizes}, 1);
    QCOMPARE(ctx.GetAttr("T", static_cast<DataType*>(nullptr)).code(), absl::StatusCode::kNotFound);
    Status status = ctx.MakeError("Bad");
    QCOMPARE(QString::fromUtf8(status.message().data(), status.message().size()),
             QString("Bad for 'r' (op: 'Reshape') with input shapes: ?, [1] and with computed input tensors: "
                     "input[1] = <[4]>."));
  }
};

QTEST_APPLESS_MAIN(AttrValuesTest)
#include "tst_attr_values.moc"
