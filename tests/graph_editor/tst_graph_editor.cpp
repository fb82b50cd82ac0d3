// The studio's graph and placement editor, offscreen: the seed graph built by hand through
// the document's edit API and run in an in-process session ([[20]]); a TensorFlow-written
// graph imported, coloured by task and exported again; replica_device_setter over one then
// two ps tasks; undo and redo of edits; errors marked on the node at fault; the properties
// panel, the palette, the canvas's mouse and keyboard; a thousand nodes laid out without
// overlaps; the Graph tab of the main window and the graph saved with the project.
#include "clab/graph/AttrValues.h"
#include "clab/runtime/Session.h"
#include "graph/AttrText.h"
#include "graph/DeviceColors.h"
#include "graph/GraphDocument.h"
#include "graph/GraphFiles.h"
#include "graph/GraphLayout.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/NodeItem.h"
#include "graph/NodePropertiesView.h"
#include "graph/OpPalette.h"
#include "monitor/RunMonitor.h"
#include "project/Project.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <google/protobuf/util/message_differencer.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace clab;
using namespace clab::ui;

namespace {

QString DataFile(const QString& name) {
  const QString root = qEnvironmentVariable("CLAB_SOURCE_DIR", QStringLiteral(CLAB_SOURCE_DIR_FALLBACK));
  return root + "/tests/data/" + name;
}

QString Device(const GraphDocument& doc, const QString& node) {
  const tensorflow::NodeDef* def = doc.node(node);
  return def ? QString::fromStdString(def->device()) : QString("(no node)");
}

// seed: a variable from a constant, its read, as tf.Variable builds them.
void AddVariable(GraphDocument& doc, const QString& name, const QString& value, const QString& shape) {
  QString error;
  QCOMPARE(doc.addNode("Const", name + "/initial_value", &error), name + "/initial_value");
  QVERIFY(doc.setAttr(name + "/initial_value", "dtype", AttrOf(tensorflow::DT_INT32)));
  auto tensor = AttrText::parseTensor(value, tensorflow::DT_INT32);
  QVERIFY2(tensor.ok(), tensor.status().ToString().c_str());
  QVERIFY(doc.setAttr(name + "/initial_value", "value", AttrOf(*tensor)));
  QCOMPARE(doc.addNode("VariableV2", name), name);
  QVERIFY(doc.setAttr(name, "dtype", AttrOf(tensorflow::DT_INT32)));
  auto parsed_shape = AttrText::parseShape(shape);
  QVERIFY(parsed_shape.ok());
  QVERIFY(doc.setAttr(name, "shape", AttrOf(*parsed_shape)));
  QCOMPARE(doc.addNode("Assign", name + "/Assign"), name + "/Assign");
  QVERIFY2(doc.connectNodes(name, 0, name + "/Assign", 0, &error), qPrintable(error));
  QVERIFY2(doc.connectNodes(name + "/initial_value", 0, name + "/Assign", 1, &error), qPrintable(error));
  QCOMPARE(doc.addNode("Identity", name + "/read"), name + "/read");
  QVERIFY2(doc.connectNodes(name, 0, name + "/read", 0, &error), qPrintable(error));
}

tensorflow::GraphDef ParseText(const char* text) {
  auto graph = GraphFiles::fromText(text);
  return graph.ok() ? *graph : tensorflow::GraphDef();
}

}  // namespace

class GraphEditorTest : public QObject {
  Q_OBJECT

