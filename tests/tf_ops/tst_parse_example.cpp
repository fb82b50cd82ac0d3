// ParseExample on tf.Example records built here with the protobuf classes: dense keys (from
// the example, from the default, required and missing), a sequence feature padded with its
// default, sparse keys as (indices, values, shape), type and count mismatches named with
// the example and the key, the shape function, and the generated examples `clab run
// --feed_random` feeds a ParseExample (tools::ExampleFeed) parsing back.
#include "KernelTestUtil.h"
#include "clab/graph/AttrValues.h"
#include "formats/ExampleFeed.h"
#include "tensorflow/example.pb.h"

#include <QtTest/QtTest>

using namespace clab;
using namespace clab::testing;

namespace {

#define EXPECT_TENSOR(actual, expected)                                                                        \
  QVERIFY2((actual).Equals(expected), qPrintable(QString("got %1, want %2")                                    \
                                                     .arg(QString::fromStdString((actual).SummarizeValue(32)), \
                                                          QString::fromStdString((expected).SummarizeValue(32)))))

std::string Serialized(const std::map<std::string, tensorflow::Feature>& features) {
  tensorflow::Example example;
  for (const auto& [key, feature] : features) (*example.mutable_features()->mutable_feature())[key] = feature;
  return example.SerializeAsString();
}

tensorflow::Feature Floats(std::vector<float> values) {
  tensorflow::Feature feature;
  for (float v : values) feature.mutable_float_list()->add_value(v);
  return feature;
}

tensorflow::Feature Ints(std::vector<int64_t> values) {
  tensorflow::Feature feature;
  for (int64_t v : values) feature.mutable_int64_list()->add_value(v);
  return feature;
}

tensorflow::Feature Bytes(std::vector<std::string> values) {
  tensorflow::Feature feature;
  for (const std::string& v : values) feature.mutable_bytes_list()->add_value(v);
  return feature;
}

PartialShape Shape(std::vector<int64_t> dims) { return PartialShape(std::move(dims)); }

// A ParseExample node with the given sparse keys (and types) and dense keys (types, shapes).
tensorflow::NodeDef Parser(const std::vector<DataType>& sparse_types, const std::vector<DataType>& dense_types,
                           const std::vector<PartialShape>& dense_shapes) {
  const size_t inputs = 2 + sparse_types.size() + 2 * dense_types.size();
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs; ++i) names.push_back("in" + std::to_string(i));
  tensorflow::NodeDef node = MakeNode("parse", "ParseExample", names,
                                      {{"Nsparse", AttrOf(static_cast<int64_t>(sparse_types.size()))},
                                       {"Ndense", AttrOf(static_cast<int64_t>(dense_types.size()))},
                                       {"sparse_types", AttrOf(sparse_types)},
                                       {"Tdense", AttrOf(dense_types)}});
  auto* shapes = (*node.mutable_attr())["dense_shapes"].mutable_list();
  for (const PartialShape& shape : dense_shapes) *shapes->add_shape() = AttrOf(shape).shape();
  return node;
}

QByteArray AsBytes(const std::string& bytes) { return QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())); }

Tensor Strings(std::vector<std::string> values) { return Tensor::Vector<std::string>(values); }
Tensor Key(const std::string& key) { return Tensor::Scalar<std::string>(key); }

}  // namespace

class ParseExampleTest : public QObject {
  Q_OBJECT

 private slots:
  void denseKeysFromExamplesAndDefaults() {
    // "x": float [2], required; "id": int64 scalar with default 7; "tag": string [1].
    const Tensor serialized = Strings({Serialized({{"x", Floats({1, 2})}, {"id", Ints({3})}, {"tag", Bytes({"a"})}}),
                                       Serialized({{"x", Floats({4, 5})}, {"tag", Bytes({"b"})}})});
    auto out = RunKernel(Parser({}, {DT_FLOAT, DT_INT64, DT_STRING}, {Shape({2}), Shape({}), Shape({1})}),
                         {serialized, Strings({}), Key("x"), Key("id"), Key("tag"), Tensor(DT_FLOAT, TensorShape({0})),
                          Tensor::Scalar<int64_t>(7), Tensor(DT_STRING, TensorShape({0}))});
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    QCOMPARE(out->size(), size_t{3});
    EXPECT_TENSOR((*out)[0], Tensor::Matrix<float>({{1, 2}, {4, 5}}));
    EXPECT_TENSOR((*out)[1], Tensor::Vector<int64_t>({3, 7}));
    EXPECT_TENSOR((*out)[2], Tensor::FromVector<std::string>({"a", "b"}, TensorShape({2, 1})));
  }

