// Graphs as TensorFlow writes them, built here by hand: a MetaGraphDef (text and binary)
// with collections and a declared op ClusterLab lacks, a SavedModel holding two meta graphs,
// a text GraphDef with a function library, attrs a later TensorFlow added, a while-loop's
// back edge; tf.cond's Switch and Merge running with dead branches; a run that needs an op
// without a kernel naming it with its nodes; the init and training ops `clab run` finds.
#include "clab/graph/Graph.h"
#include "clab/runtime/Session.h"
#include "formats/GraphFileReader.h"
#include "formats/GraphRoles.h"

#include <google/protobuf/text_format.h>
#include <QDir>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>

using namespace clab;
using tools::GraphFileReader;
using tools::GraphRoles;

namespace {

// y = x * w + b trained by ApplyGradientDescent, as a Saver's .meta holds it: the graph,
// a declared op ClusterLab lacks (ThirdPartyOp), and the init_op and train_op collections.
const char* kMetaText = R"(
meta_info_def {
  tensorflow_version: "1.15.0"
  tags: "train"
  stripped_op_list {
    op { name: "ThirdPartyOp" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
         output_arg { name: "count" type: DT_INT64 } attr { name: "T" type: "type" } }
  }
}
graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
  node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 1 } } } } }
  node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 1 } }
                                              float_val: 0.5 } } } }
  node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "added_by_a_later_tensorflow" value { b: true } } }
  node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
  node { name: "g" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 1 } }
                                              float_val: 1 } } } }
  node { name: "update" op: "ApplyGradientDescent" input: "w" input: "lr" input: "g"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "odd" op: "ThirdPartyOp" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init" op: "NoOp" input: "^w/Assign" }
  node { name: "train" op: "NoOp" input: "^update" }
}
collection_def { key: "init_op" value { node_list { value: "init" } } }
collection_def { key: "train_op" value { node_list { value: "train" } } }
)";

std::string WriteFile(const QTemporaryDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

tensorflow::MetaGraphDef ParseMeta(const char* text) {
  tensorflow::MetaGraphDef meta;
  if (!google::protobuf::TextFormat::ParseFromString(text, &meta)) qFatal("the test's MetaGraphDef does not parse");
  return meta;
}

std::vector<tensorflow::OpDefProto> Declared(const tensorflow::MetaGraphDef& meta) {
  const auto& ops = meta.meta_info_def().stripped_op_list().op();
  return {ops.begin(), ops.end()};
}

std::unique_ptr<Session> Open(const tensorflow::GraphDef& graph, Status* created) {
  auto session = NewSession(SessionOptions());
  if (!session.ok()) qFatal("no session");
  *created = (*session)->Create(graph);
  return std::move(session).value();
}

tensorflow::NodeDef ParseNode(const std::string& text) {
  tensorflow::NodeDef node;
  if (!google::protobuf::TextFormat::ParseFromString(text, &node)) qFatal("bad node %s", text.c_str());
  return node;
}

}  // namespace

class TfGraphFilesTest : public QObject {
  Q_OBJECT

 private slots:
  void readsMetaGraphTextAndBinary() {
    QTemporaryDir dir;
    GraphFileReader::Kind kind;
    auto text = GraphFileReader::ReadMetaGraph(WriteFile(dir, "model.pbtxt", kMetaText), &kind);
    QVERIFY2(text.ok(), std::string(text.status().message()).c_str());
    QCOMPARE(int(kind), int(GraphFileReader::Kind::kMetaGraphDef));
    QCOMPARE(text->graph_def().node_size(), 11);

    auto binary = GraphFileReader::ReadMetaGraph(
        WriteFile(dir, "model.ckpt.meta", ParseMeta(kMetaText).SerializeAsString()), &kind);
    QVERIFY(binary.ok());
    QCOMPARE(int(kind), int(GraphFileReader::Kind::kMetaGraphDef));
    QCOMPARE(binary->collection_def().at("train_op").node_list().value(0), std::string("train"));
    // Read as a plain GraphDef, a .meta gives its graph.
    auto graph = GraphFileReader::Read(WriteFile(dir, "other.meta", ParseMeta(kMetaText).SerializeAsString()));
    QVERIFY(graph.ok());
    QCOMPARE(graph->node_size(), 11);
  }

