// How long a frame of the studio's Graph tab takes with a large imported graph: a GraphDef of
// N nodes (name scopes, data and control edges, as training graphs have) is written to a
// .pbtxt, imported into the real GraphEditor (its GraphScene, GraphView and minimap) shown
// offscreen at the studio's default size, and each interaction is timed from the event to the
// end of the repaint it causes (the event, then the pending paints, as the event loop does):
//
//   pan     the canvas dragged with the middle button, 40 px a frame
//   zoom    a wheel notch in, then out, around the pointer
//   select  a click on a node (the properties panel fills in)
//   drag    a selected node moved 12 px a frame with the left button
//
// at two zooms: the whole graph fitted (every node in view) and life size (100%). The floor
// is a whole repaint of the same canvas with an empty scene, measured in the same run. Prints a table
// and one JSON line; the figure per row is the median over rounds of the per-round medians.
//
//   QT_QPA_PLATFORM=offscreen graph_canvas [--nodes=2000] [--frames=30] [--rounds=5]
#include "clab/core/Tensor.h"
#include "clab/graph/AttrValues.h"
#include "graph/GraphDocument.h"
#include "graph/GraphFiles.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/NodeItem.h"
#include "window/GraphEditor.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QWheelEvent>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace clab;
using namespace clab::ui;