 private slots:
  void seedGraphBuiltByHandRunsToTwenty() {
    GraphDocument doc;
    AddVariable(doc, "x", "[[1, 2, 3, 4]]", "[1,4]");
    AddVariable(doc, "w", "[[2], [2], [2], [2]]", "[4,1]");
    QString error;
    QCOMPARE(doc.addNode("MatMul"), QString("MatMul"));
    QVERIFY(!doc.error("MatMul").isEmpty());  // nothing connected yet
    QVERIFY2(doc.connectNodes("x/read", 0, "MatMul", 0, &error), qPrintable(error));
    QVERIFY2(doc.connectNodes("w/read", 0, "MatMul", 1, &error), qPrintable(error));
    QCOMPARE(doc.addNode("NoOp", "init"), QString("init"));
    QVERIFY2(doc.connectNodes("x/Assign", 0, "init", -1, &error), qPrintable(error));
    QVERIFY2(doc.connectNodes("w/Assign", 0, "init", -1, &error), qPrintable(error));

    QVERIFY2(doc.check().ok(), qPrintable(doc.check().messages(doc.graph()).join('\n')));
    // The connection made MatMul's T follow its int32 inputs; shapes are inferred per edge.
    DataType t = DT_INVALID;
    QVERIFY(GetNodeAttr(*doc.node("MatMul"), "T", &t).ok());
    QCOMPARE(t, tensorflow::DT_INT32);
    QCOMPARE(AttrText::shapeText(doc.ports("x/read").output_shapes.at(0)), QString("[1,4]"));
    QCOMPARE(AttrText::shapeText(doc.ports("MatMul").output_shapes.at(0)), QString("[1,1]"));
    QCOMPARE(doc.ports("MatMul").input_names, QStringList({"a", "b"}));
    QCOMPARE(doc.nodeCount(), 10);

    auto session = NewSession(SessionOptions{});
    QVERIFY(session.ok());
    QVERIFY2((*session)->Create(doc.graph()).ok(), "Create");
    std::vector<Tensor> outputs;
    Status ran = (*session)->Run({}, {}, {"init"}, &outputs);
    QVERIFY2(ran.ok(), std::string(ran.message()).c_str());
    ran = (*session)->Run({}, {"MatMul:0"}, {}, &outputs);
    QVERIFY2(ran.ok(), std::string(ran.message()).c_str());
    QCOMPARE(outputs.size(), size_t{1});
    QCOMPARE(AttrText::tensorText(outputs[0]), QString("[[20]]"));
    QVERIFY((*session)->Close().ok());
  }

  void tensorFlowGraphImportsColouredByTask() {
    GraphEditor editor;
    editor.setProject(Project::seed());
    QString error;
    QVERIFY2(editor.importGraph(DataFile("tf_style_graph.pbtxt"), &error), qPrintable(error));
    GraphDocument* doc = editor.document();
    QCOMPARE(doc->nodeCount(), 6);
    QVERIFY2(doc->check().ok(), qPrintable(doc->check().messages(doc->graph()).join('\n')));
    QCOMPARE(Device(*doc, "w"), QString("/job:ps/task:0"));
    QCOMPARE(Device(*doc, "MatMul"), QString("/job:worker/task:0"));
    const QColor ps = editor.nodeColor("w");
    const QColor worker = editor.nodeColor("MatMul");
    QVERIFY(ps.isValid() && worker.isValid());
    QVERIFY(ps != worker);
    QCOMPARE(editor.nodeColor("w/read"), ps);
    QCOMPARE(editor.nodeColor("x"), worker);
    QVERIFY(ps != DeviceColors::unplacedColor());
    // The legend names both tasks, with their colours.
    QStringList legend;
    for (int i = 0; i < editor.legend()->count(); ++i) legend << editor.legend()->item(i)->text();
    QVERIFY2(legend.contains("/job:ps/task:0  (3)"), qPrintable(legend.join(", ")));
    QVERIFY2(legend.contains("/job:worker/task:0  (3)"), qPrintable(legend.join(", ")));
    QCOMPARE(DeviceColors::taskOf("/job:ps/replica:0/task:0/device:CPU:0"), QString("/job:ps/task:0"));

    // Export, text and binary, and read back the same graph.
    QTemporaryDir dir;
    for (const QString& name : {QString("graph.pbtxt"), QString("graph.pb")}) {
      const QString path = dir.filePath(name);
      QVERIFY2(editor.exportGraph(path, &error), qPrintable(error));
      auto back = GraphFiles::read(path);
      QVERIFY2(back.ok(), std::string(back.status().message()).c_str());
      QVERIFY(google::protobuf::util::MessageDifferencer::Equals(*back, doc->graph()));
    }
    QFile text(dir.filePath("graph.pbtxt"));
    QVERIFY(text.open(QIODevice::ReadOnly));
    QVERIFY(text.readAll().contains("op: \"MatMul\""));
    // The import is one undo step: back to the seed program's graph, where x is a variable.
    doc->undoStack()->undo();
    QCOMPARE(doc->node("x")->op(), std::string("VariableV2"));
    QVERIFY(!editor.importGraph(dir.filePath("missing.pbtxt"), &error));
    QVERIFY(error.contains("missing.pbtxt"));
  }

