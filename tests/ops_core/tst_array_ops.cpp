// Array kernels and shape functions against hand-computed values: Const, Placeholder,
// Identity, NoOp, Reshape, Transpose, Cast, Fill, ZerosLike, OnesLike.
#include "KernelTestUtil.h"

#include <QtTest>

using namespace clab;
using namespace clab::testing;
using tensorflow::AttrValue;

Q_DECLARE_METATYPE(clab::Tensor)
Q_DECLARE_METATYPE(clab::PartialShape)
Q_DECLARE_METATYPE(clab::DataType)

namespace {

// PartialShape{} is the unknown shape (its default constructor); a scalar needs dims.
PartialShape ScalarShape() { return PartialShape(std::vector<int64_t>{}); }

QString Q(const absl::Status& s) { return QString::fromStdString(FormatStatus(s)); }
QString Q(const Tensor& t) { return QString::fromStdString(t.SummarizeValue(32)); }

#define EXPECT_TENSOR(actual, expected) \
  QVERIFY2((actual).Equals(expected), qPrintable(QString("got %1, want %2").arg(Q(actual), Q(expected))))

// Runs `node` and returns its single output; fails the test on an error.
Tensor RunOne(const tensorflow::NodeDef& node, const std::vector<Tensor>& inputs) {
  auto out = RunKernel(node, inputs);
  if (!out.ok()) {
    QTest::qFail(qPrintable(Q(out.status())), __FILE__, __LINE__);
    return Tensor();
  }
  return (*out)[0];
}

tensorflow::NodeDef Node2(const char* op, const std::map<std::string, AttrValue>& attrs) {
  return MakeNode("node", op, {"x", "y"}, attrs);
}

}  // namespace

class ArrayOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void constOutputsItsValue() {
    const Tensor value = Tensor::Matrix<int32_t>({{1, 2, 3, 4}});
    auto node = MakeNode("x", "Const", {}, {{"value", AttrOf(value)}, {"dtype", AttrOf(DT_INT32)}});
    EXPECT_TENSOR(RunOne(node, {}), value);
    auto shapes = InferShapes(node, {});
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[0], (PartialShape{1, 4}));
  }

  void constRejectsTypeMismatch() {
    auto node =
        MakeNode("x", "Const", {}, {{"value", AttrOf(Tensor::Scalar<int32_t>(1))}, {"dtype", AttrOf(DT_FLOAT)}});
    auto out = RunKernel(node, {});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains("Type mismatch between value (int32) and dtype (float) of Const node 'x'"),
             qPrintable(Q(out.status())));
  }

  void placeholderMustBeFed_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("shape");
    QTest::addColumn<QString>("message");
    QTest::newRow("partial shape") << PartialShape{-1, 3}
                                   << "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]";
    QTest::newRow("scalar") << ScalarShape() << "You must feed a value for placeholder tensor 'x' with dtype float and shape []";
    QTest::newRow("unknown rank") << PartialShape() << "You must feed a value for placeholder tensor 'x' with dtype float\n";
    // clang-format on
  }
  void placeholderMustBeFed() {
    QFETCH(PartialShape, shape);
    QFETCH(QString, message);
    auto node = MakeNode("x", "Placeholder", {}, {{"dtype", AttrOf(DT_FLOAT)}, {"shape", AttrOf(shape)}});
    auto out = RunKernel(node, {});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains(message), qPrintable(Q(out.status())));
    QVERIFY2(Q(out.status()).contains("{{node x}}"), "kernel errors name their node");
    auto shapes = InferShapes(node, {});
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[0], shape);
  }

  void placeholderShapeDefaultsToUnknown() {
    auto shapes = InferShapes(MakeNode("x", "Placeholder", {}, {{"dtype", AttrOf(DT_INT32)}}), {});
    QVERIFY2(shapes.ok(), qPrintable(Q(shapes.status())));
    QVERIFY(!(*shapes)[0].known_rank());
  }

  void identityPassesValuesAndReadsVariables() {
    const Tensor value = Tensor::Vector<float>({1.5f, -2});
    auto node = MakeNode("i", "Identity", {"w"}, {{"T", AttrOf(DT_FLOAT)}});
    Tensor out = RunOne(node, {value});
    EXPECT_TENSOR(out, value);
    QVERIFY2(out.SharesBufferWith(value), "Identity does not copy");

    // A reference input is read as the variable's value.
    auto var = std::make_shared<Variable>(DT_FLOAT, PartialShape{2});
    var->value() = value;
    EdgeValue ref;
    ref.ref = var;
    auto read = RunKernelOnEdges(node, {ref});
    QVERIFY2(read.ok(), qPrintable(Q(read.status())));
    EXPECT_TENSOR((*read)[0].tensor, value);
    QVERIFY2(!(*read)[0].ref, "the output is a value, not a reference");
  }

  void identityOfUninitialisedVariableFails() {
    auto var = std::make_shared<Variable>(DT_FLOAT, PartialShape{2});
    EdgeValue ref;
    ref.ref = var;
    auto read = RunKernelOnEdges(MakeNode("w/read", "Identity", {"w"}, {{"T", AttrOf(DT_FLOAT)}}), {ref});
    QCOMPARE(read.status().code(), absl::StatusCode::kFailedPrecondition);
    QVERIFY2(Q(read.status()).contains("Attempting to use uninitialized value w\n"), qPrintable(Q(read.status())));
    QVERIFY(Q(read.status()).contains("{{node w/read}}"));
  }

  void noOpDoesNothing() {
    auto out = RunKernel(MakeNode("init", "NoOp", {"^a", "^b"}), {});
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QVERIFY(out->empty());
  }

  void reshape_data() {
    // clang-format off
    QTest::addColumn<Tensor>("input");
    QTest::addColumn<Tensor>("sizes");
    QTest::addColumn<PartialShape>("expected");  // empty message: the output shape
    QTest::addColumn<QString>("error");
    const Tensor six = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
    QTest::newRow("2x3 to 3x2") << six << Tensor::Vector<int32_t>({3, 2}) << PartialShape{3, 2} << "";
    QTest::newRow("flatten") << six << Tensor::Vector<int32_t>({-1}) << PartialShape{6} << "";
    QTest::newRow("infer one") << six << Tensor::Vector<int32_t>({3, -1}) << PartialShape{3, 2} << "";
    QTest::newRow("int64 sizes") << six << Tensor::Vector<int64_t>({1, 6, 1}) << PartialShape{1, 6, 1} << "";
    QTest::newRow("to scalar") << Tensor::Vector<float>({7}) << Tensor::Vector<int32_t>(std::vector<int32_t>{}) << ScalarShape() << "";
    QTest::newRow("wrong count") << six << Tensor::Vector<int32_t>({4}) << PartialShape()
                                 << "Input to reshape is a tensor with 6 values, but the requested shape has 4";
    QTest::newRow("two unknowns") << six << Tensor::Vector<int32_t>({-1, -1}) << PartialShape()
                                  << "Only one input size may be -1, not both 0 and 1";
    QTest::newRow("not a multiple") << Tensor::Vector<float>({1, 2, 3, 4, 5, 6, 7}) << Tensor::Vector<int32_t>({-1, 3})
                                    << PartialShape() << "requested shape requires a multiple of 3";
    QTest::newRow("negative") << six << Tensor::Vector<int32_t>({-2, 3}) << PartialShape()
                              << "Size 0 must be non-negative, not -2";
    QTest::newRow("sizes not 1-D") << six << Tensor::Matrix<int32_t>({{2}, {3}}) << PartialShape()
                                   << "sizes input must be 1-D, not [2,1]";
    // clang-format on
  }
  void reshape() {
    QFETCH(Tensor, input);
    QFETCH(Tensor, sizes);
    QFETCH(PartialShape, expected);
    QFETCH(QString, error);
    auto node = Node2("Reshape", {{"T", AttrOf(input.dtype())}, {"Tshape", AttrOf(sizes.dtype())}});
    auto out = RunKernel(node, {input, sizes});
    if (!error.isEmpty()) {
      QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
      QVERIFY2(Q(out.status()).contains(error), qPrintable(Q(out.status())));
      return;
    }
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    QCOMPARE(PartialShape((*out)[0].shape()), expected);
    QVERIFY2((*out)[0].SharesBufferWith(input), "Reshape does not copy");
  }

  void reshapeShapeFunction_data() {
    // clang-format off
    QTest::addColumn<PartialShape>("input");
    QTest::addColumn<PartialShape>("sizesShape");
    QTest::addColumn<QVector<int>>("sizes");  // empty: not a constant
    QTest::addColumn<PartialShape>("expected");
    QTest::addColumn<QString>("error");
    QTest::newRow("constant") << PartialShape{2, 3} << PartialShape{2} << QVector<int>{3, -1} << PartialShape{3, 2} << "";
    QTest::newRow("partial input") << PartialShape{-1, 3} << PartialShape{1} << QVector<int>{-1} << PartialShape{-1} << "";
    QTest::newRow("unknown sizes") << PartialShape{2, 3} << PartialShape{3} << QVector<int>{} << PartialShape{-1, -1, -1}
                                   << "";
    QTest::newRow("nothing known") << PartialShape() << PartialShape() << QVector<int>{} << PartialShape() << "";
    QTest::newRow("mismatch") << PartialShape{2, 3} << PartialShape{1} << QVector<int>{4} << PartialShape()
                              << "Cannot reshape a tensor with 6 elements to shape [4] (4 elements) for 'node' (op: "
                                 "'Reshape') with input shapes: [2,3], [1]";
    QTest::newRow("two unknowns") << PartialShape{2, 3} << PartialShape{2} << QVector<int>{-1, -1} << PartialShape()
                                  << "Cannot infer multiple unknown dimensions in shape [-1,-1]";
    // clang-format on
  }
  void reshapeShapeFunction() {
    QFETCH(PartialShape, input);
    QFETCH(PartialShape, sizesShape);
    QFETCH(QVector<int>, sizes);
    QFETCH(PartialShape, expected);
    QFETCH(QString, error);
    const Tensor constant = Tensor::Vector<int32_t>(std::vector<int32_t>(sizes.begin(), sizes.end()));
    auto node = Node2("Reshape", {{"T", AttrOf(DT_FLOAT)}});
    auto shapes = InferShapes(node, {input, sizesShape}, {nullptr, sizes.isEmpty() ? nullptr : &constant});
    if (!error.isEmpty()) {
      QCOMPARE(shapes.status().code(), absl::StatusCode::kInvalidArgument);
      QVERIFY2(Q(shapes.status()).contains(error), qPrintable(Q(shapes.status())));
      return;
    }
    QVERIFY2(shapes.ok(), qPrintable(Q(shapes.status())));
    QCOMPARE((*shapes)[0], expected);
  }

  void transpose_data() {
    // clang-format off
    QTest::addColumn<Tensor>("input");
    QTest::addColumn<Tensor>("perm");
    QTest::addColumn<Tensor>("expected");
    QTest::newRow("matrix") << Tensor::Matrix<int32_t>({{1, 2, 3}, {4, 5, 6}}) << Tensor::Vector<int32_t>({1, 0})
                            << Tensor::Matrix<int32_t>({{1, 4}, {2, 5}, {3, 6}});
    QTest::newRow("identity") << Tensor::Matrix<float>({{1, 2}}) << Tensor::Vector<int64_t>({0, 1})
                              << Tensor::Matrix<float>({{1, 2}});
    QTest::newRow("strings") << Tensor::Matrix<std::string>({{"a", "b"}, {"c", "d"}}) << Tensor::Vector<int32_t>({1, 0})
                             << Tensor::Matrix<std::string>({{"a", "c"}, {"b", "d"}});
    QTest::newRow("row to column") << Tensor::Matrix<double>({{1, 2, 3}}) << Tensor::Vector<int32_t>({1, 0})
                                   << Tensor::Matrix<double>({{1}, {2}, {3}});
    // in[i][j][k] = 100i + 10j + k with shape [2,3,2]; perm [2,0,1] gives out[k][i][j].
    std::vector<int32_t> in, out;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 2; ++k) in.push_back(100 * i + 10 * j + k);
    for (int k = 0; k < 2; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) out.push_back(100 * i + 10 * j + k);
    QTest::newRow("rank 3") << Tensor::FromVector<int32_t>(in, TensorShape{2, 3, 2}) << Tensor::Vector<int32_t>({2, 0, 1})
                            << Tensor::FromVector<int32_t>(out, TensorShape{2, 2, 3});
    // clang-format on
  }
  void transpose() {
    QFETCH(Tensor, input);
    QFETCH(Tensor, perm);
    QFETCH(Tensor, expected);
    auto node = Node2("Transpose", {{"T", AttrOf(input.dtype())}, {"Tperm", AttrOf(perm.dtype())}});
    EXPECT_TENSOR(RunOne(node, {input, perm}), expected);
    auto shapes = InferShapes(node, {PartialShape(input.shape()), PartialShape(perm.shape())}, {nullptr, &perm});
    QVERIFY2(shapes.ok(), qPrintable(Q(shapes.status())));
    QCOMPARE((*shapes)[0], PartialShape(expected.shape()));
  }

  void transposeErrors_data() {
    // clang-format off
    QTest::addColumn<Tensor>("perm");
    QTest::addColumn<QString>("error");
    QTest::newRow("wrong size") << Tensor::Vector<int32_t>({0, 1, 2})
                                << "transpose expects a vector of size 2. But input(1) is a vector of size 3";
    QTest::newRow("out of range") << Tensor::Vector<int32_t>({0, 5}) << "perm[1] = 5 is out of range for a tensor of rank 2";
    QTest::newRow("repeated") << Tensor::Vector<int32_t>({1, 1}) << "1 is repeated in perm [1,1]";
    QTest::newRow("not a vector") << Tensor::Matrix<int32_t>({{1, 0}}) << "perm must be a vector, not [1,2]";
    // clang-format on
  }
  void transposeErrors() {
    QFETCH(Tensor, perm);
    QFETCH(QString, error);
    auto out = RunKernel(Node2("Transpose", {{"T", AttrOf(DT_FLOAT)}}), {Tensor::Matrix<float>({{1, 2}}), perm});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains(error), qPrintable(Q(out.status())));
    QVERIFY(Q(out.status()).contains("{{node node}}"));
  }

  void transposeShapeWithoutConstantPerm() {
    auto node = Node2("Transpose", {{"T", AttrOf(DT_FLOAT)}});
    auto shapes = InferShapes(node, {PartialShape{2, 3, 4}, PartialShape{3}});
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[0], (PartialShape{-1, -1, -1}));
    const Tensor bad = Tensor::Vector<int32_t>({0, 0, 1});
    shapes = InferShapes(node, {PartialShape{2, 3, 4}, PartialShape{3}}, {nullptr, &bad});
    QVERIFY2(Q(shapes.status()).contains("0 is repeated in perm [0,0,1]") &&
                 Q(shapes.status()).contains("for 'node' (op: 'Transpose')"),
             qPrintable(Q(shapes.status())));
  }

  void cast_data() {
    // clang-format off
    QTest::addColumn<Tensor>("input");
    QTest::addColumn<DataType>("dstT");
    QTest::addColumn<Tensor>("expected");
    QTest::newRow("float to int32 truncates") << Tensor::Vector<float>({1.7f, -1.7f, 0}) << DT_INT32
                                              << Tensor::Vector<int32_t>({1, -1, 0});
    QTest::newRow("int32 to bool") << Tensor::Vector<int32_t>({0, 2, -1}) << DT_BOOL
                                   << Tensor::Vector<bool>({false, true, true});
    QTest::newRow("bool to float") << Tensor::Vector<bool>({true, false}) << DT_FLOAT << Tensor::Vector<float>({1, 0});
    QTest::newRow("double to int64") << Tensor::Vector<double>({3e10, -2.5}) << DT_INT64
                                     << Tensor::Vector<int64_t>({30000000000LL, -2});
    QTest::newRow("uint8 to int32") << Tensor::Vector<uint8_t>({255, 0}) << DT_INT32 << Tensor::Vector<int32_t>({255, 0});
    QTest::newRow("int64 to double") << Tensor::Matrix<int64_t>({{1}, {-3}}) << DT_DOUBLE
                                     << Tensor::Matrix<double>({{1}, {-3}});
    QTest::newRow("same type") << Tensor::Vector<float>({0.5f}) << DT_FLOAT << Tensor::Vector<float>({0.5f});
    // Values an integer type cannot hold saturate; NaN gives 0.
    QTest::newRow("float to uint8 saturates") << Tensor::Vector<float>({1e30f, -1e30f, NAN, 300.5f, 3.7f}) << DT_UINT8
                                              << Tensor::Vector<uint8_t>({255, 0, 0, 255, 3});
    QTest::newRow("double to int32 saturates") << Tensor::Vector<double>({1e300, -1e300, NAN}) << DT_INT32
                                               << Tensor::Vector<int32_t>({2147483647, -2147483647 - 1, 0});
    QTest::newRow("float to int64 saturates") << Tensor::Vector<float>({1e30f, -1e30f}) << DT_INT64
                                              << Tensor::Vector<int64_t>({INT64_MAX, INT64_MIN});
    // clang-format on
  }
  void cast() {
    QFETCH(Tensor, input);
    QFETCH(DataType, dstT);
    QFETCH(Tensor, expected);
    auto node = MakeNode("c", "Cast", {"x"}, {{"SrcT", AttrOf(input.dtype())}, {"DstT", AttrOf(dstT)}});
    EXPECT_TENSOR(RunOne(node, {input}), expected);
  }

  void castRejectsStrings() {
    auto node = MakeNode("c", "Cast", {"x"}, {{"SrcT", AttrOf(DT_STRING)}, {"DstT", AttrOf(DT_FLOAT)}});
    auto out = RunKernel(node, {Tensor::Scalar<std::string>("1")});
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains("Attr 'SrcT' of node 'c' (op 'Cast') is string, which is not in the list"),
             qPrintable(Q(out.status())));
  }

  void fill_data() {
    // clang-format off
    QTest::addColumn<Tensor>("dims");
    QTest::addColumn<Tensor>("value");
    QTest::addColumn<Tensor>("expected");
    QTest::addColumn<QString>("error");
    QTest::newRow("float") << Tensor::Vector<int32_t>({2, 3}) << Tensor::Scalar<float>(5)
                           << Tensor::Matrix<float>({{5, 5, 5}, {5, 5, 5}}) << "";
    QTest::newRow("int64 dims") << Tensor::Vector<int64_t>({2}) << Tensor::Scalar<int32_t>(-1)
                                << Tensor::Vector<int32_t>({-1, -1}) << "";
    QTest::newRow("strings") << Tensor::Vector<int32_t>({1}) << Tensor::Scalar<std::string>("ab")
                             << Tensor::Vector<std::string>({"ab"}) << "";
    QTest::newRow("scalar output") << Tensor::Vector<int32_t>({}) << Tensor::Scalar<bool>(true)
                                   << Tensor::Scalar<bool>(true) << "";
    QTest::newRow("dims not a vector") << Tensor::Matrix<int32_t>({{2}}) << Tensor::Scalar<float>(1) << Tensor()
                                       << "dims must be a vector, got shape [1,1]";
    QTest::newRow("value not a scalar") << Tensor::Vector<int32_t>({2}) << Tensor::Vector<float>({1, 2}) << Tensor()
                                        << "value must be a scalar, got shape [2]";
    QTest::newRow("negative dim") << Tensor::Vector<int32_t>({2, -3}) << Tensor::Scalar<float>(1) << Tensor()
                                  << "Fill dimensions are invalid";
    // clang-format on
  }
  void fill() {
    QFETCH(Tensor, dims);
    QFETCH(Tensor, value);
    QFETCH(Tensor, expected);
    QFETCH(QString, error);
    auto node = Node2("Fill", {{"T", AttrOf(value.dtype())}, {"index_type", AttrOf(dims.dtype())}});
    auto out = RunKernel(node, {dims, value});
    if (!error.isEmpty()) {
      QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
      QVERIFY2(Q(out.status()).contains(error), qPrintable(Q(out.status())));
      return;
    }
    QVERIFY2(out.ok(), qPrintable(Q(out.status())));
    EXPECT_TENSOR((*out)[0], expected);
  }

  void fillShapeFunction() {
    auto node = Node2("Fill", {{"T", AttrOf(DT_FLOAT)}});
    const Tensor dims = Tensor::Vector<int32_t>({2, 3});
    auto shapes = InferShapes(node, {PartialShape{2}, ScalarShape()}, {&dims});
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[0], (PartialShape{2, 3}));
    shapes = InferShapes(node, {PartialShape{2}, ScalarShape()});
    QCOMPARE((*shapes)[0], (PartialShape{-1, -1}));
    shapes = InferShapes(node, {PartialShape{2}, PartialShape{2}});
    QVERIFY2(Q(shapes.status())
                 .contains("Shape must be rank 0 but is rank 1 for 'node' (op: 'Fill') with input shapes: "
                           "[2], [2]."),
             qPrintable(Q(shapes.status())));
  }

  void zerosAndOnesLike_data() {
    // clang-format off
    QTest::addColumn<QString>("op");
    QTest::addColumn<Tensor>("input");
    QTest::addColumn<Tensor>("expected");
    QTest::newRow("zeros float") << "ZerosLike" << Tensor::Matrix<float>({{1, 2}}) << Tensor::Matrix<float>({{0, 0}});
    QTest::newRow("zeros bool") << "ZerosLike" << Tensor::Vector<bool>({true}) << Tensor::Vector<bool>({false});
    QTest::newRow("zeros string") << "ZerosLike" << Tensor::Vector<std::string>({"a"}) << Tensor::Vector<std::string>({""});
    QTest::newRow("ones int64") << "OnesLike" << Tensor::Vector<int64_t>({7, 8, 9}) << Tensor::Vector<int64_t>({1, 1, 1});
    QTest::newRow("ones double") << "OnesLike" << Tensor::Scalar<double>(3) << Tensor::Scalar<double>(1);
    QTest::newRow("ones uint8") << "OnesLike" << Tensor::Vector<uint8_t>({0, 4}) << Tensor::Vector<uint8_t>({1, 1});
    // clang-format on
  }
  void zerosAndOnesLike() {
    QFETCH(QString, op);
    QFETCH(Tensor, input);
    QFETCH(Tensor, expected);
    auto node = MakeNode("z", op.toStdString(), {"x"}, {{"T", AttrOf(input.dtype())}});
    EXPECT_TENSOR(RunOne(node, {input}), expected);
    auto shapes = InferShapes(node, {PartialShape{-1, 2}});
    QVERIFY(shapes.ok());
    QCOMPARE((*shapes)[0], (PartialShape{-1, 2}));
  }

  // Inputs a client's graph may hold that no kernel may take on trust: each fails its node
  // with INVALID_ARGUMENT naming what is wrong.
  void badInputsAreRefused_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QList<Tensor>>("inputs");
    QTest::addColumn<QString>("error");
    const Tensor none = Tensor::Vector<int32_t>({});
    QTest::newRow("Range of NaN") << "Range"
                                  << QList<Tensor>{Tensor::Scalar<float>(0), Tensor::Scalar<float>(NAN),
                                                   Tensor::Scalar<float>(1)}
                                  << "Range needs finite start, limit and delta";
    QTest::newRow("Range too long") << "Range"
                                    << QList<Tensor>{Tensor::Scalar<double>(0), Tensor::Scalar<double>(1e300),
                                                     Tensor::Scalar<double>(1e-300)}
                                    << "has too many elements";
    QTest::newRow("Range of an empty start")
        << "Range" << QList<Tensor>{none, Tensor::Scalar<int32_t>(3), Tensor::Scalar<int32_t>(1)}
        << "Range's start must be a scalar";
    QTest::newRow("OneHot of an empty depth")
        << "OneHot"
        << QList<Tensor>{Tensor::Vector<int32_t>({0, 1}), none, Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)}
        << "OneHot's depth must hold a single value";
  }
  void badInputsAreRefused() {
    QFETCH(QString, op);
    QFETCH(QList<Tensor>, inputs);
    QFETCH(QString, error);
    std::vector<std::string> names;
    for (int i = 0; i < inputs.size(); ++i) names.push_back("in" + std::to_string(i));
    std::map<std::string, AttrValue> attrs;
    if (op == "Range") attrs["Tidx"] = AttrOf(inputs[1].dtype());
    if (op == "OneHot") {
      attrs["T"] = AttrOf(DT_FLOAT);
      attrs["TI"] = AttrOf(DT_INT32);
    }
    auto out =
        RunKernel(MakeNode("bad", op.toStdString(), names, attrs), std::vector<Tensor>(inputs.begin(), inputs.end()));
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    QVERIFY2(Q(out.status()).contains(error), qPrintable(Q(out.status())));
  }
};

QTEST_APPLESS_MAIN(ArrayOpsTest)
#include "tst_array_ops.moc"
