// A GraphDef brought into a GraphBuilder (ImportGraphDef): names, attrs, inputs and devices
// kept, a device map applied, collections rebuilt (optimizer state is not trainable), bad
// graphs refused with the node named; and what a step of a graph most likely runs.
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/GraphImport.h"
#include "clab/graph/GraphKeys.h"
#include "clab/ops/Ops.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/MomentumOptimizer.h"

#include <google/protobuf/util/message_differencer.h>

#include <absl/strings/str_join.h>

#include <QtTest>

using namespace clab;

namespace {

// x (placeholder), w (variable on the ps) and y = x . w, a loss and a Momentum train op.
tensorflow::GraphDef SmallModel() {
  GraphBuilder g;
  const Output x = ops::Placeholder(g, DT_FLOAT, PartialShape({-1, 2}), "x");
  ops::Variable w;
  {
    auto scope = g.WithDevice("/job:ps/task:0");
    w = ops::MakeVariable(g, ops::Const(g, Tensor::Matrix<float>({{1}, {2}}), "w/initial_value"), "w");
  }
  const Output y = ops::MatMul(g, x, w.read, false, false, "y");
  const Output loss = ops::Mean(g, ops::Square(g, y), ops::Const(g, Tensor::Vector<int32_t>({0, 1})), false, "loss");
  const Output step = GetOrCreateGlobalStep(g);
  MomentumOptimizer optimizer(0.1, 0.9);
  auto train = optimizer.Minimize(g, loss, step);
  ops::GlobalVariablesInitializer(g);
  return train.ok() && g.status().ok() ? g.graph_def() : tensorflow::GraphDef();
}

}  // namespace

class GraphImportTest : public QObject {
  Q_OBJECT

 private slots:
  void importKeepsEveryNode() {
    const tensorflow::GraphDef graph = SmallModel();
    QVERIFY(graph.node_size() > 10);
    GraphBuilder g;
    QVERIFY2(ImportGraphDef(graph, &g).ok(), "import");
    QCOMPARE(g.graph_def().node_size(), graph.node_size());
    for (const auto& node : graph.node()) {
      const tensorflow::NodeDef* imported = g.FindNode(node.name());
      QVERIFY2(imported != nullptr, node.name().c_str());
      QCOMPARE(imported->op(), node.op());
      QCOMPARE(imported->device(), node.device());
      QCOMPARE(imported->input_size(), node.input_size());
      for (int i = 0; i < node.input_size(); ++i) QCOMPARE(imported->input(i), node.input(i));
    }
    // Shapes are known again, so builders can go on from the imported graph.
    QCOMPARE(g.ShapeOf(Output("y")).DebugString(), PartialShape({-1, 1}).DebugString());
    // Collections: the model's variable is trainable; the global step and Momentum's slot are not.
    const auto& trainable = g.Collection("trainable_variables");
    QCOMPARE(std::vector<std::string>(trainable.begin(), trainable.end()), std::vector<std::string>{"w"});
    QCOMPARE(g.Collection(GraphKeys::kGlobalStep), std::vector<std::string>{"global_step"});
    QVERIFY(g.Collection("variables").size() >= 3);
    // New nodes get names that do not clash with the imported ones.
    QCOMPARE(ops::Square(g, Output("y")).node(), std::string("Square_1"));
  }

  void deviceMapRewritesDevices() {
    GraphBuilder g;
    QVERIFY(ImportGraphDef(SmallModel(), &g, [](const std::string& device) {
              return device.empty() ? std::string("/job:worker/task:3") : device;
            }).ok());
    QCOMPARE(g.FindNode("y")->device(), std::string("/job:worker/task:3"));
    QCOMPARE(g.FindNode("w")->device(), std::string("/job:ps/task:0"));
  }

  void badGraphsAreRefusedNamingTheNode() {
    tensorflow::GraphDef graph = SmallModel();
    graph.mutable_node(graph.node_size() - 1)->add_input("nowhere:0");
    GraphBuilder g;
    const Status status = ImportGraphDef(graph, &g);
    QVERIFY(!status.ok());
    QVERIFY2(std::string(status.message()).find("nowhere") != std::string::npos, std::string(status.message()).c_str());
    tensorflow::GraphDef unknown;
    auto* node = unknown.add_node();
    node->set_name("odd");
    node->set_op("NoSuchOp");
    GraphBuilder h;
    const Status refused = ImportGraphDef(unknown, &h);
    QVERIFY(!refused.ok());
    QVERIFY2(std::string(refused.message()).find("NoSuchOp") != std::string::npos,
             std::string(refused.message()).c_str());
  }

  void guessesWhatAStepRuns() {
    const tensorflow::GraphDef graph = SmallModel();
    const std::vector<std::string> fetches = GuessStepFetches(graph);
    QVERIFY2((fetches == std::vector<std::string>{"train", "loss"}), absl::StrJoin(fetches, ",").c_str());
    QCOMPARE(GuessInitializers(graph), std::vector<std::string>{"init"});
    // Without "init": each variable's own initialiser.
    tensorflow::GraphDef no_init;
    for (const auto& node : graph.node())
      if (node.name() != "init") *no_init.add_node() = node;
    const std::vector<std::string> assigns = GuessInitializers(no_init);
    QVERIFY(std::find(assigns.begin(), assigns.end(), "w/Assign") != assigns.end());
    QVERIFY(std::find(assigns.begin(), assigns.end(), "global_step/Assign") != assigns.end());
  }
};

QTEST_MAIN(GraphImportTest)
#include "tst_graph_import.moc"