  void savedModelPicksTheTrainingGraph() {
    tensorflow::SavedModel saved;
    tensorflow::MetaGraphDef serve = ParseMeta(kMetaText);
    serve.mutable_meta_info_def()->clear_tags();
    serve.mutable_meta_info_def()->add_tags("serve");
    serve.mutable_graph_def()->mutable_node()->RemoveLast();
    *saved.add_meta_graphs() = serve;
    *saved.add_meta_graphs() = ParseMeta(kMetaText);
    QTemporaryDir dir;
    GraphFileReader::Kind kind;
    auto meta = GraphFileReader::ReadMetaGraph(WriteFile(dir, "saved_model.pb", saved.SerializeAsString()), &kind);
    QVERIFY(meta.ok());
    QCOMPARE(int(kind), int(GraphFileReader::Kind::kSavedModel));
    QCOMPARE(meta->meta_info_def().tags(0), std::string("train"));
    QCOMPARE(meta->graph_def().node_size(), 11);
  }

  void textGraphWithFunctionLibraryLoads() {
    const std::string text = R"(node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
library {
  function { signature { name: "map_fn" input_arg { name: "x" type: DT_FLOAT } }
             node_def { name: "y" op: "Identity" input: "x" } ret { key: "y" value: "y:output:0" } }
}
versions { producer: 38 }
)";
    QTemporaryDir dir;
    auto graph = GraphFileReader::Read(WriteFile(dir, "g.pbtxt", text));
    QVERIFY2(graph.ok(), std::string(graph.status().message()).c_str());
    QCOMPARE(graph->node_size(), 1);
    // A misspelt field outside those additions is still an error, with its place.
    auto bad = GraphFileReader::Read(WriteFile(dir, "bad.pbtxt", "node { name: \"c\" opp: \"Const\" }"));
    QVERIFY(!bad.ok());
    QVERIFY(std::string(bad.status().message()).find("bad.pbtxt:1:") != std::string::npos);
  }

  void foreignOpsLoadAndShowButDoNotRun() {
    const tensorflow::MetaGraphDef meta = ParseMeta(kMetaText);
    // Without the file's declaration the registry refuses the graph, naming the op and node.
    auto strict = Graph::FromGraphDef(meta.graph_def());
    QVERIFY(!strict.ok());
    QVERIFY(std::string(strict.status().message()).find("'ThirdPartyOp' (used by node 'odd')") != std::string::npos);

    auto graph = Graph::FromForeignGraphDef(meta.graph_def(), Declared(meta));
    QVERIFY2(graph.ok(), std::string(graph.status().message()).c_str());
    const Node* odd = (*graph)->FindNode("odd");
    QCOMPARE(odd->num_outputs(), 2);  // from the declaration: y and count
    QCOMPARE(int(odd->output_types()[1]), int(DT_INT64));
    QCOMPARE((*graph)->ForeignOps().at("ThirdPartyOp"), std::vector<std::string>{"odd"});
    // The attr a later TensorFlow added is kept, and ignored.
    QVERIFY((*graph)->FindNode("y")->def().attr().count("added_by_a_later_tensorflow"));

    // Without a declaration (a plain GraphDef) the op is read off the node.
    auto inferred = Graph::FromForeignGraphDef(meta.graph_def(), {});
    QVERIFY(inferred.ok());
    QCOMPARE((*inferred)->FindNode("odd")->num_outputs(), 1);
    std::map<std::string, std::vector<PartialShape>> shapes;
    std::vector<std::string> problems;
    QVERIFY(InferGraphShapes(**inferred, &shapes, &problems).ok());
    QCOMPARE(shapes.at("y")[0], PartialShape({-1, 1}));
  }

  void findsInitTrainAndFeeds() {
    const tensorflow::MetaGraphDef meta = ParseMeta(kMetaText);
    GraphRoles roles(meta);
    std::string found_by;
    auto init = roles.InitOps(&found_by);
    QVERIFY(init.ok());
    QCOMPARE(*init, std::vector<std::string>{"init"});
    auto step = roles.StepTargets(&found_by);
    QVERIFY(step.ok());
    QCOMPARE(*step, std::vector<std::string>{"train"});
    // Without collections: the conventional name, and the node reaching the update.
    tensorflow::MetaGraphDef bare;
    *bare.mutable_graph_def() = meta.graph_def();
    GraphRoles bare_roles(bare);
    QCOMPARE(*bare_roles.InitOps(&found_by), std::vector<std::string>{"init"});
    QCOMPARE(*bare_roles.StepTargets(&found_by), std::vector<std::string>{"train"});
    const auto points = roles.FeedPointsFor({"y"});
    QCOMPARE(points.size(), size_t(1));
    auto value = GraphRoles::RandomFeed(points[0], 3, 1);
    QVERIFY(value.ok());
    QCOMPARE(value->shape(), TensorShape({3, 2}));
  }

  void trainsThroughTheSession() {
    const tensorflow::MetaGraphDef meta = ParseMeta(kMetaText);
    tensorflow::GraphDef without_odd;  // the step does not need it; the session's graph must be registered
    for (const auto& node : meta.graph_def().node())
      if (node.name() != "odd") *without_odd.add_node() = node;
    Status created;
    auto session = Open(without_odd, &created);
    QVERIFY2(created.ok(), std::string(created.message()).c_str());
    std::vector<Tensor> out;
    QVERIFY(session->Run({}, {}, {"init"}, &out).ok());
    QVERIFY(session->Run({}, {}, {"train"}, &out).ok());
    QVERIFY(session->Run({}, {"w"}, {}, &out).ok());
    QCOMPARE(out[0].data<float>()[0], 0.4f);  // 0.5 - 0.1 * 1
  }

  void condRunsOnlyTheBranchTaken() {
    tensorflow::GraphDef graph;
    for (const char* node :
         {"name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_BOOL } }",
          "name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { "
          "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 3 } } }",
          "name: 's' op: 'Switch' input: 'x' input: 'p' attr { key: 'T' value { type: DT_FLOAT } }",
          "name: 'f' op: 'Neg' input: 's:0' attr { key: 'T' value { type: DT_FLOAT } }",
          "name: 't' op: 'Square' input: 's:1' attr { key: 'T' value { type: DT_FLOAT } }",
          "name: 'zero' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { "
          "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } }",
          // On the false branch: it sees x (3 > 0) there, and nothing on the true branch.
          "name: 'positive' op: 'Greater' input: 's:0' input: 'zero' attr { key: 'T' value { type: DT_FLOAT } }",
          "name: 'check' op: 'Assert' input: 'positive' input: 'x' attr { key: 'T' value { list { type: DT_FLOAT } } }",
          "name: 'f_done' op: 'Identity' input: 'f' input: '^check' attr { key: 'T' value { type: DT_FLOAT } }",
          "name: 'm' op: 'Merge' input: 'f_done' input: 't' attr { key: 'T' value { type: DT_FLOAT } } "
          "attr { key: 'N' value { i: 2 } }"})
      *graph.add_node() = ParseNode(node);
    Status created;
    auto session = Open(graph, &created);
    QVERIFY2(created.ok(), std::string(created.message()).c_str());
    std::vector<Tensor> out;
    Status run = session->Run({{"p", Tensor::Scalar<bool>(true)}}, {"m", "m:1"}, {}, &out);
    QVERIFY2(run.ok(), std::string(run.message()).c_str());
    QCOMPARE(out[0].scalar<float>(), 9.0f);
    QCOMPARE(out[1].scalar<int32_t>(), 1);
    // The false branch: 3 > 0, so the Assert passes and Neg runs.
    run = session->Run({{"p", Tensor::Scalar<bool>(false)}}, {"m", "m:1"}, {}, &out);
    QVERIFY2(run.ok(), std::string(run.message()).c_str());
    QCOMPARE(out[0].scalar<float>(), -3.0f);
    QCOMPARE(out[1].scalar<int32_t>(), 0);
    // Fetching the branch not taken is an error that says so.
    run = session->Run({{"p", Tensor::Scalar<bool>(true)}}, {"f"}, {}, &out);
    QVERIFY(!run.ok());
    QVERIFY(std::string(run.message()).find("dead") != std::string::npos);
  }

  // The loop loads (its back edge is no cycle); fetching a value inside the loop is an error
  // naming the node, when the step is planned.
  void loopBackEdgeLoadsAndFetchInsideTheLoopIsNamed() {
    tensorflow::GraphDef graph;
    for (const char* node :
         {"name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { "
          "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } }",
          "name: 'enter' op: 'Enter' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } "
          "attr { key: 'frame_name' value { s: 'loop' } }",
          "name: 'merge' op: 'Merge' input: 'enter' input: 'next' attr { key: 'T' value { type: DT_FLOAT } } "
          "attr { key: 'N' value { i: 2 } }",
          "name: 'next' op: 'NextIteration' input: 'merge' attr { key: 'T' value { type: DT_FLOAT } }"})
      *graph.add_node() = ParseNode(node);
    auto loaded = Graph::FromGraphDef(graph);
    QVERIFY2(loaded.ok(), std::string(loaded.status().message()).c_str());
    QCOMPARE((*loaded)->TopologicalOrder().size(), size_t(4));
    Status created;
    auto session = Open(graph, &created);
    QVERIFY(created.ok());
    std::vector<Tensor> out;
    const Status run = session->Run({}, {"merge"}, {}, &out);
    QVERIFY(!run.ok());
    const std::string message(run.message());
    QVERIFY2(message.find("'merge' (Merge)") != std::string::npos, message.c_str());
    QVERIFY2(message.find("while loop frame 'loop'") != std::string::npos, message.c_str());
  }
};

QTEST_GUILESS_MAIN(TfGraphFilesTest)
#include "tst_tf_graph_files.moc"