namespace {

struct Options {
  int nodes = 2000;
  int frames = 30;  // per round and interaction
  int rounds = 5;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--nodes=", 0) == 0) o.nodes = std::max(10, std::atoi(arg.c_str() + 8));
    else if (arg.rfind("--frames=", 0) == 0) o.frames = std::max(2, std::atoi(arg.c_str() + 9));
    else if (arg.rfind("--rounds=", 0) == 0) o.rounds = std::max(1, std::atoi(arg.c_str() + 9));
    else {
      std::fprintf(stderr, "usage: %s [--nodes=2000] [--frames=30] [--rounds=5]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// Blocks of a layer-by-layer model: each block a name scope of a few variables with their
// reads and the ops that use them, fed by the block before; a control edge now and then.
tensorflow::GraphDef LargeGraph(int n) {
  QRandomGenerator random(2000);
  tensorflow::GraphDef graph;
  std::vector<std::string> names;
  auto add = [&](const std::string& name, const std::string& op) {
    tensorflow::NodeDef* node = graph.add_node();
    node->set_name(name);
    node->set_op(op);
    names.push_back(name);
    return node;
  };
  int block = 0;
  while (static_cast<int>(names.size()) < n) {
    const std::string scope = "block" + std::to_string(block++) + "/";
    tensorflow::NodeDef* c = add(scope + "scale", "Const");
    (*c->mutable_attr())["dtype"] = AttrOf(tensorflow::DT_FLOAT);
    (*c->mutable_attr())["value"] = AttrOf(Tensor::Scalar(2.0f));
    std::string last = names.size() > 1 ? names[names.size() - 2] : scope + "scale";
    const int ops = 9;
    for (int k = 0; k < ops && static_cast<int>(names.size()) < n; ++k) {
      const std::string other = names[random.bounded(static_cast<int>(names.size()))];
      tensorflow::NodeDef* node =
          add(scope + (k % 3 == 0 ? "mul_" : "add_") + std::to_string(k), k % 3 ? "Add" : "Mul");
      node->add_input(last);
      node->add_input(k % 4 == 0 ? scope + "scale" : other);
      if (k == ops - 1 && names.size() > 30)
        node->add_input("^" + names[random.bounded(static_cast<int>(names.size()) - 1)]);
      (*node->mutable_attr())["T"] = AttrOf(tensorflow::DT_FLOAT);
      last = node->name();
    }
  }
  return graph;
}

// Counts the canvas's paint events, so a frame that painted nothing is noticed.
class PaintCounter : public QObject {
 public:
  int paints = 0;
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++paints;
    return false;
  }
};

struct Row {
  std::string interaction, zoom;
  double median_ms, p90_ms, max_ms;
  int frames;
};

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const Options options = ParseArgs(argc, argv);

  QTemporaryDir dir;
  const QString path = dir.filePath("large.pbtxt");
  const tensorflow::GraphDef graph = LargeGraph(options.nodes);
  if (!GraphFiles::write(path, graph).ok()) {
    std::fprintf(stderr, "graph_canvas: cannot write %s\n", qPrintable(path));
    return 1;
  }

  GraphEditor editor;
  editor.resize(1280, 520);  // the Graph tab's size in the studio's default window
  editor.show();
  QApplication::processEvents();
  GraphView* view = editor.view();
  GraphScene* scene = editor.scene();
  PaintCounter counter;
  view->viewport()->installEventFilter(&counter);
  QWidget* canvas = view->viewport();

  auto frame = [&](const std::function<void()>& act) {
    QElapsedTimer timer;
    timer.start();
    act();
    // The scene gathers its changes in one posted event and asks the canvas for a paint in
    // another: a few passes of the event loop run them all.
    for (int pass = 0; pass < 3; ++pass) QApplication::processEvents();
    return timer.nsecsElapsed() / 1e6;
  };
  auto wheel = [&](QPoint at, int delta) {
    QWheelEvent event(at, canvas->mapToGlobal(QPointF(at)), {}, QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(canvas, &event);
  };
  auto mouse = [&](QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons buttons) {
    QMouseEvent event(type, QPointF(at), canvas->mapToGlobal(QPointF(at)), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(canvas, &event);
  };
  // A node whose centre is in view, away from the middle (rounds pick different ones).
  QStringList names = editor.document()->nodeNames();
  auto visibleNode = [&](int seed) -> QString {
    const QRectF shown = view->mapToScene(canvas->rect().adjusted(80, 80, -80, -80)).boundingRect();
    for (int i = 0; i < names.size(); ++i) {
      const QString& name = names[(seed * 7919 + i) % names.size()];
      NodeItem* item = scene->item(name);
      if (item && shown.contains(item->sceneBoundingRect().center())) return name;
    }
    return {};
  };

  std::vector<Row> rows;
  auto measure = [&](const std::string& interaction, const std::string& zoom, const std::function<void()>& setup,
                     const std::function<double(int)>& one_frame) {
    std::vector<double> medians, all;
    for (int round = 0; round < options.rounds; ++round) {
      setup();
      QApplication::processEvents();
      std::vector<double> times;
      const int before = counter.paints;
      for (int f = 0; f < options.frames; ++f) times.push_back(one_frame(f + round * options.frames));
      if (counter.paints == before) {
        std::fprintf(stderr, "graph_canvas: %s at %s painted nothing\n", interaction.c_str(), zoom.c_str());
        std::exit(1);
      }
      medians.push_back(Median(times));
      all.insert(all.end(), times.begin(), times.end());
    }
    rows.push_back({interaction, zoom, Median(medians), Percentile(all, 0.9), *std::max_element(all.begin(), all.end()),
                    static_cast<int>(all.size())});
    const Row& row = rows.back();
    std::printf("%-8s %-6s %10.2f %10.2f %10.2f %7d\n", row.interaction.c_str(), row.zoom.c_str(), row.median_ms,
                row.p90_ms, row.max_ms, row.frames);
    std::fflush(stdout);
  };

  // The floor: the same canvas with nothing on it.
  editor.document()->setGraph({});
  QApplication::processEvents();
  std::printf("Graph tab frames, %d-node imported graph, canvas %dx%d\n", options.nodes, canvas->width(),
              canvas->height());
  std::printf("%-8s %-6s %10s %10s %10s %7s\n", "action", "zoom", "median ms", "p90 ms", "max ms", "frames");
  measure(
      "floor", "empty", [] {}, [&](int) { return frame([&] { canvas->update(); }); });

  QElapsedTimer import_timer;
  import_timer.start();
  QString error;
  if (!editor.importGraph(path, &error)) {
    std::fprintf(stderr, "graph_canvas: import failed: %s\n", qPrintable(error));
    return 1;
  }
  QApplication::processEvents();
  const double import_ms = import_timer.nsecsElapsed() / 1e6;
  names = editor.document()->nodeNames();
  std::printf("%-8s %-6s %10.2f %10s %10s %7d\n", "import", "fit", import_ms, "-", "-", 1);

  const QPoint middle = canvas->rect().center();
  for (const std::string zoom : {"fit", "100%"}) {
    auto at_zoom = [&, zoom] {
      editor.fitGraph();
      if (zoom == "100%") view->setZoom(1.0);
      scene->clearSelection();
    };
    measure("pan", zoom, at_zoom, [&](int f) {
      const int dx = (f / 4) % 2 ? -40 : 40;  // back and forth
      return frame([&] {
        mouse(QEvent::MouseButtonPress, middle, Qt::MiddleButton, Qt::MiddleButton);
        mouse(QEvent::MouseMove, middle + QPoint(dx, dx / 2), Qt::NoButton, Qt::MiddleButton);
        mouse(QEvent::MouseButtonRelease, middle + QPoint(dx, dx / 2), Qt::MiddleButton, Qt::NoButton);
      });
    });
    measure("zoom", zoom, at_zoom, [&](int f) { return frame([&] { wheel(middle, f % 2 ? -120 : 120); }); });
    measure("select", zoom, at_zoom, [&](int f) {
      const QString name = visibleNode(f);
      const QPoint at = view->mapFromScene(scene->item(name)->mapToScene(QPointF(30, 12)));
      return frame([&] {
        mouse(QEvent::MouseButtonPress, at, Qt::LeftButton, Qt::LeftButton);
        mouse(QEvent::MouseButtonRelease, at, Qt::LeftButton, Qt::NoButton);
      });
    });
    QPoint grip;
    measure(
        "drag", zoom,
        [&] {
          at_zoom();
          const QString name = visibleNode(3);
          grip = view->mapFromScene(scene->item(name)->mapToScene(QPointF(30, 12)));
          mouse(QEvent::MouseButtonPress, grip, Qt::LeftButton, Qt::LeftButton);
        },
        [&](int f) {
          grip += QPoint((f / 5) % 2 ? -12 : 12, 0);
          return frame([&] { mouse(QEvent::MouseMove, grip, Qt::NoButton, Qt::LeftButton); });
        });
    mouse(QEvent::MouseButtonRelease, grip, Qt::LeftButton, Qt::NoButton);
  }

  std::printf("{\"benchmark\":\"graph_canvas\",\"nodes\":%d,\"import_ms\":%.2f", options.nodes, import_ms);
  for (const Row& row : rows)
    std::printf(",\"%s_%s_ms\":%.3f", row.interaction.c_str(), row.zoom == "100%" ? "100" : row.zoom.c_str(),
                row.median_ms);
  std::printf("}\n");
  return 0;
}
