// Graph::FromGraphDef validation, edges, topological order, cycles, shapes and pruning.
#include "clab/graph/Graph.h"
#include "clab/graph/Prune.h"

#include <google/protobuf/text_format.h>

#include <QtTest>

using namespace clab;

namespace {

tensorflow::GraphDef ParseGraph(const QString& text) {
  tensorflow::GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(text.toStdString(), &graph))
    qFatal("test graph does not parse: %s", qPrintable(text));
  return graph;
}

// Node snippets in text format, so each case reads like a graph.pbtxt.
QString IntConst(const QString& name, const QString& extra = "") {
  return QString(R"(node { name: "%1" op: "Const" %2
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } dim { size: 1 } } int_val: 1 } } } })")
      .arg(name, extra);
}
QString FloatConst(const QString& name) {
  return QString(R"(node { name: "%1" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 } } float_val: 1 } } } })")
      .arg(name);
}
QString OpNode(const QString& name, const QString& op, const QStringList& inputs, const QString& type = "DT_INT32") {
  QString text = QString(R"(node { name: "%1" op: "%2" )").arg(name, op);
  for (const auto& input : inputs) text += QString(R"(input: "%1" )").arg(input);
  if (!type.isEmpty()) text += QString(R"(attr { key: "T" value { type: %1 } } )").arg(type);
  return text + "}";
}
QString Variable(const QString& name) {
  return QString(R"(node { name: "%1" op: "VariableV2"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: 1 } dim { size: 1 } } } } })")
      .arg(name);
}

std::vector<std::string> Names(const std::vector<Node*>& nodes) {
  std::vector<std::string> names;
  for (const Node* node : nodes) names.push_back(node->name());
  return names;
}

}  // namespace

class TestGraph : public QObject {
  Q_OBJECT

 private slots:
  void rejectsInvalidGraphs_data();
  void rejectsInvalidGraphs();
  void buildsEdgesAndTypes();
  void topologicalOrder();
  void toGraphDefKeepsDefaultsAndDevices();
  void tensorIdParse_data();
  void tensorIdParse();
  void infersGraphShapes();
  void prunes_data();
  void prunes();
  void pruneReplacesFedNodeWithPlaceholder();
  void pruneNamesUnknownNames();
};

void TestGraph::rejectsInvalidGraphs_data() {
  // clang-format off
  QTest::addColumn<QString>("graph");
  QTest::addColumn<int>("code");
  QTest::addColumn<QString>("message");

  const int invalid = static_cast<int>(absl::StatusCode::kInvalidArgument);
  const int not_found = static_cast<int>(absl::StatusCode::kNotFound);
  QTest::newRow("one unregistered op")
      << IntConst("x") + R"(node { name: "conv" op: "Conv2DTranspose" input: "x" })" << not_found
      << "Op type not registered 'Conv2DTranspose' (used by node 'conv')";
  QTest::newRow("all unregistered ops at once")
      << R"(node { name: "a" op: "FooOp" } node { name: "b" op: "BarOp" } node { name: "c" op: "FooOp" })"
      << not_found << "Op types not registered: 'BarOp' (used by node 'b'), 'FooOp' (used by nodes 'a', 'c')";
  QTest::newRow("duplicate node") << IntConst("x") + IntConst("x") << invalid
                                  << "Node 'x' is defined twice in the GraphDef (nodes 0 and 1)";
  QTest::newRow("invalid node name") << IntConst("bad name") << invalid << "Node name 'bad name'";
  QTest::newRow("unknown input node") << IntConst("x") + OpNode("y", "Identity", {"missing:0"}) << invalid
                                      << "Node 'y': Unknown input node 'missing:0'";
  QTest::newRow("unknown control input") << IntConst("x") + OpNode("y", "Identity", {"x", "^ghost"}) << invalid
                                         << "Node 'y': Unknown input node '^ghost'";
  QTest::newRow("invalid output slot") << IntConst("x") + OpNode("y", "Identity", {"x:2"}) << invalid
                                       << "Node 'y': Connecting to invalid output 2 of source node x which has 1 outputs";
  QTest::newRow("malformed input") << IntConst("x") + OpNode("y", "Identity", {"x:one"}) << invalid
                                   << "Malformed tensor name 'x:one'";
  QTest::newRow("type mismatch")
      << IntConst("x") + FloatConst("f") + OpNode("m", "MatMul", {"x", "f"}) << invalid
      << "Input 1 of node m was passed float from f incompatible with expected int32.";
  QTest::newRow("ref required") << IntConst("x") + OpNode("a", "Assign", {"x", "x"}) << invalid
                                << "Input 0 of node a was passed int32 from x incompatible with expected int32_ref.";
  QTest::newRow("wrong input count") << IntConst("x") + OpNode("m", "MatMul", {"x"}) << invalid
                                     << "Node 'm' (op 'MatMul') has 1 data input(s), but the op expects 2";
  QTest::newRow("missing attr") << R"(node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } })"
                                << invalid << "Attr 'value' (tensor) of node 'c' (op 'Const') is missing";
  QTest::newRow("two-node cycle") << OpNode("a", "Identity", {"b"}) + OpNode("b", "Identity", {"a"}) << invalid
                                  << "Graph contains a cycle: a -> b -> a";
  QTest::newRow("cycle through a control edge")
      << IntConst("x", R"(input: "^c")") + OpNode("b", "Identity", {"x"}) + OpNode("c", "Identity", {"b"}) << invalid
      << "Graph contains a cycle: x -> b -> c -> x";
  QTest::newRow("self loop") << OpNode("a", "Identity", {"a"}) << invalid << "Graph contains a cycle: a -> a";
  // clang-format on
}

