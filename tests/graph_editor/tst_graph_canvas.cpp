// The Graph tab's room and canvas, offscreen: View > Maximise graph (F11) gives the tab the
// window and puts the cluster canvas and the docks back as they were; the node's properties
// fit their panel at the default window size; the minimap never covers a node; Find zooms to
// the node; nodes and edges paint inside their bounding rects (no trails when dragged); new
// nodes land in free space; edges whose input lies left of their output go round both nodes;
// the placement preview's _Send/_Recv labels cover no node and so none of its ports.
#include "clab/core/Tensor.h"
#include "clab/graph/AttrValues.h"
#include "graph/EdgeItem.h"
#include "graph/GraphDocument.h"
#include "graph/GraphMinimap.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/NodeItem.h"
#include "graph/NodePropertiesView.h"
#include "graph/OpPalette.h"
#include "project/Project.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QRandomGenerator>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStyleOptionGraphicsItem>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace clab;
using namespace clab::ui;

namespace {

// A layered graph of `n` nodes in name scopes, as an imported training graph is.
tensorflow::GraphDef LayeredGraph(int n) {
  QRandomGenerator random(5);
  tensorflow::GraphDef graph;
  for (int i = 0; i < n; ++i) {
    tensorflow::NodeDef* node = graph.add_node();
    node->set_name("layer" + std::to_string(i / 10) + "/n" + std::to_string(i));
    if (i % 10 == 0) {
      node->set_op("Const");
      (*node->mutable_attr())["dtype"] = AttrOf(tensorflow::DT_FLOAT);
      (*node->mutable_attr())["value"] = AttrOf(Tensor::Scalar(1.0f));
    } else {
      node->set_op("Add");
      node->add_input(graph.node(i - 1).name());
      node->add_input(graph.node(random.bounded(i)).name());
      (*node->mutable_attr())["T"] = AttrOf(tensorflow::DT_FLOAT);
    }
  }
  return graph;
}

QRectF Box(const NodeItem* item) { return QRectF(item->pos(), NodeItem::sizeFor(item->look())); }

// The node the minimap lies over, or "".
QString NodeUnderMinimap(GraphView* view) {
  GraphMinimap* minimap = view->minimap();
  if (!minimap->isVisible()) return {};
  const QRectF under = view->mapToScene(minimap->geometry()).boundingRect();
  for (QGraphicsItem* item : view->scene()->items())
    if (item->type() == NodeItem::Type && under.intersects(item->sceneBoundingRect()))
      return static_cast<NodeItem*>(item)->name();
  return {};
}

// The minimap, where shown, lies over no node (its box and ports, a few pixels around).
void VerifyMinimapCoversNoNode(GraphView* view, const char* where) {
  GraphMinimap* minimap = view->minimap();
  if (!minimap->isVisible()) return;
  const QRectF under = view->mapToScene(minimap->geometry()).boundingRect();
  for (QGraphicsItem* item : view->scene()->items())
    if (item->type() == NodeItem::Type)
      QVERIFY2(
          !under.intersects(item->sceneBoundingRect()),
          qPrintable(QStringLiteral("%1: the minimap covers %2").arg(where, static_cast<NodeItem*>(item)->name())));
}

// Paints `item` at `scale` into a transparent image with room around it; every painted pixel
// must lie inside the item's bounding rect as the view maps it.
void VerifyPaintsInsideBounds(QGraphicsItem* item, bool selected, double scale, const QString& what) {
  const QRectF bounds = item->boundingRect();
  const int margin = 40;
  QImage image(QSize(qCeil(bounds.width() * scale) + 2 * margin, qCeil(bounds.height() * scale) + 2 * margin),
               QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QTransform transform;
  transform.translate(margin, margin);
  transform.scale(scale, scale);
  transform.translate(-bounds.left(), -bounds.top());
  {
    QPainter painter(&image);
    painter.setTransform(transform);
    QStyleOptionGraphicsItem option;
    option.state = selected ? QStyle::State_Selected : QStyle::State_None;
    option.exposedRect = bounds;
    item->paint(&painter, &option, nullptr);
  }
  const QRect allowed = transform.mapRect(bounds).toAlignedRect();
  int outside = 0;
  QPoint example;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (qAlpha(image.pixel(x, y)) > 0 && !allowed.contains(x, y)) {
        if (outside++ == 0) example = QPoint(x, y);
      }
  QVERIFY2(outside == 0, qPrintable(QStringLiteral("%1 at %2x%3: %4 pixels painted outside its bounding rect, e.g. "
                                                   "(%5, %6) outside (%7, %8, %9x%10)")
                                        .arg(what)
                                        .arg(scale)
                                        .arg(selected ? " selected" : "")
                                        .arg(outside)
                                        .arg(example.x())
                                        .arg(example.y())
                                        .arg(allowed.x())
                                        .arg(allowed.y())
                                        .arg(allowed.width())
                                        .arg(allowed.height())));
}

// Points along an edge inside a node's box (less its ports' reach at the sides).
int PointsInside(const QPainterPath& path, const QRectF& box) {
  const QRectF inner = box.adjusted(8, 2, -8, -2);
  int inside = 0;
  for (int i = 0; i <= 200; ++i) inside += inner.contains(path.pointAtPercent(i / 200.0));
  return inside;
}

}  // namespace

class GraphCanvasTest : public QObject {
  Q_OBJECT