  void replicaDeviceSetterDealsVariablesToPsTasks() {
    GraphEditor editor;
    Project one = Project::seed();
    editor.setProject(one);
    GraphDocument* doc = editor.document();
    QCOMPARE(doc->nodeCount(), 10);  // the seed program's graph, as worker 0 builds it
    QString error;
    QVERIFY2(editor.applyReplicaDeviceSetter(&error), qPrintable(error));
    QCOMPARE(Device(*doc, "x"), QString("/job:ps/task:0"));
    QCOMPARE(Device(*doc, "w"), QString("/job:ps/task:0"));
    QCOMPARE(Device(*doc, "MatMul"), QString("/job:worker/task:0"));

    Project two = one.withTaskAdded("ps");
    two.graph = editor.graphText();
    editor.setProject(two);
    QVERIFY2(editor.applyReplicaDeviceSetter(&error), qPrintable(error));
    QCOMPARE(Device(*doc, "x"), QString("/job:ps/task:0"));
    QCOMPARE(Device(*doc, "w"), QString("/job:ps/task:1"));
    // Colocated with w: its Assign and read.
    QCOMPARE(Device(*doc, "w/Assign"), QString("/job:ps/task:1"));
    // The Placer's result is shown: full device names, and the colours of two ps tasks.
    const auto& placed = editor.scene()->assignedDevices();
    QCOMPARE(placed.value("w"), QString("/job:ps/replica:0/task:1/device:CPU:0"));
    QCOMPARE(placed.value("MatMul"), QString("/job:worker/replica:0/task:0/device:CPU:0"));
    QCOMPARE(editor.scene()->colorBy(), GraphScene::ColorBy::kAssignedDevice);
    QVERIFY(editor.nodeColor("x") != editor.nodeColor("w"));
    QVERIFY(editor.nodeColor("w") != editor.nodeColor("MatMul"));

    // Back to one ps: w moves back to ps:0.
    one.graph = editor.graphText();
    editor.setProject(one);
    QVERIFY2(editor.applyReplicaDeviceSetter(&error), qPrintable(error));
    QCOMPARE(Device(*doc, "w"), QString("/job:ps/task:0"));
    doc->undoStack()->undo();
    QCOMPARE(Device(*doc, "w"), QString("/job:ps/task:1"));

    // A run's placement log (worker 0's master) replaces the preview.
    editor.showRunPlacement(
        {{"/job:worker/replica:0/task:1", "w", "VariableV2", "/job:ps/replica:0/task:7/device:CPU:0"},
         {"/job:worker/replica:0/task:0", "w", "VariableV2", "/job:ps/replica:0/task:0/device:CPU:0"},
         {"/job:worker/replica:0/task:0", "gone", "NoOp", "/job:worker/replica:0/task:0/device:CPU:0"}});
    QCOMPARE(editor.scene()->assignedDevices().value("w"), QString("/job:ps/replica:0/task:0/device:CPU:0"));
    QVERIFY(!editor.scene()->assignedDevices().contains("gone"));
    // A graph the engine refuses cannot be placed: the reason is the engine's.
    doc->addNode("MatMul", "loose");
    QVERIFY(!editor.previewPlacement(&error));
    QVERIFY2(error.contains("loose"), qPrintable(error));
    doc->undoStack()->undo();

    Project none = one.withTaskRemoved("/job:ps/replica:0/task:0");
    editor.setProject(none);
    QVERIFY(!editor.applyReplicaDeviceSetter(&error));
    QVERIFY(error.contains("no ps task"));
  }