void TestGraph::rejectsInvalidGraphs() {
  QFETCH(QString, graph);
  QFETCH(int, code);
  QFETCH(QString, message);
  auto built = Graph::FromGraphDef(ParseGraph(graph));
  QVERIFY(!built.ok());
  QCOMPARE(static_cast<int>(built.status().code()), code);
  const QString actual = QString::fromStdString(std::string(built.status().message()));
  QVERIFY2(actual.contains(message), qPrintable(actual));
}

void TestGraph::buildsEdgesAndTypes() {
  auto built = Graph::FromGraphDef(
      ParseGraph(IntConst("init") + Variable("w") + OpNode("w/Assign", "Assign", {"w", "init"}) +
                 OpNode("w/read", "Identity", {"w"}) + OpNode("y", "MatMul", {"init", "w/read", "^w/Assign"})));
  QVERIFY2(built.ok(), built.status().ToString().c_str());
  const Graph& graph = **built;
  QCOMPARE(graph.num_nodes(), 5);
  Node* assign = graph.FindNode("w/Assign");
  QVERIFY(assign != nullptr);
  QVERIFY(assign->IsRefInput(0));
  QVERIFY(!assign->IsRefInput(1));
  QCOMPARE(assign->input_edge(0)->src->name(), std::string("w"));
  QCOMPARE(assign->input_edge(1)->src->name(), std::string("init"));
  QVERIFY(assign->input_edge(2) == nullptr);
  // A ref output feeding a plain input is read: allowed.
  Node* read = graph.FindNode("w/read");
  QCOMPARE(read->input_types()[0], DT_INT32);
  QCOMPARE(graph.FindNode("w")->output_types()[0], tensorflow::DT_INT32_REF);
  Node* y = graph.FindNode("y");
  QCOMPARE(y->in_edges().size(), size_t{3});
  QVERIFY(y->in_edges()[2]->IsControl());
  QCOMPARE(y->in_edges()[2]->src->name(), std::string("w/Assign"));
  QCOMPARE(graph.FindNode("init")->out_edges().size(), size_t{2});
  QVERIFY(graph.FindNode("nothing") == nullptr);
}