  void sequenceFeaturePaddedWithDefault() {
    // dense shape [?, 2]: rows of 2, padded to the longest example with -1.
    const Tensor serialized =
        Strings({Serialized({{"s", Floats({1, 2, 3, 4})}}), Serialized({{"s", Floats({5, 6})}}), Serialized({})});
    auto out = RunKernel(Parser({}, {DT_FLOAT}, {Shape({-1, 2})}),
                         {serialized, Strings({}), Key("s"), Tensor::Scalar<float>(-1)});
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    EXPECT_TENSOR((*out)[0],
                  Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1}, TensorShape({3, 2, 2})));
  }

  void sparseKeys() {
    const Tensor serialized =
        Strings({Serialized({{"w", Ints({4, 5, 6})}}), Serialized({}), Serialized({{"w", Ints({9})}})});
    auto out = RunKernel(Parser({DT_INT64}, {}, {}), {serialized, Strings({}), Key("w")});
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    QCOMPARE(out->size(), size_t{3});
    EXPECT_TENSOR((*out)[0], Tensor::Matrix<int64_t>({{0, 0}, {0, 1}, {0, 2}, {2, 0}}));
    EXPECT_TENSOR((*out)[1], Tensor::Vector<int64_t>({4, 5, 6, 9}));
    EXPECT_TENSOR((*out)[2], Tensor::Vector<int64_t>({3, 3}));
  }

  void badInputIsNamed_data() {
    QTest::addColumn<QByteArray>("serialized");  // bytes: a QString would re-encode them
    QTest::addColumn<QString>("message");
    QTest::newRow("missing required key") << AsBytes(Serialized({{"y", Floats({1, 2})}}))
                                          << "example 1 ('second'), feature 'x' (data type: float) is required";
    QTest::newRow("wrong list type") << AsBytes(Serialized({{"x", Ints({1, 2})}}))
                                     << "example 1 ('second'), feature 'x': data types don't match: expected a "
                                        "float_list";
    QTest::newRow("wrong count") << AsBytes(Serialized({{"x", Floats({1, 2, 3})}}))
                                 << "feature 'x' has 3 values; dense shape [2] needs 2";
    QTest::newRow("not an Example") << QByteArray("\xff\xff\xff") << "example 1 ('second') could not be parsed";
  }
  void badInputIsNamed() {
    QFETCH(QByteArray, serialized);
    QFETCH(QString, message);
    const std::string good = Serialized({{"x", Floats({1, 2})}});
    const std::string bad = serialized.toStdString();
    auto out = RunKernel(Parser({}, {DT_FLOAT}, {Shape({2})}), {Strings({good, bad}), Strings({"first", "second"}),
                                                                Key("x"), Tensor(DT_FLOAT, TensorShape({0}))});
    QVERIFY(!out.ok());
    QCOMPARE(out.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string text(out.status().message());
    QVERIFY2(text.find(message.toStdString()) != std::string::npos, text.c_str());
    QVERIFY2(text.find("parse") != std::string::npos, text.c_str());  // the node
  }

  // A dense shape whose rows hold no elements ([?, 0]) divides by nothing: values for it are
  // an error naming the key, an absent or empty feature parses to zero rows.
  void rowsOfNoElements() {
    auto bad = RunKernel(Parser({}, {DT_FLOAT}, {Shape({-1, 0})}), {Strings({Serialized({{"z", Floats({1, 2})}})}),
                                                                    Strings({}), Key("z"), Tensor::Scalar<float>(0)});
    QVERIFY(!bad.ok());
    QVERIFY2(std::string(bad.status().message()).find("feature 'z' has 2 values") != std::string::npos,
             std::string(bad.status().message()).c_str());
    auto empty = RunKernel(Parser({}, {DT_FLOAT}, {Shape({-1, 0})}),
                           {Strings({Serialized({})}), Strings({}), Key("z"), Tensor::Scalar<float>(0)});
    QVERIFY2(empty.ok(), std::string(empty.status().message()).c_str());
    QCOMPARE((*empty)[0].shape(), TensorShape({1, 0, 0}));
  }

  // Row sizes that overflow int64 are refused when the node is made, naming the shape.
  void rowSizeThatOverflows() {
    auto out = RunKernel(Parser({}, {DT_FLOAT}, {Shape({-1, int64_t{1} << 40, int64_t{1} << 40})}),
                         {Strings({Serialized({})}), Strings({}), Key("z"), Tensor::Scalar<float>(0)});
    QVERIFY(!out.ok());
    QVERIFY2(std::string(out.status().message()).find("dense_shapes[0]") != std::string::npos,
             std::string(out.status().message()).c_str());
  }

  void shapeFunction() {
    auto shapes = InferShapes(Parser({DT_STRING}, {DT_FLOAT, DT_INT64}, {Shape({3}), Shape({-1, 2})}),
                              {Shape({5}), Shape({0}), Shape({}), Shape({}), Shape({}), Shape({0}), Shape({})});
    QVERIFY2(shapes.ok(), std::string(shapes.status().message()).c_str());
    QCOMPARE(shapes->size(), size_t{5});
    QCOMPARE((*shapes)[0].DebugString(), Shape({-1, 2}).DebugString());
    QCOMPARE((*shapes)[2].DebugString(), Shape({2}).DebugString());
    QCOMPARE((*shapes)[3].DebugString(), Shape({5, 3}).DebugString());
    QCOMPARE((*shapes)[4].DebugString(), Shape({5, -1, 2}).DebugString());
  }

  // What --feed_random feeds a serving graph's string input parses with the graph's parser.
  void generatedExamplesParse() {
    tensorflow::GraphDef graph;
    *graph.add_node() = MakeNode("tf_example", "Placeholder", {}, {{"dtype", AttrOf(DT_STRING)}});
    *graph.add_node() = MakeNode("names", "Const", {}, {{"value", AttrOf(Strings({}))}, {"dtype", AttrOf(DT_STRING)}});
    for (const char* key : {"w", "x", "id"})
      *graph.add_node() =
          MakeNode(std::string("key_") + key, "Const", {}, {{"value", AttrOf(Key(key))}, {"dtype", AttrOf(DT_STRING)}});
    tensorflow::NodeDef parser = Parser({DT_STRING}, {DT_FLOAT, DT_INT64}, {Shape({3}), Shape({-1})});
    parser.clear_input();
    for (const char* input : {"tf_example", "names", "key_w", "key_x", "key_id", "names", "names"})
      parser.add_input(input);
    *graph.add_node() = parser;
    auto none = tools::ExampleFeed::For(graph, "names", 4, 1);
    QVERIFY(none.ok() && !none->has_value());  // no ParseExample reads it
    auto examples = tools::ExampleFeed::For(graph, "tf_example", 4, 1);
    QVERIFY2(examples.ok(), std::string(examples.status().message()).c_str());
    QVERIFY(examples->has_value());
    QCOMPARE((*examples)->shape(), TensorShape({4}));
    auto out = RunKernel(Parser({DT_STRING}, {DT_FLOAT, DT_INT64}, {Shape({3}), Shape({-1})}),
                         {**examples, Strings({}), Key("w"), Key("x"), Key("id"), Tensor(DT_FLOAT, TensorShape({0})),
                          Tensor::Scalar<int64_t>(0)});
    QVERIFY2(out.ok(), std::string(out.status().message()).c_str());
    EXPECT_TENSOR((*out)[2], Tensor::Vector<int64_t>({4, 1}));  // one sparse value per example
    QCOMPARE((*out)[3].shape(), TensorShape({4, 3}));
    for (int64_t i = 0; i < 12; ++i) QVERIFY((*out)[3].data<float>()[i] >= 0 && (*out)[3].data<float>()[i] < 1);
    QCOMPARE((*out)[4].shape(), TensorShape({4, 1}));
    // A key that is no constant cannot be known.
    parser.set_input(3, "tf_example");
    *graph.mutable_node(graph.node_size() - 1) = parser;
    auto unknown = tools::ExampleFeed::For(graph, "tf_example", 2, 1);
    QVERIFY(!unknown.ok());
    QVERIFY2(std::string(unknown.status().message()).find("is not a constant string") != std::string::npos,
             std::string(unknown.status().message()).c_str());
  }
};

QTEST_GUILESS_MAIN(ParseExampleTest)
#include "tst_parse_example.moc"