  void editsAreUndoableAndRedoable() {
    GraphDocument doc;
    QUndoStack* undo = doc.undoStack();
    QSignalSpy edited(&doc, &GraphDocument::edited);
    QCOMPARE(doc.addNode("Const", "a"), QString("a"));
    QCOMPARE(doc.addNode("Const"), QString("Const"));
    QCOMPARE(doc.addNode("Const"), QString("Const_1"));
    QCOMPARE(doc.addNode("Identity"), QString("Identity"));
    QString error;
    QVERIFY(doc.addNode("NoSuchOp", {}, &error).isEmpty());
    QVERIFY2(error.contains("Op type not registered 'NoSuchOp'"), qPrintable(error));
    QVERIFY(doc.setAttr("a", "dtype", AttrOf(tensorflow::DT_INT64)));
    QVERIFY(!doc.setAttr("a", "dtype", AttrOf(tensorflow::DT_INT64)));  // no change, no step
    QVERIFY(doc.connectNodes("a", 0, "Identity", 0));
    QCOMPARE(doc.dataInputs("Identity").value(0).first, QString("a"));
    QCOMPARE(doc.ports("Identity").output_types.at(0), tensorflow::DT_INT64);  // T follows a
    QCOMPARE(undo->count(), 6);
    QCOMPARE(edited.count(), 6);

    undo->undo();  // the connection
    QVERIFY(doc.dataInputs("Identity").isEmpty());
    QVERIFY2(doc.error("Identity").contains("has 0 data input(s), but the op expects 1"),
             qPrintable(doc.error("Identity")));
    undo->undo();  // the attr
    DataType dtype = DT_INVALID;
    QVERIFY(GetNodeAttr(*doc.node("a"), "dtype", &dtype).ok());
    QCOMPARE(dtype, tensorflow::DT_FLOAT);
    undo->undo();  // the Identity
    QCOMPARE(doc.node("Identity"), nullptr);
    QCOMPARE(doc.nodeCount(), 3);

    undo->redo();
    undo->redo();
    undo->redo();
    QVERIFY(GetNodeAttr(*doc.node("a"), "dtype", &dtype).ok());
    QCOMPARE(dtype, tensorflow::DT_INT64);
    QCOMPARE(doc.dataInputs("Identity").value(0).first, QString("a"));
    QCOMPARE(doc.ports("Identity").output_types.at(0), tensorflow::DT_INT64);
    QVERIFY(doc.error("Identity").isEmpty());

    // Removing a node leaves its consumer's input open; rename follows inputs.
    QVERIFY(doc.renameNode("a", "source", &error));
    QCOMPARE(doc.dataInputs("Identity").value(0).first, QString("source"));
    QVERIFY(!doc.renameNode("source", "Const", &error));
    QVERIFY(error.contains("already exists"));
    QVERIFY(doc.removeNodes({"source"}));
    QVERIFY(doc.error("Identity").contains("expects 1"));
    // An open slot before a connected one is named.
    doc.addNode("MatMul", "m");
    QVERIFY(doc.connectNodes("Const", 0, "m", 1));
    QVERIFY2(doc.error("m").contains("input 0 (a: float) is not connected"), qPrintable(doc.error("m")));
    undo->undo();
    undo->undo();
    undo->undo();
    QVERIFY(doc.error("Identity").isEmpty());
    QVERIFY(doc.setDevice("Identity", "/job:worker/task:1"));
    QCOMPARE(Device(doc, "Identity"), QString("/job:worker/task:1"));
    QVERIFY(!doc.setDevice("Identity", "/job:worker/tusk:1", &error));
    QVERIFY(!error.isEmpty());
  }