void TestGraph::topologicalOrder() {
  // Listed consumers first: the order must still put producers first.
  auto built = Graph::FromGraphDef(ParseGraph(OpNode("d", "MatMul", {"b", "c"}) + OpNode("c", "Identity", {"a"}) +
                                              OpNode("b", "Identity", {"a", "^e"}) + IntConst("a") + IntConst("e")));
  QVERIFY2(built.ok(), built.status().ToString().c_str());
  auto order = Names((*built)->TopologicalOrder());
  QCOMPARE(order.size(), size_t{5});
  auto pos = [&](const std::string& n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  QVERIFY(pos("a") < pos("b") && pos("a") < pos("c") && pos("e") < pos("b"));
  QVERIFY(pos("b") < pos("d") && pos("c") < pos("d"));
  QCOMPARE(order.back(), std::string("d"));

  // A graph already in order comes back in the same order.
  auto ordered = Graph::FromGraphDef(ParseGraph(IntConst("a") + IntConst("e") + OpNode("b", "Identity", {"a", "^e"}) +
                                                OpNode("c", "Identity", {"a"}) + OpNode("d", "MatMul", {"b", "c"})));
  QVERIFY(ordered.ok());
  QCOMPARE(Names((*ordered)->TopologicalOrder()), (std::vector<std::string>{"a", "e", "b", "c", "d"}));
}

void TestGraph::toGraphDefKeepsDefaultsAndDevices() {
  auto def = ParseGraph(IntConst("a") + OpNode("m", "MatMul", {"a", "a"}));
  def.mutable_node(1)->set_device("/job:worker/task:0");
  def.mutable_versions()->set_producer(27);
  auto built = Graph::FromGraphDef(def);
  QVERIFY(built.ok());
  (*built)->FindNode("m")->set_assigned_device("/job:worker/replica:0/task:0/device:CPU:0");
  auto requested = (*built)->ToGraphDef();
  QCOMPARE(requested.node(1).device(), std::string("/job:worker/task:0"));
  QVERIFY(requested.node(1).attr().count("transpose_a"));  // defaults filled in
  QCOMPARE(requested.versions().producer(), 27);
  auto assigned = (*built)->ToGraphDef(/*with_assigned_devices=*/true);
  QCOMPARE(assigned.node(1).device(), std::string("/job:worker/replica:0/task:0/device:CPU:0"));
  QCOMPARE(assigned.node(0).device(), std::string());
}

void TestGraph::tensorIdParse_data() {
  // clang-format off
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("node");
  QTest::addColumn<int>("index");
  QTest::addColumn<QString>("printed");  // empty: rejected

  QTest::newRow("plain") << "x" << "x" << 0 << "x:0";
  QTest::newRow("slot") << "split:3" << "split" << 3 << "split:3";
  QTest::newRow("scoped") << "a/b/MatMul:0" << "a/b/MatMul" << 0 << "a/b/MatMul:0";
  QTest::newRow("control") << "^init" << "init" << -1 << "^init";
  QTest::newRow("empty slot") << "x:" << "" << 0 << "";
  QTest::newRow("negative slot") << "x:-1" << "" << 0 << "";
  QTest::newRow("text slot") << "x:y" << "" << 0 << "";
  QTest::newRow("no node") << ":0" << "" << 0 << "";
  QTest::newRow("bare caret") << "^" << "" << 0 << "";
  // clang-format on
}

void TestGraph::tensorIdParse() {
  QFETCH(QString, text);
  QFETCH(QString, node);
  QFETCH(int, index);
  QFETCH(QString, printed);
  auto id = TensorId::Parse(text.toStdString());
  if (printed.isEmpty()) {
    QVERIFY(!id.ok());
    QCOMPARE(id.status().code(), absl::StatusCode::kInvalidArgument);
    return;
  }
  QVERIFY2(id.ok(), id.status().ToString().c_str());
  QCOMPARE(QString::fromStdString(id->node), node);
  QCOMPARE(id->index, index);
  QCOMPARE(QString::fromStdString(id->ToString()), printed);
}

void TestGraph::infersGraphShapes() {
  auto def = ParseGraph(R"(
    node { name: "x" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } dim { size: 4 } } int_val: 1 } } } }
    node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "shape" value { shape { dim { size: 4 } dim { size: 1 } } } } }
    node { name: "y" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
    node { name: "z" op: "MatMul" input: "p" input: "y" attr { key: "T" value { type: DT_INT32 } } })");
  auto built = Graph::FromGraphDef(def);
  QVERIFY2(built.ok(), built.status().ToString().c_str());
  std::map<std::string, std::vector<PartialShape>> shapes;
  QVERIFY(InferGraphShapes(**built, &shapes).ok());
  QCOMPARE(shapes["y"][0].DebugString(), PartialShape({1, 1}).DebugString());
  QCOMPARE(shapes["p"][0].known_rank(), false);
  QCOMPARE(shapes["z"][0].DebugString(), PartialShape({-1, 1}).DebugString());

  // A mismatch found by the whole-graph pass names the node and the shapes.
  def.mutable_node(1)->mutable_attr()->at("shape").mutable_shape()->mutable_dim(0)->set_size(3);
  auto bad = Graph::FromGraphDef(def);
  QVERIFY(bad.ok());
  Status status = InferGraphShapes(**bad, &shapes);
  QCOMPARE(status.code(), absl::StatusCode::kInvalidArgument);
  QVERIFY2(QString::fromStdString(status.ToString()).contains("for 'y' (op: 'MatMul') with input shapes: [1,4], [3,1]"),
           status.ToString().c_str());
}

