// The studio at QT_SCALE_FACTOR=2 on a 1920x1080 screen (offscreen, with window frames): the
// main window and its docks start inside the screen's available area.
#include "ClabProcess.h"

#include "window/MainWindow.h"

#include <QApplication>
#include <QDockWidget>
#include <QScreen>
#include <QTemporaryDir>
#include <QtTest>

using namespace clab::ui;

class StudioHiDpiTest : public QObject {
  Q_OBJECT

 private slots:
  void windowFitsTheScreen() {
    QScreen* screen = QGuiApplication::primaryScreen();
    QCOMPARE(screen->geometry().size(), QSize(960, 540));  // 1920x1080 at scale 2
    MainWindow window(ClabProcess::programPath("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect available = window.screen()->availableGeometry();
    QVERIFY2(available.contains(window.frameGeometry()), qPrintable(QString("frame %1,%2 %3x%4 outside %5x%6")
                                                                        .arg(window.frameGeometry().x())
                                                                        .arg(window.frameGeometry().y())
                                                                        .arg(window.frameGeometry().width())
                                                                        .arg(window.frameGeometry().height())
                                                                        .arg(available.width())
                                                                        .arg(available.height())));
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      if (!dock->isVisible()) continue;
      const QRect on_screen(dock->mapToGlobal(QPoint(0, 0)), dock->size());
      QVERIFY2(available.contains(on_screen), qPrintable(dock->windowTitle()));
    }
  }
};

int main(int argc, char** argv) {
  // A 1920x1080 screen with frames round windows, at scale 2.
  QTemporaryDir dir;
  const QString config = dir.filePath("screen.json");
  QFile file(config);
  if (!file.open(QIODevice::WriteOnly)) return 1;
  file.write(R"({"windowFrameMargins": true,
                 "screens": [{"name": "hidpi", "x": 0, "y": 0, "width": 1920, "height": 1080,
                              "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
  file.close();
  qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toUtf8());
  qputenv("QT_SCALE_FACTOR", "2");
  QApplication app(argc, argv);
  StudioHiDpiTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_studio_hidpi.moc"