  void errorsAreReportedOnTheNodeAtFault() {
    GraphDocument doc;
    doc.setGraph(ParseText(R"(
      node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1 } } } }
      node { name: "bad" op: "Foo" input: "c" }
      node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "after" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "mm" op: "MatMul" input: "c" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "half" op: "MatMul" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "lost" op: "Identity" input: "nowhere" attr { key: "T" value { type: DT_FLOAT } } }
    )"));
    QCOMPARE(doc.nodeCount(), 8);
    QVERIFY2(doc.error("bad").contains("Op type not registered 'Foo'"), qPrintable(doc.error("bad")));
    QVERIFY2(doc.error("a").contains("Graph contains a cycle: a -> b -> a"), qPrintable(doc.error("a")));
    QVERIFY(doc.error("b").contains("cycle"));
    QVERIFY2(doc.error("after").isEmpty(), qPrintable(doc.error("after")));  // only downstream
    QVERIFY2(doc.error("mm").contains("Dimensions must be equal") || doc.error("mm").contains("[2,3], [2,3]"),
             qPrintable(doc.error("mm")));
    QVERIFY2(doc.error("half").contains("has 1 data input(s), but the op expects 2"), qPrintable(doc.error("half")));
    QVERIFY2(doc.error("lost").contains("Unknown input node 'nowhere'"), qPrintable(doc.error("lost")));
    QVERIFY(doc.error("c").isEmpty());
    QCOMPARE(AttrText::shapeText(doc.ports("c").output_shapes.at(0)), QString("[2,3]"));

    // On the canvas: a red-bordered node whose tooltip carries the message.
    GraphScene scene(&doc);
    QVERIFY(scene.item("bad")->hasError());
    QVERIFY(scene.item("bad")->toolTip().contains("Op type not registered"));
    QVERIFY(!scene.item("c")->hasError());
    QVERIFY(!scene.item("after")->hasError());
  }

  void propertiesPanelEditsAttrsByType() {
    GraphDocument doc;
    NodePropertiesView view(&doc);
    view.setDeviceChoices({"/job:ps/task:0", "/job:worker/task:0"});
    doc.addNode("VariableV2", "v");
    view.showNode("v");
    auto* shape = view.findChild<QLineEdit*>("attr:shape");
    QVERIFY(shape != nullptr);
    QCOMPARE(shape->text(), QString("<unknown>"));
    shape->setText("[2,x]");
    emit shape->editingFinished();
    QVERIFY(view.problem().contains("not a dimension"));
    PartialShape value;
    QVERIFY(GetNodeAttr(*doc.node("v"), "shape", &value).ok());
    QVERIFY(!value.known_rank());
    shape = view.findChild<QLineEdit*>("attr:shape");
    shape->setText("[2,-1]");
    emit shape->editingFinished();
    QVERIFY(view.problem().isEmpty());
    QVERIFY(GetNodeAttr(*doc.node("v"), "shape", &value).ok());
    QCOMPARE(value, PartialShape({2, -1}));

    auto* dtype = view.findChild<QComboBox*>("attr:dtype");
    QVERIFY(dtype != nullptr);
    dtype->setCurrentText("int32");
    emit dtype->activated(dtype->currentIndex());
    DataType type = DT_INVALID;
    QVERIFY(GetNodeAttr(*doc.node("v"), "dtype", &type).ok());
    QCOMPARE(type, tensorflow::DT_INT32);

    auto* device = view.findChild<QComboBox*>("device");
    QVERIFY(device != nullptr);
    QCOMPARE(device->count(), 3);
    device->setCurrentText("/job:ps/task:0");
    emit device->lineEdit()->editingFinished();
    QCOMPARE(Device(doc, "v"), QString("/job:ps/task:0"));

    // A Const's value as JSON, typed by its dtype.
    doc.addNode("Const", "k");
    doc.setAttr("k", "dtype", AttrOf(tensorflow::DT_INT32));
    view.showNode("k");
    auto* tensor = view.findChild<QLineEdit*>("attr:value");
    QVERIFY(tensor != nullptr);
    QCOMPARE(tensor->text(), QString("0"));
    tensor->setText("[[1, 2], [3, 4]]");
    emit tensor->editingFinished();
    QVERIFY2(view.problem().isEmpty(), qPrintable(view.problem()));
    QCOMPARE(AttrText::shapeText(doc.ports("k").output_shapes.at(0)), QString("[2,2]"));
    tensor = view.findChild<QLineEdit*>("attr:value");
    QCOMPARE(tensor->text(), QString("[[1, 2], [3, 4]]"));
    tensor->setText("[[1, 2], [3]]");
    emit tensor->editingFinished();
    QVERIFY(!view.problem().isEmpty());

    // Lists as JSON arrays; bools as check boxes.
    doc.addNode("Transpose", "t");
    QCOMPARE(AttrText::listText(AttrOf(std::vector<int64_t>{1, 0}), "list(int)"), QString("[1, 0]"));
    auto list = AttrText::parseList("[\"float\", \"int32\"]", "list(type)");
    QVERIFY(list.ok());
    QCOMPARE(list->list().type_size(), 2);
    QVERIFY(!AttrText::parseList("[1.5]", "list(int)").ok());
    doc.addNode("MatMul", "m");
    view.showNode("m");
    auto* transpose = view.findChild<QWidget*>("attr:transpose_a");
    QVERIFY(transpose && transpose->inherits("QCheckBox"));
  }

  void paletteFiltersAndAddsOps() {
    GraphEditor editor;
    editor.setProject(Project::seed());
    OpPalette* palette = editor.palette();
    QVERIFY(palette->visibleOps().size() > 30);
    const int shown = palette->setFilter("matmul");
    QCOMPARE(shown, static_cast<int>(palette->visibleOps().size()));
    QVERIFY(palette->visibleOps().contains("MatMul"));
    QVERIFY(!palette->visibleOps().contains("Const"));
    const int before = editor.document()->nodeCount();
    emit palette->opActivated("MatMul");
    QCOMPARE(editor.document()->nodeCount(), before + 1);
    QVERIFY(editor.document()->node("MatMul_1") != nullptr);
    QCOMPARE(editor.scene()->selectedNodes(), QStringList{"MatMul_1"});
  }

  void canvasConnectsByDraggingAndDeletesWithTheKey() {
    GraphEditor editor;
    editor.resize(1200, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    GraphDocument* doc = editor.document();
    doc->setGraph({});
    GraphScene* scene = editor.scene();
    GraphView* view = editor.view();
    QVERIFY(!scene->addNodeAt("Const", QPointF(0, 0)).isEmpty());
    QVERIFY(!scene->addNodeAt("Identity", QPointF(320, 0)).isEmpty());
    view->setZoom(1.0);
    view->centerOn(QPointF(250, 40));
    QApplication::processEvents();
    NodeItem* source = scene->item("Const");
    NodeItem* sink = scene->item("Identity");
    const QPoint from = view->mapFromScene(source->outputPos(0) - QPointF(3, 0));
    const QPoint to = view->mapFromScene(sink->inputPos(0) + QPointF(3, 0));
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(view->viewport(), (from + to) / 2);
    QTest::mouseMove(view->viewport(), to);
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, to);
    QCOMPARE(doc->dataInputs("Identity").value(0).first, QString("Const"));
    QVERIFY(doc->check().ok());

    // Find selects and centres; Delete removes the selection.
    QVERIFY(editor.findNode("ident"));
    QCOMPARE(scene->selectedNodes(), QStringList{"Identity"});
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Delete);
    QCOMPARE(doc->node("Identity"), nullptr);
    doc->undoStack()->undo();
    QVERIFY(doc->node("Identity") != nullptr);

    // The wheel zooms.
    const double zoom = view->zoom();
    QWheelEvent wheel(QPointF(100, 100), view->viewport()->mapToGlobal(QPointF(100, 100)), {}, QPoint(0, 240),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view->viewport(), &wheel);
    QVERIFY(view->zoom() > zoom * 1.2);
  }

  void thousandNodesAreLaidOutQuicklyWithoutOverlaps() {
    // A layered graph as training graphs are: each node reads one to three earlier ones.
    QRandomGenerator random(17);
    const int n = 1000;
    std::vector<QSizeF> sizes;
    std::vector<std::pair<int, int>> edges;
    for (int i = 0; i < n; ++i) {
      sizes.emplace_back(150 + random.bounded(120), 60 + random.bounded(80));
      const int inputs = i == 0 ? 0 : 1 + random.bounded(3);
      for (int k = 0; k < inputs; ++k) edges.emplace_back(random.bounded(std::max(1, i)), i);
    }
    edges.emplace_back(900, 10);  // a cycle, which the layout must survive
    // (How fast the layout is belongs to a benchmark; here it must finish and be right.)
    const std::vector<QPointF> positions = GraphLayout::layered(sizes, edges);
    std::vector<QRectF> rects;
    for (int i = 0; i < n; ++i) rects.emplace_back(positions[static_cast<size_t>(i)], sizes[static_cast<size_t>(i)]);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        QVERIFY2(!rects[static_cast<size_t>(i)].intersects(rects[static_cast<size_t>(j)]),
                 qPrintable(QStringLiteral("nodes %1 and %2 overlap").arg(i).arg(j)));
    // Edges go left to right, apart from the one that closes the cycle.
    int backwards = 0;
    for (const auto& [src, dst] : edges)
      backwards += positions[static_cast<size_t>(src)].x() >= positions[static_cast<size_t>(dst)].x();
    QVERIFY(backwards <= 1);

    // The same through the canvas, from a GraphDef of a thousand nodes.
    tensorflow::GraphDef graph;
    for (int i = 0; i < n; ++i) {
      tensorflow::NodeDef* node = graph.add_node();
      node->set_name("n" + std::to_string(i));
      if (i % 10 == 0) {
        node->set_op("Const");
        (*node->mutable_attr())["dtype"] = AttrOf(tensorflow::DT_FLOAT);
        (*node->mutable_attr())["value"] = AttrOf(Tensor::Scalar(1.0f));
      } else {
        node->set_op("Add");
        node->add_input("n" + std::to_string(random.bounded(i)));
        node->add_input("n" + std::to_string(random.bounded(i)));
        (*node->mutable_attr())["T"] = AttrOf(tensorflow::DT_FLOAT);
      }
    }
    GraphDocument doc;
    doc.setGraph(graph);
    GraphScene scene(&doc);
    QVERIFY2(doc.check().ok(), qPrintable(doc.check().messages(doc.graph()).join('\n').left(500)));
    std::vector<QRectF> boxes;
    for (const QString& name : doc.nodeNames())
      boxes.push_back(QRectF(scene.position(name), NodeItem::sizeFor(scene.item(name)->look())));
    for (size_t i = 0; i < boxes.size(); ++i)
      for (size_t j = i + 1; j < boxes.size(); ++j) QVERIFY(!boxes[i].intersects(boxes[j]));
  }

  void graphTabSavesTheGraphWithTheProject() {
    MainWindow window(QStringLiteral("clab"));
    int tab = -1;
    for (int i = 0; i < window.tabs()->count(); ++i)
      if (window.tabs()->tabText(i) == "Graph") tab = i;
    QVERIFY(tab >= 0);
    GraphEditor* editor = window.graphEditor();
    QCOMPARE(window.tabs()->widget(tab), editor);
    QVERIFY(editor->document()->node("MatMul") != nullptr);
    QVERIFY(window.project().graph.isEmpty());
    QVERIFY(window.undoStack()->isClean());

    // A graph edit is a step of the window's history and part of the project.
    QVERIFY(editor->document()->setDevice("MatMul", "/job:ps/task:0"));
    QVERIFY(!window.undoStack()->isClean());
    QVERIFY(window.project().graph.contains("MatMul"));
    QVERIFY(!editor->document()->addNode("Square").isEmpty());
    QTemporaryDir dir;
    const QString path = dir.filePath("graph.clab");
    QString error;
    QVERIFY2(window.project().save(path, &error), qPrintable(error));
    window.undoStack()->undo();
    QCOMPARE(editor->document()->node("Square"), nullptr);
    QVERIFY(!window.project().graph.contains("Square"));

    // The cluster edits around it keep the graph.
    window.addTask("ps");
    QVERIFY(window.project().graph.contains("MatMul"));
    window.undoStack()->undo();

    MainWindow reopened(QStringLiteral("clab"));
    QVERIFY2(reopened.openProject(path, &error), qPrintable(error));
    QVERIFY(reopened.graphEditor()->document()->node("Square") != nullptr);
    Project loaded;
    QVERIFY(Project::load(path, &loaded, &error));
    QVERIFY(loaded.graph.contains("op: \"Square\""));

    // A project file without a graph (as older files are) loads and shows its program's.
    QJsonObject json = Project::seed().toJson();
    QVERIFY(!json.contains("graph"));
    json.insert("graph", 3);
    Project wrong;
    QVERIFY(!Project::fromJson(json, &wrong, &error));
    QVERIFY(error.startsWith("graph:"));
  }
};

QTEST_MAIN(GraphEditorTest)
#include "tst_graph_editor.moc"
