// The studio's window at its default size on a 1600x1000 screen (offscreen), in English and
// in Chinese: the Graph tab's tool bars show every button (none behind an overflow arrow), the
// speed chart's legend says each mark's name whole, and a chart's value-axis title is read in
// full: rotated in English, upright in Chinese (where Qt Charts would elide it to "⋮").
// With CLAB_SCREENSHOT_DIR set, the Graph tab maximised with the digits MLP's name scopes
// collapsed is saved there as graph-scopes.png.
#include "translations/StudioLanguage.h"
#include "views/DashboardView.h"
#include "window/GraphEditor.h"
#include "window/MainWindow.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QGraphicsSimpleTextItem>
#include <QLabel>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

using namespace clab::ui;

namespace {

void Settle() {
  for (int i = 0; i < 5; ++i) {
    QCoreApplication::processEvents();
    QTest::qWait(20);
  }
}

// The value axis (at the chart's left) that is shown.
QAbstractAxis* ValueAxis(QChart* chart) {
  for (QAbstractAxis* axis : chart->axes(Qt::Vertical))
    if (axis->isVisible()) return axis;
  return nullptr;
}

const QGraphicsSimpleTextItem* UprightTitle(QChart* chart) {
  for (const QGraphicsItem* item : chart->childItems())
    if (item->data(0).toString() == "upright-axis-title") return static_cast<const QGraphicsSimpleTextItem*>(item);
  return nullptr;
}

}  // namespace

class StudioLayoutTest : public QObject {
  Q_OBJECT

 private slots:
  void init() { QVERIFY(StudioLanguage::set("en")); }
  void cleanup() { QVERIFY(StudioLanguage::set("en")); }

