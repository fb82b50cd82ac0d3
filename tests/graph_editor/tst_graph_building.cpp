// Building and running models in the studio's graph editor, offscreen: a small MLP made
// with the builders (dense layers, loss, optimizers) trains in a session; replica_device_setter
// with its choices (ps tasks, greedy strategy, worker device) and a device for a selection;
// name scopes collapsed into boxes and opened again; the edited graph of a project is what a
// run executes.
#include "StudioModels.h"
#include "clab/graph/AttrValues.h"
#include "clab/graph/GraphImport.h"
#include "clab/runtime/Session.h"
#include "graph/AttrText.h"
#include "graph/EdgeItem.h"
#include "graph/GraphBuilders.h"
#include "graph/GraphDocument.h"
#include "graph/GraphScene.h"
#include "graph/NodeItem.h"
#include "project/Project.h"
#include "run/LocalCluster.h"
#include "views/ConsoleView.h"
#include "views/PlacementView.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QRandomGenerator>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>

using namespace clab;
using namespace clab::ui;

class GraphBuildingTest : public QObject {
  Q_OBJECT

 private slots:
  void buildersMakeATrainableModel() {
    GraphEditor editor;
    GraphDocument* doc = editor.document();
    doc->setGraph({});
    QString error;
    QCOMPARE(doc->addNode("Placeholder", "x"), QString("x"));
    doc->setAttr("x", "dtype", AttrOf(tensorflow::DT_FLOAT));  // already the default: no change
    QVERIFY(doc->setAttr("x", "shape", AttrOf(*AttrText::parseShape("[?,4]"))));
    QCOMPARE(doc->addNode("Placeholder", "labels"), QString("labels"));
    QVERIFY(doc->setAttr("labels", "dtype", AttrOf(tensorflow::DT_INT32)));
    QVERIFY(doc->setAttr("labels", "shape", AttrOf(*AttrText::parseShape("[?]"))));
    QVERIFY2(editor.applyBuild(GraphBuilders::addDense(doc->graph(), "x", 8, "relu", "hidden"), &error),
             qPrintable(error));
    QVERIFY(doc->node("hidden/Relu") != nullptr);
    QCOMPARE(AttrText::shapeText(doc->ports("hidden/Relu").output_shapes.at(0)), QString("[-1,8]"));
    QVERIFY2(editor.applyBuild(GraphBuilders::addDense(doc->graph(), "hidden/Relu", 3, "none", "logits"), &error),
             qPrintable(error));
    auto loss = GraphBuilders::addLoss(doc->graph(), "sparse softmax cross-entropy", "logits/BiasAdd", "labels");
    QVERIFY2(editor.applyBuild(loss, &error), qPrintable(error));
    QCOMPARE(loss->output, QString("loss"));
    const int before_optimizer = doc->nodeCount();
    QVERIFY2(editor.applyBuild(GraphBuilders::addOptimizer(doc->graph(), "GradientDescent", 0.5, "loss"), &error),
             qPrintable(error));
    for (const char* node : {"train", "global_step", "hidden/kernel", "logits/bias"})
      QVERIFY2(doc->node(node) != nullptr, node);
    QVERIFY2(doc->check().ok(), qPrintable(doc->check().messages(doc->graph()).join('\n')));
    // Each builder is one undo step.
    doc->undoStack()->undo();
    QCOMPARE(doc->nodeCount(), before_optimizer);
    QCOMPARE(doc->node("train"), nullptr);
    doc->undoStack()->redo();
    QVERIFY(doc->node("train") != nullptr);

    // The built model trains: three classes told apart by which of three features is largest.
    auto session = NewSession(SessionOptions{});
    QVERIFY(session.ok());
    QVERIFY2((*session)->Create(doc->graph()).ok(), "Create");
    std::vector<Tensor> out;
    const std::vector<std::string> init = GuessInitializers(doc->graph());
    QVERIFY(!init.empty());
    QVERIFY((*session)->Run({}, {}, init, &out).ok());
    QRandomGenerator rng(7);
    Tensor x(DT_FLOAT, TensorShape({32, 4}));
    Tensor labels(tensorflow::DT_INT32, TensorShape({32}));
    for (int i = 0; i < 32; ++i) {
      int best = 0;
      for (int j = 0; j < 4; ++j) {
        x.data<float>()[i * 4 + j] = static_cast<float>(rng.generateDouble());
        if (j < 3 && x.data<float>()[i * 4 + j] > x.data<float>()[i * 4 + best]) best = j;
      }
      labels.data<int32_t>()[i] = best;
    }
    double first = -1, last = -1;
    for (int step = 0; step < 300; ++step) {
      Status ran = (*session)->Run({{"x", x}, {"labels", labels}}, {"loss:0"}, {"train"}, &out);
      QVERIFY2(ran.ok(), std::string(ran.message()).c_str());
      (first < 0 ? first : last) = out[0].scalar<float>();
    }
    QVERIFY2(last < first * 0.5, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
    QVERIFY((*session)->Run({}, {"global_step:0"}, {}, &out).ok());
    QCOMPARE(out[0].scalar<int64_t>(), int64_t{300});

    // Bad requests name what is wrong, and change nothing.
    const int count = doc->nodeCount();
    QVERIFY(!editor.applyBuild(GraphBuilders::addDense(doc->graph(), "labels", 4, "relu", "d"), &error));
    QVERIFY2(error.contains("'labels:0' is int32") && error.contains("Cast"), qPrintable(error));
    QVERIFY(!editor.applyBuild(GraphBuilders::addDense(doc->graph(), "nope", 4, "relu", "d"), &error));
    QVERIFY2(error.contains("'nope' is not in the graph"), qPrintable(error));
    QVERIFY(!editor.applyBuild(
        GraphBuilders::addLoss(doc->graph(), "sparse softmax cross-entropy", "logits/BiasAdd", "x"), &error));
    QVERIFY2(error.contains("integer class ids"), qPrintable(error));
    QVERIFY(!editor.applyBuild(GraphBuilders::addOptimizer(doc->graph(), "Adam", 0, "loss"), &error));
    QVERIFY2(error.contains("learning rate"), qPrintable(error));
    QCOMPARE(doc->nodeCount(), count);
    // A second optimizer (Adam) trains the model's variables, not the first one's state.
    QVERIFY2(editor.applyBuild(GraphBuilders::addOptimizer(doc->graph(), "Adam", 0.01, "loss"), &error),
             qPrintable(error));
    const QStringList names = doc->nodeNames();
    const auto has_slot = [&names](const QString& variable) {
      return std::any_of(names.begin(), names.end(), [&](const QString& n) { return n.endsWith(variable + "/Adam"); });
    };
    QVERIFY2(has_slot("hidden/kernel"), qPrintable(names.join(",")));
    QVERIFY(!has_slot("global_step"));
    // A third optimizer trains the model's variables only, not Adam's slots or beta powers.
    QVERIFY2(editor.applyBuild(GraphBuilders::addOptimizer(doc->graph(), "Momentum", 0.01, "loss"), &error),
             qPrintable(error));
    int momentum_slots = 0;
    for (const QString& name : doc->nodeNames()) {
      if (name.endsWith("/Momentum") && doc->node(name)->op() == "VariableV2") ++momentum_slots;
      QVERIFY2(!name.contains("Adam/Momentum") && !name.contains("power/Momentum"), qPrintable(name));
    }
    QCOMPARE(momentum_slots, 4);  // two kernels, two biases
  }

  void deviceFunctionChoicesAndSelection() {
    GraphEditor editor;
    Project project = Project::digitsMlp();
    ProjectTask second_ps;
    second_ps.job = "ps";
    second_ps.index = 1;
    second_ps.port = 2230;
    project.tasks.insert(1, second_ps);
    editor.setProject(project);
    GraphDocument* doc = editor.document();
    const auto device = [doc](const char* node) { return QString::fromStdString(doc->node(node)->device()); };
    QString error;
    // Round robin over two ps tasks, in the order the variables were built.
    QVERIFY2(editor.applyReplicaDeviceSetter(SetterChoice{}, &error), qPrintable(error));
    QCOMPARE(device("hidden1/weights"), QString("/job:ps/task:1"));
    QCOMPARE(device("logits/weights"), QString("/job:ps/task:1"));
    // Greedy by bytes: the big hidden weights alone on one ps, everything else on the other.
    SetterChoice greedy;
    greedy.greedy = true;
    QVERIFY2(editor.applyReplicaDeviceSetter(greedy, &error), qPrintable(error));
    QCOMPARE(device("hidden1/weights"), QString("/job:ps/task:1"));
    QCOMPARE(device("logits/weights"), QString("/job:ps/task:0"));
    // One ps task of two, and the ops on worker 1.
    SetterChoice one;
    one.ps_tasks = 1;
    one.worker_device = "/job:worker/task:1";
    QVERIFY2(editor.applyReplicaDeviceSetter(one, &error), qPrintable(error));
    QCOMPARE(device("hidden1/weights"), QString("/job:ps/task:0"));
    QCOMPARE(device("logits/weights"), QString("/job:ps/task:0"));
    QCOMPARE(device("hidden1/MatMul"), QString("/job:worker/task:1"));
    SetterChoice too_many;
    too_many.ps_tasks = 3;
    QVERIFY(!editor.applyReplicaDeviceSetter(too_many, &error));
    QVERIFY2(error.contains("3 ps tasks") && error.contains("has 2"), qPrintable(error));
    // A device for a whole selection, as one undo step.
    const int undo_count = doc->undoStack()->count();
    QVERIFY(doc->setDevices({"hidden1/MatMul", "logits/MatMul"}, "/job:worker/task:0", &error));
    QCOMPARE(doc->undoStack()->count(), undo_count + 1);
    QCOMPARE(device("logits/MatMul"), QString("/job:worker/task:0"));
    QVERIFY(!doc->setDevices({"hidden1/MatMul", "nope"}, "/job:worker/task:0", &error));
    QVERIFY2(error.contains("'nope'"), qPrintable(error));
    QVERIFY(!doc->setDevices({"hidden1/MatMul"}, "/job:worker/tusk:0", &error));
    QVERIFY(!error.isEmpty());
    doc->undoStack()->undo();
    QCOMPARE(device("logits/MatMul"), QString("/job:worker/task:1"));
  }

  void nameScopesCollapseAndExpand() {
    GraphEditor editor;
    editor.setProject(Project::digitsMlp());
    GraphScene* scene = editor.scene();
    QVERIFY2(scene->scopes().contains("hidden1") && scene->scopes().contains("logits"),
             qPrintable(scene->scopes().join(",")));
    QVERIFY(scene->item("hidden1/weights") != nullptr);
    scene->collapseAll();
    NodeItem* hidden = scene->item("hidden1/");
    QVERIFY(hidden != nullptr);
    QVERIFY(hidden->isGroup());
    QVERIFY(hidden->look().members >= 4);
    QCOMPARE(scene->item("hidden1/weights"), nullptr);
    // The scopes' edges: hidden1's activations feed the logits.
    bool hidden_to_logits = false;
    for (QGraphicsItem* item : scene->items())
      if (item->type() == EdgeItem::Type) {
        auto* edge = static_cast<EdgeItem*>(item);
        hidden_to_logits =
            hidden_to_logits || (edge->source()->name() == "hidden1/" && edge->destination()->name() == "logits/");
      }
    QVERIFY(hidden_to_logits);
    // Selecting the box selects the nodes it stands for.
    hidden->setSelected(true);
    const QStringList selected = scene->selectedNodes();
    QCOMPARE(selected.size(), hidden->look().members);
    QVERIFY(selected.contains("hidden1/weights"));
    // Finding a node inside opens its scope; the others stay collapsed.
    QVERIFY(editor.findNode("hidden1/weights"));
    QVERIFY(scene->item("hidden1/weights") != nullptr);
    QVERIFY(!scene->isCollapsed("hidden1"));
    QVERIFY(scene->isCollapsed("logits"));
    // Edits keep what is collapsed.
    QVERIFY(!editor.document()->addNode("Square").isEmpty());
    QVERIFY(scene->item("logits/") != nullptr);
    scene->expandAll();
    QVERIFY(scene->item("logits/") == nullptr);
    QVERIFY(scene->item("logits/weights") != nullptr);
  }

  void editedGraphIsWhatRuns() {
    MainWindow window(qEnvironmentVariable("CLAB_BIN_DIR") + "/clab");
    Project project = Project::seed();
    project.run.last_step = 5;
    window.setProject(project);
    // w becomes [[3], [3], [3], [3]]: the seed's product turns from [[20]] into [[30]].
    GraphDocument* doc = window.graphEditor()->document();
    auto tensor = AttrText::parseTensor("[[3], [3], [3], [3]]", tensorflow::DT_INT32);
    QVERIFY2(tensor.ok(), tensor.status().ToString().c_str());
    QVERIFY(doc->setAttr("w/initial_value", "value", AttrOf(*tensor)));
    QVERIFY(window.project().graph.contains("w/initial_value"));
    QString error;
    QVERIFY2(window.runProject(&error), qPrintable(error));
    QVERIFY(window.cluster()->commandFor("/job:worker/replica:0/task:0").join(" ").contains("example graph --graph"));
    QTRY_VERIFY2_WITH_TIMEOUT(clab::ui::test::Lines(window.console()).contains("MatMul = [[30]]"),
                              qPrintable(clab::ui::test::Lines(window.console()).right(3000)), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isRunning(), 30000);
    const QString console = clab::ui::test::Lines(window.console());
    QVERIFY2(console.contains("Stopped at global step 5"), qPrintable(console.right(2000)));
    QVERIFY(!console.contains("[[20]]"));
    // The placement log of the edited graph: the variables stayed on the ps.
    QCOMPARE(window.placement()->deviceOf("w"), QString("/job:ps/replica:0/task:0/device:CPU:0"));
  }
};

QTEST_MAIN(GraphBuildingTest)
#include "tst_graph_building.moc"