void TestGraph::prunes_data() {
  // clang-format off
  QTest::addColumn<QStringList>("feeds");
  QTest::addColumn<QStringList>("fetches");
  QTest::addColumn<QStringList>("targets");
  QTest::addColumn<QStringList>("kept");

  // a, b -> m = MatMul(a, b); i = Identity(m); unrelated u; init assigns v from a.
  QTest::newRow("fetch keeps ancestors") << QStringList{} << QStringList{"i:0"} << QStringList{}
                                         << QStringList{"a", "b", "m", "i"};
  QTest::newRow("fetch a leaf") << QStringList{} << QStringList{"a"} << QStringList{} << QStringList{"a"};
  QTest::newRow("target") << QStringList{} << QStringList{} << QStringList{"init"}
                          << QStringList{"a", "v", "init"};
  QTest::newRow("target with caret") << QStringList{} << QStringList{} << QStringList{"^init"}
                                     << QStringList{"a", "v", "init"};
  QTest::newRow("fetch and target") << QStringList{} << QStringList{"m:0"} << QStringList{"init"}
                                    << QStringList{"a", "b", "m", "v", "init"};
  QTest::newRow("feed a leaf changes nothing") << QStringList{"a:0"} << QStringList{"m"} << QStringList{}
                                               << QStringList{"a", "b", "m"};
  QTest::newRow("feed cuts upstream") << QStringList{"m:0"} << QStringList{"i:0"} << QStringList{}
                                      << QStringList{"m", "i"};
  QTest::newRow("control input kept") << QStringList{} << QStringList{"c:0"} << QStringList{}
                                      << QStringList{"a", "u", "v", "init", "c"};
  QTest::newRow("nothing requested") << QStringList{} << QStringList{} << QStringList{} << QStringList{};
  // clang-format on
}

namespace {
tensorflow::GraphDef PruneTestGraph() {
  return ParseGraph(IntConst("a") + IntConst("b") + OpNode("m", "MatMul", {"a", "b"}) + OpNode("i", "Identity", {"m"}) +
                    IntConst("u") + Variable("v") + OpNode("init", "Assign", {"v", "a"}) +
                    OpNode("c", "Identity", {"u", "^init"}));
}
std::vector<std::string> ToStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const auto& s : list) out.push_back(s.toStdString());
  return out;
}
}  // namespace

void TestGraph::prunes() {
  QFETCH(QStringList, feeds);
  QFETCH(QStringList, fetches);
  QFETCH(QStringList, targets);
  QFETCH(QStringList, kept);
  tensorflow::GraphDef pruned;
  Status status = PruneGraph(PruneTestGraph(), ToStd(feeds), ToStd(fetches), ToStd(targets), &pruned);
  QVERIFY2(status.ok(), status.ToString().c_str());
  QStringList names;
  for (const auto& node : pruned.node()) names << QString::fromStdString(node.name());
  QCOMPARE(names, kept);
  // What is left is a valid graph on its own.
  auto built = Graph::FromGraphDef(pruned);
  QVERIFY2(built.ok(), built.status().ToString().c_str());
}

void TestGraph::pruneReplacesFedNodeWithPlaceholder() {
  auto def = PruneTestGraph();
  def.mutable_node(2)->set_device("/job:worker/task:0");
  tensorflow::GraphDef pruned;
  QVERIFY(PruneGraph(def, {"m:0"}, {"i:0"}, {}, &pruned).ok());
  QCOMPARE(pruned.node_size(), 2);
  const auto& fed = pruned.node(0);
  QCOMPARE(fed.name(), std::string("m"));
  QCOMPARE(fed.op(), std::string("Placeholder"));
  QCOMPARE(fed.input_size(), 0);
  QCOMPARE(fed.device(), std::string("/job:worker/task:0"));
  QCOMPARE(fed.attr().at("dtype").type(), DT_INT32);
}

void TestGraph::pruneNamesUnknownNames() {
  tensorflow::GraphDef pruned;
  Status status = PruneGraph(PruneTestGraph(), {}, {"ghost:0"}, {}, &pruned);
  QCOMPARE(status.code(), absl::StatusCode::kNotFound);
  QVERIFY(QString::fromStdString(status.ToString()).contains("Fetch 'ghost:0' names node 'ghost'"));
  status = PruneGraph(PruneTestGraph(), {"nope:0"}, {"i"}, {}, &pruned);
  QCOMPARE(status.code(), absl::StatusCode::kNotFound);
  QVERIFY(QString::fromStdString(status.ToString()).contains("Feed 'nope:0'"));
  status = PruneGraph(PruneTestGraph(), {}, {}, {"phantom"}, &pruned);
  QVERIFY(QString::fromStdString(status.ToString()).contains("Target 'phantom'"));
}

QTEST_APPLESS_MAIN(TestGraph)
#include "tst_graph.moc"