  void graphToolbarsFitTheDefaultWindow_data() {
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << "en";
    QTest::newRow("zh_CN") << "zh_CN";
  }
  void graphToolbarsFitTheDefaultWindow() {
    QFETCH(QString, language);
    MainWindow window(QStringLiteral("clab"));
    QVERIFY(StudioLanguage::set(language));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1280, 860));  // the default size, which this screen allows
    window.tabs()->setCurrentWidget(window.graphEditor());
    Settle();
    const QList<QToolBar*> bars = window.graphEditor()->findChildren<QToolBar*>();
    QCOMPARE(bars.size(), 2);
    for (QToolBar* bar : bars) {
      QVERIFY2(
          bar->sizeHint().width() <= bar->width(),
          qPrintable(
              QString("%1 needs %2 px, has %3").arg(bar->objectName()).arg(bar->sizeHint().width()).arg(bar->width())));
      // Every action is on a visible button, none behind the overflow arrow.
      for (QAction* action : bar->actions()) {
        QWidget* shown = bar->widgetForAction(action);
        QVERIFY2(shown && shown->isVisible(), qPrintable(bar->objectName() + ": " + action->text()));
      }
    }
    // The find field keeps room for a node's name.
    auto* find = window.graphEditor()->findChild<QWidget*>("find-node");
    QVERIFY2(find->width() >= 150, qPrintable(QString::number(find->width())));
    // Wide enough, the tool bars share one row.
    window.resize(1580, 900);
    Settle();
    for (QToolBar* bar : bars) QCOMPARE(bar->y(), bars.first()->y());
  }

  void collapsedScopesPicture() {
    const QString shots = qEnvironmentVariable("CLAB_SCREENSHOT_DIR");
    if (shots.isEmpty()) QSKIP("CLAB_SCREENSHOT_DIR is not set");
    MainWindow window(QStringLiteral("clab"));
    QString error;
    QVERIFY2(window.openProject(QStringLiteral(CLAB_SOURCE_DIR "/examples/projects/digits-mlp.clab"), &error),
             qPrintable(error));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.resize(1560, 960);
    window.findChild<QAction*>("maximise-graph")->setChecked(true);
    Settle();
    QAction* collapse = nullptr;
    for (QToolBar* bar : window.graphEditor()->findChildren<QToolBar*>())
      for (QAction* action : bar->actions())
        if (action->text() == "Collapse") collapse = action;
    QVERIFY(collapse);
    collapse->trigger();
    Settle();
    QVERIFY(window.graphEditor()->grab().save(QDir(shots).filePath("graph-scopes.png")));
  }

  void speedLegendIsWhole_data() { graphToolbarsFitTheDefaultWindow_data(); }
  void speedLegendIsWhole() {
    QFETCH(QString, language);
    MainWindow window(QStringLiteral("clab"));
    QVERIFY(StudioLanguage::set(language));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.dashboard());
    Settle();
    auto* legend = window.dashboard()->findChild<QLabel*>("speed-legend");
    QVERIFY(legend && legend->isVisible());
    QTextDocument document;
    document.setHtml(legend->text());
    const QString text = document.toPlainText();
    for (const char* name : {"fault injected", "step failed", "recovered"}) {
      const QString shown = QCoreApplication::translate("clab::ui::DashboardView", name);
      QVERIFY2(text.contains(shown), qPrintable(text));
    }
    QVERIFY(!text.contains(QChar(0x2026)) && !text.contains("..."));
    // Every line of it is on screen: the label is as tall as its wrapped text.
    QVERIFY2(legend->height() >= legend->heightForWidth(legend->width()),
             qPrintable(QString("%1 < %2").arg(legend->height()).arg(legend->heightForWidth(legend->width()))));
  }

  void valueAxisTitlesAreReadInFull() {
    MainWindow window(QStringLiteral("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.dashboard());
    // A run reports its loss and accuracy: their charts are shown.
    window.dashboard()->startRun();
    for (qint64 step : {10, 20, 30}) {
      window.dashboard()->addScalar("/job:worker/replica:0/task:0", step, "loss", 1.0 / static_cast<double>(step));
      window.dashboard()->addScalar("/job:worker/replica:0/task:0", step, "accuracy", 0.5);
    }
    Settle();
    const QList<QChartView*> views = window.dashboard()->findChildren<QChartView*>();
    QVERIFY(views.size() >= 3);  // the speed, the loss and the accuracy
    for (QChartView* view : views) QVERIFY(view->isVisible());
    // English: Qt Charts draws the title, rotated.
    for (QChartView* view : views) {
      QAbstractAxis* axis = ValueAxis(view->chart());
      QVERIFY(axis && axis->isTitleVisible() && !axis->titleText().isEmpty());
      QVERIFY(UprightTitle(view->chart()) && !UprightTitle(view->chart())->isVisible());
    }
    QVERIFY(StudioLanguage::set("zh_CN"));
    Settle();
    for (QChartView* view : views) {
      QAbstractAxis* axis = ValueAxis(view->chart());
      const QGraphicsSimpleTextItem* title = UprightTitle(view->chart());
      // Chinese: upright, one character a line, each of them; beside the plot, within its height.
      QVERIFY(!axis->isTitleVisible());
      QVERIFY2(title && title->isVisible(), qPrintable(axis->titleText()));
      QCOMPARE(title->text().remove('\n'), axis->titleText());
      QCOMPARE(title->text().count('\n'), axis->titleText().size() - 1);
      const QRectF box = title->mapRectToParent(title->boundingRect());
      const QRectF plot = view->chart()->plotArea();
      QVERIFY2(box.right() < plot.left() && box.height() <= plot.height(),
               qPrintable(QString("title %1 at %2,%3 %4x%5; plot at %6,%7 %8x%9")
                              .arg(axis->titleText())
                              .arg(box.x())
                              .arg(box.y())
                              .arg(box.width())
                              .arg(box.height())
                              .arg(plot.x())
                              .arg(plot.y())
                              .arg(plot.width())
                              .arg(plot.height())));
    }
  }
};

int main(int argc, char** argv) {
  // A 1600x1000 screen, as the screenshots in docs/ are taken on.
  QTemporaryDir dir;
  const QString config = dir.filePath("screen.json");
  QFile file(config);
  if (!file.open(QIODevice::WriteOnly)) return 1;
  file.write(R"({"screens": [{"name": "desk", "x": 0, "y": 0, "width": 1600, "height": 1000,
                              "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
  file.close();
  qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toUtf8());
  QApplication app(argc, argv);
  StudioLayoutTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_studio_layout.moc"