 private slots:
  void maximiseGivesTheGraphTheWindowAndRestoresIt() {
    MainWindow window(QStringLiteral("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QTRY_VERIFY(window.isActiveWindow());
    window.tabs()->setCurrentWidget(window.graphEditor());
    // The canvas and the tabs, under the window's notice banner.
    auto* splitter = window.centralWidget()->findChild<QSplitter*>("central-splitter");
    QVERIFY(splitter != nullptr);
    QWidget* canvas = splitter->widget(0);
    QApplication::processEvents();
    const QList<int> sizes = splitter->sizes();
    QHash<QString, QPair<bool, QRect>> docks;
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
      docks.insert(dock->objectName(), {dock->isVisible(), dock->geometry()});
    QVERIFY(docks.value("task-properties").first);
    GraphView* view = window.graphEditor()->view();
    const QSize before = view->viewport()->size();

    auto* action = window.findChild<QAction*>("maximise-graph");
    QVERIFY(action != nullptr);
    QVERIFY(action->isCheckable());
    QTest::keyClick(&window, Qt::Key_F11);
    QTRY_VERIFY(action->isChecked());
    QVERIFY(!canvas->isVisible());
    for (QDockWidget* dock : window.findChildren<QDockWidget*>())
      QVERIFY2(!dock->isVisible(), qPrintable(dock->objectName()));
    QTRY_VERIFY(view->viewport()->width() > before.width() + 150);
    QVERIFY(view->viewport()->height() > before.height() + 150);

    // F11 again: everything as it was.
    QTest::keyClick(&window, Qt::Key_F11);
    QTRY_VERIFY(!action->isChecked());
    QVERIFY(canvas->isVisible());
    QTRY_COMPARE(splitter->sizes(), sizes);
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      QCOMPARE(dock->isVisible(), docks.value(dock->objectName()).first);
      if (dock->isVisible()) QTRY_COMPARE(dock->geometry(), docks.value(dock->objectName()).second);
    }
    QTRY_COMPARE(view->viewport()->size(), before);

    // Maximised from another tab it shows the graph; choosing another tab restores.
    window.tabs()->setCurrentIndex(0);
    action->trigger();
    QCOMPARE(window.tabs()->currentWidget(), window.graphEditor());
    QVERIFY(!canvas->isVisible());
    window.tabs()->setCurrentIndex(1);
    QVERIFY(!action->isChecked());
    QVERIFY(canvas->isVisible());
    QTRY_COMPARE(splitter->sizes(), sizes);
  }

  void propertiesFitTheirPanelAtTheDefaultSize() {
    MainWindow window(QStringLiteral("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1280, 860));
    window.tabs()->setCurrentWidget(window.graphEditor());
    GraphEditor* editor = window.graphEditor();
    for (const QString& node : {QString("MatMul"), QString("w"), QString("x")}) {
      QVERIFY2(editor->document()->node(node) != nullptr, qPrintable(node));
      editor->scene()->selectNode(node);
      QApplication::processEvents();
      auto* scroll = editor->properties()->findChild<QScrollArea*>();
      QVERIFY(scroll != nullptr);
      QWidget* page = scroll->widget();
      QTRY_VERIFY(page->isVisible());
      // Nothing runs off the right: no sideways scrolling, every field whole.
      QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
      for (QWidget* field : page->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (!field->isVisible()) continue;
        const QRect shown = QRect(field->mapTo(scroll->viewport(), QPoint(0, 0)), field->size());
        QVERIFY2(shown.right() <= scroll->viewport()->width(),
                 qPrintable(QStringLiteral("%1: %2 ends at %3, the panel at %4")
                                .arg(node, field->metaObject()->className())
                                .arg(shown.right())
                                .arg(scroll->viewport()->width())));
      }
      // The name, op and device rows are in view without scrolling.
      auto* name = page->findChild<QWidget*>("name");
      QVERIFY(name != nullptr);
      QVERIFY(name->mapTo(scroll->viewport(), QPoint(0, name->height())).y() <= scroll->viewport()->height());
      QVERIFY2(scroll->viewport()->height() >= 200, qPrintable(QString::number(scroll->viewport()->height())));
    }
  }

  void minimapCoversNoNode() {
    GraphEditor editor;
    editor.resize(1200, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.document()->setGraph(LayeredGraph(300));
    editor.scene()->autoLayout();
    editor.fitGraph();
    QApplication::processEvents();
    GraphView* view = editor.view();
    VerifyMinimapCoversNoNode(view, "fitted");
    // Life size at the graph's first node (top left): there is free canvas in a corner.
    const QStringList names = editor.document()->nodeNames();
    view->setZoom(1.0);
    QRectF all = editor.scene()->nodesRect();
    view->centerOn(all.topLeft());
    QApplication::processEvents();
    QVERIFY2(view->minimap()->isVisible(), "a graph larger than the canvas has its minimap");
    VerifyMinimapCoversNoNode(view, "top left");
    // A node moved under it: the minimap makes way.
    NodeItem* moved = editor.scene()->item(names.first());
    const QPointF home = moved->pos();
    moved->setPos(view->mapToScene(view->minimap()->geometry().center()));
    QTRY_COMPARE(NodeUnderMinimap(view), QString());
    moved->setPos(home);
    QApplication::processEvents();
    for (int i = 0; i < names.size(); i += 37) {
      QVERIFY(view->showNode(names[i]));
      QApplication::processEvents();
      VerifyMinimapCoversNoNode(view, qPrintable(names[i]));
    }
    // Clicking in the minimap moves the canvas there.
    view->centerOn(all.topLeft());
    QApplication::processEvents();
    QVERIFY(view->minimap()->isVisible());
    const QPointF target = view->minimap()->mapToScene(view->minimap()->viewport()->rect().center());
    QTest::mouseClick(view->minimap()->viewport(), Qt::LeftButton, {}, view->minimap()->viewport()->rect().center());
    const QPointF centre = view->mapToScene(view->viewport()->rect().center());
    QVERIFY2(
        QLineF(centre, target).length() < 40 / view->zoom() + 40,
        qPrintable(QStringLiteral("%1,%2 vs %3,%4").arg(centre.x()).arg(centre.y()).arg(target.x()).arg(target.y())));
  }

  void findZoomsToTheNode() {
    GraphEditor editor;
    editor.resize(1200, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    editor.document()->setGraph(LayeredGraph(400));
    editor.scene()->autoLayout();
    editor.fitGraph();
    QApplication::processEvents();
    GraphView* view = editor.view();
    QVERIFY2(view->zoom() < 0.5, qPrintable(QString::number(view->zoom())));
    QVERIFY(editor.findNode("n257"));
    QCOMPARE(editor.scene()->selectedNodes(), QStringList{"layer25/n257"});
    QCOMPARE(view->zoom(), 1.0);
    NodeItem* item = editor.scene()->item("layer25/n257");
    const QRectF shown = view->mapToScene(view->viewport()->rect()).boundingRect();
    QVERIFY(shown.contains(item->sceneBoundingRect()));
    const QPoint centre = view->mapFromScene(item->sceneBoundingRect().center());
    QVERIFY2((centre - view->viewport()->rect().center()).manhattanLength() <= 4,
             qPrintable(QStringLiteral("%1,%2").arg(centre.x()).arg(centre.y())));
    // Closer than life size stays as close.
    view->setZoom(2.0);
    QVERIFY(editor.findNode("n3"));
    QCOMPARE(view->zoom(), 2.0);
  }

  void itemsPaintInsideTheirBounds() {
    GraphDocument doc;
    doc.setGraph(LayeredGraph(30));
    GraphScene scene(&doc);
    int nodes = 0, edges = 0;
    for (QGraphicsItem* item : scene.items()) {
      for (const double scale : {1.0, 2.0, 0.3})
        for (const bool selected : {false, true}) {
          if (item->type() == NodeItem::Type) {
            VerifyPaintsInsideBounds(item, selected, scale, static_cast<NodeItem*>(item)->name());
            ++nodes;
          } else if (item->type() == EdgeItem::Type) {
            auto* edge = static_cast<EdgeItem*>(item);
            VerifyPaintsInsideBounds(item, selected, scale,
                                     edge->source()->name() + "->" + edge->destination()->name());
            ++edges;
          }
          if (QTest::currentTestFailed()) return;
        }
    }
    QVERIFY(nodes > 0 && edges > 0);
    // A collapsed scope's box (a stack of cards) too.
    scene.collapseAll();
    NodeItem* group = scene.item("layer1/");
    QVERIFY(group != nullptr && group->isGroup());
    for (const bool selected : {false, true}) VerifyPaintsInsideBounds(group, selected, 1.0, "layer1/");
    // The canvas leaves the updating to those rects.
    GraphView view(&scene);
    QCOMPARE(view.viewportUpdateMode(), QGraphicsView::SmartViewportUpdate);
  }

  void newNodesLandInFreeSpace() {
    GraphEditor editor;
    editor.resize(1200, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    GraphDocument* doc = editor.document();
    doc->setGraph({});
    GraphScene* scene = editor.scene();
    QCOMPARE(scene->addNodeAt("Const", QPointF(0, 0)), QString("Const"));
    // Asked for on top of the first: put next to it.
    const QString second = scene->addNodeAt("Identity", QPointF(20, 10));
    QVERIFY(!second.isEmpty());
    QVERIFY(!Box(scene->item("Const")).intersects(Box(scene->item(second))));
    QVERIFY(QLineF(scene->item(second)->pos(), QPointF(20, 10)).length() < 400);
    QCOMPARE(scene->position(second), scene->item(second)->pos());
    // The palette adds at the canvas's centre: again and again, never on another node.
    editor.view()->centerOn(scene->item("Const"));
    for (int i = 0; i < 6; ++i) emit editor.palette()->opActivated("Add");
    // Nodes the document gains another way (a builder) go beside the others, also apart.
    QString error;
    for (int i = 0; i < 2; ++i) QVERIFY2(!doc->addNode("Square", {}, &error).isEmpty(), qPrintable(error));
    const QStringList names = doc->nodeNames();
    QCOMPARE(names.size(), 10);
    for (int i = 0; i < names.size(); ++i)
      for (int j = i + 1; j < names.size(); ++j)
        QVERIFY2(!Box(scene->item(names[i])).intersects(Box(scene->item(names[j]))),
                 qPrintable(names[i] + " overlaps " + names[j]));
    // And they stay where they are after the next edit.
    const QPointF kept = scene->item(second)->pos();
    QVERIFY(doc->setDevice("Const", "/job:worker/task:0"));
    QCOMPARE(scene->item(second)->pos(), kept);
  }

  void edgesGoRoundTheirOwnNodes() {
    GraphDocument doc;
    GraphScene scene(&doc);
    QString error;
    QCOMPARE(scene.addNodeAt("Const", QPointF(400, 0)), QString("Const"));
    QCOMPARE(scene.addNodeAt("Identity", QPointF(0, 30)), QString("Identity"));
    QCOMPARE(scene.addNodeAt("Square", QPointF(120, 260)), QString("Square"));
    QVERIFY2(doc.connectNodes("Const", 0, "Identity", 0, &error), qPrintable(error));    // backwards
    QVERIFY2(doc.connectNodes("Const", 0, "Square", 0, &error), qPrintable(error));      // backwards, below
    QVERIFY2(doc.connectNodes("Identity", 0, "Square", -1, &error), qPrintable(error));  // control, overlapping x
    int checked = 0;
    auto verify = [&] {
      for (QGraphicsItem* item : scene.items()) {
        if (item->type() != EdgeItem::Type) continue;
        auto* edge = static_cast<EdgeItem*>(item);
        const QPainterPath path = edge->mapToScene(edge->path());
        for (const bool selected : {false, true}) VerifyPaintsInsideBounds(edge, selected, 1.0, "a detour");
        for (NodeItem* node : {edge->source(), edge->destination()})
          QVERIFY2(PointsInside(path, Box(node)) == 0,
                   qPrintable(QStringLiteral("%1 -> %2 runs through %3")
                                  .arg(edge->source()->name(), edge->destination()->name(), node->name())));
        ++checked;
      }
    };
    verify();
    QCOMPARE(checked, 3);
    if (QTest::currentTestFailed()) return;
    // Moving a node re-routes its edges: Identity right of Const, then below it, overlapping
    // it from left to right.
    scene.item("Identity")->setPos(700, 0);
    verify();
    scene.item("Identity")->setPos(300, 150);
    verify();
    scene.item("Identity")->setPos(380, 420);
    verify();
    // An edge between facing ports stays a plain curve.
    scene.item("Identity")->setPos(-400, 0);
    for (QGraphicsItem* item : scene.items())
      if (item->type() == EdgeItem::Type && static_cast<EdgeItem*>(item)->destination()->name() == "Square" &&
          static_cast<EdgeItem*>(item)->isControl()) {
        auto* edge = static_cast<EdgeItem*>(item);
        QCOMPARE(edge->path(), EdgeItem::curve(edge->path().pointAtPercent(0), edge->path().pointAtPercent(1)));
      }
  }

  void sendRecvLabelsCoverNoNode() {
    GraphEditor editor;
    editor.resize(1200, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    for (const Project& project : {Project::seed(), Project::digitsMlp()}) {
      editor.setProject(project);
      QString error;
      QVERIFY2(editor.previewPlacement(&error), qPrintable(error));
      int labels = 0;
      for (QGraphicsItem* item : editor.scene()->items()) {
        auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item);
        if (!text || !text->text().startsWith("_Send/_Recv") || !text->parentItem()) continue;
        ++labels;
        const QRectF label = text->parentItem()->sceneBoundingRect();
        for (QGraphicsItem* other : editor.scene()->items())
          if (other->type() == NodeItem::Type)
            QVERIFY2(
                !label.intersects(other->sceneBoundingRect()),
                qPrintable(QStringLiteral("'%1' covers %2").arg(text->text(), static_cast<NodeItem*>(other)->name())));
      }
      QVERIFY2(labels > 0, qPrintable(project.program));
    }
  }
};

// A desktop-sized screen (the offscreen platform's own is 800x600), so that the window gets
// its default size rather than one fitted to a small screen.
int main(int argc, char** argv) {
  QTemporaryDir dir;
  const QString config = dir.filePath("screen.json");
  QFile file(config);
  if (!file.open(QIODevice::WriteOnly)) return 1;
  file.write(R"({"screens": [{"name": "desktop", "x": 0, "y": 0, "width": 1920, "height": 1200,
                              "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
  file.close();
  qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toUtf8());
  QApplication app(argc, argv);
  GraphCanvasTest test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_graph_canvas.moc"
