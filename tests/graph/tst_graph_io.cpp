// GraphDefs in TensorFlow's file formats: text (graph.pbtxt) and binary (.pb) round trips,
// and a graph file written the way TensorFlow 1.x writes one.
#include "clab/compile/Placer.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/ops/Ops.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include <QtTest>

// Options are written with designated initializers naming only what differs from the
// defaults; GCC 12 warns about every field left out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

using namespace clab;
using google::protobuf::TextFormat;
using google::protobuf::util::MessageDifferencer;

namespace {

QString DataDir() {
  const QString source = qEnvironmentVariable("CLAB_SOURCE_DIR");
  return source.isEmpty() ? QStringLiteral(CLAB_TEST_DATA_DIR) : source + "/tests/data";
}

tensorflow::GraphDef LoadText(const QString& file) {
  QFile in(DataDir() + "/" + file);
  if (!in.open(QIODevice::ReadOnly)) qFatal("cannot open %s", qPrintable(in.fileName()));
  tensorflow::GraphDef graph;
  if (!TextFormat::ParseFromString(in.readAll().toStdString(), &graph)) qFatal("cannot parse %s", qPrintable(file));
  return graph;
}

tensorflow::GraphDef SeedGraph() {
  GraphBuilder g;
  auto setter = ReplicaDeviceSetter({.ps_tasks = 1, .worker_device = "/job:worker/task:0/"});
  auto scope = g.WithDevice(*setter);
  auto x = ops::Const(g, Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x");
  auto w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<int32_t>({{2}, {2}, {2}, {2}})), "w");
  ops::MatMul(g, x, w.read);
  ops::GlobalVariablesInitializer(g);
  if (!g.status().ok()) qFatal("%s", g.status().ToString().c_str());
  return g.graph_def();
}

std::string Diff(const google::protobuf::Message& a, const google::protobuf::Message& b) {
  MessageDifferencer differ;
  std::string report;
  differ.ReportDifferencesToString(&report);
  differ.Compare(a, b);
  return report;
}

}  // namespace

class TestGraphIo : public QObject {
  Q_OBJECT

 private slots:
  void textRoundTrip();
  void binaryRoundTrip();
  void graphRoundTripKeepsEverything();
  void loadsTensorFlowStyleGraph();
  void tensorFlowStyleGraphSurvivesOurTextFormat();
  void unsupportedOpIsNamed();
};

void TestGraphIo::textRoundTrip() {
  const tensorflow::GraphDef original = SeedGraph();
  std::string text;
  QVERIFY(TextFormat::PrintToString(original, &text));
  QVERIFY(text.find("name: \"w/Assign\"") != std::string::npos);
  QVERIFY(text.find("s: \"loc:@w\"") != std::string::npos);
  tensorflow::GraphDef parsed;
  QVERIFY(TextFormat::ParseFromString(text, &parsed));
  QVERIFY2(MessageDifferencer::Equals(original, parsed), Diff(original, parsed).c_str());
}

void TestGraphIo::binaryRoundTrip() {
  const tensorflow::GraphDef original = SeedGraph();
  std::string bytes;
  QVERIFY(original.SerializeToString(&bytes));
  tensorflow::GraphDef parsed;
  QVERIFY(parsed.ParseFromString(bytes));
  QVERIFY2(MessageDifferencer::Equals(original, parsed), Diff(original, parsed).c_str());
}

void TestGraphIo::graphRoundTripKeepsEverything() {
  // The builder fills defaults already, so the runtime graph gives back the same GraphDef.
  const tensorflow::GraphDef original = SeedGraph();
  auto graph = Graph::FromGraphDef(original);
  QVERIFY2(graph.ok(), graph.status().ToString().c_str());
  tensorflow::GraphDef back = (*graph)->ToGraphDef();
  QVERIFY2(MessageDifferencer::Equals(original, back), Diff(original, back).c_str());
}

void TestGraphIo::loadsTensorFlowStyleGraph() {
  const tensorflow::GraphDef def = LoadText("tf_style_graph.pbtxt");
  QCOMPARE(def.node_size(), 6);
  QCOMPARE(def.versions().producer(), 27);
  auto built = Graph::FromGraphDef(def);
  QVERIFY2(built.ok(), built.status().ToString().c_str());
  Graph& graph = **built;
  QCOMPARE(graph.FindNode("w")->output_types()[0], tensorflow::DT_INT32_REF);
  QCOMPARE(graph.FindNode("w/Assign")->input_edge(1)->src->name(), std::string("w/initial_value"));

  std::map<std::string, std::vector<PartialShape>> shapes;
  QVERIFY(InferGraphShapes(graph, &shapes).ok());
  QCOMPARE(shapes["MatMul"][0].DebugString(), PartialShape({1, 1}).DebugString());

  std::vector<std::string> log;
  PlacerOptions options;
  options.log_device_placement = true;
  options.log = [&](const std::string& line) { log.push_back(line); };
  Status placed = PlaceGraph(
      &graph, {{"/job:ps/replica:0/task:0/device:CPU:0", "CPU"}, {"/job:worker/replica:0/task:0/device:CPU:0", "CPU"}},
      options);
  QVERIFY2(placed.ok(), placed.ToString().c_str());
  QCOMPARE(log.size(), size_t{6});
  QCOMPARE(log[2], std::string("w: (VariableV2): /job:ps/replica:0/task:0/device:CPU:0"));
  QCOMPARE(log[5], std::string("MatMul: (MatMul): /job:worker/replica:0/task:0/device:CPU:0"));
}

void TestGraphIo::tensorFlowStyleGraphSurvivesOurTextFormat() {
  const tensorflow::GraphDef def = LoadText("tf_style_graph.pbtxt");
  auto built = Graph::FromGraphDef(def);
  QVERIFY(built.ok());
  const tensorflow::GraphDef ours = (*built)->ToGraphDef();
  // Every attr TensorFlow wrote is already there, so nothing was added or lost.
  QVERIFY2(MessageDifferencer::Equals(def, ours), Diff(def, ours).c_str());
  std::string text;
  QVERIFY(TextFormat::PrintToString(ours, &text));
  QVERIFY(text.find("tensor_content: \"\\001\\000\\000\\000\\002") != std::string::npos);
  tensorflow::GraphDef again;
  QVERIFY(TextFormat::ParseFromString(text, &again));
  QVERIFY(MessageDifferencer::Equals(def, again));
}

void TestGraphIo::unsupportedOpIsNamed() {
  auto built = Graph::FromGraphDef(LoadText("tf_style_unsupported_op.pbtxt"));
  QVERIFY(!built.ok());
  QCOMPARE(built.status().code(), absl::StatusCode::kNotFound);
  const QString message = QString::fromStdString(std::string(built.status().message()));
  QVERIFY2(message.contains("'Mfcc' (used by node 'features/mfcc')"), qPrintable(message));
  QVERIFY2(message.contains("'AudioSpectrogram' (used by node 'features/spectrogram')"), qPrintable(message));
  QVERIFY(!message.contains("'Const'"));
}

QTEST_APPLESS_MAIN(TestGraphIo)
#include "tst_graph_io.moc"
