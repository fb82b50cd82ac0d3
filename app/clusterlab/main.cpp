// ClusterLab Studio. Opens the seed example (or the project given), ready to run.
//
//   clusterlab [PROJECT.clab] [--run] [--screenshot FILE --after SECONDS [--tab NAME]]
//
// --run starts the cluster at once; --screenshot grabs the window after SECONDS and quits
// (how the pictures in docs/ are made, under xvfb-run).
#include "window/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("ClusterLab Studio");
  QApplication::setOrganizationName("ClusterLab");

  QCommandLineParser parser;
  parser.setApplicationDescription("Design a cluster of parameter servers and workers, run it, watch training live.");
  parser.addHelpOption();
  parser.addPositionalArgument("project", "a .clab project to open (default: the seed example)");
  QCommandLineOption run({"r", "run"}, "start the cluster at once");
  QCommandLineOption screenshot("screenshot", "save a picture of the window to FILE and quit", "FILE");
  QCommandLineOption after("after", "seconds to wait before the screenshot", "SECONDS", "3");
  QCommandLineOption tab("tab", "the tab to show: Dashboard, Console, Placement, Checkpoints or Graph", "NAME", "Dashboard");
  parser.addOptions({run, screenshot, after, tab});
  parser.process(app);

  // The tasks run as `clab` processes from the same directory as this program.
  clab::ui::MainWindow window(QDir(QApplication::applicationDirPath()).filePath("clab"));
  if (!parser.positionalArguments().isEmpty()) {
    QString error;
    if (!window.openProject(parser.positionalArguments().first(), &error)) {
      std::fprintf(stderr, "clusterlab: %s\n", qPrintable(error));
      return 1;
    }
  }
  window.show();
  if (parser.isSet(run)) QTimer::singleShot(0, &window, [&window] { window.runProject(); });
  if (parser.isSet(screenshot)) {
    const QString file = parser.value(screenshot);
    const QString tab_name = parser.value(tab);
    QTimer::singleShot(static_cast<int>(parser.value(after).toDouble() * 1000), &window, [&window, file, tab_name] {
      for (int i = 0; i < window.tabs()->count(); ++i)
        if (window.tabs()->tabText(i).compare(tab_name, Qt::CaseInsensitive) == 0) window.tabs()->setCurrentIndex(i);
      QApplication::processEvents();
      const bool saved = window.grab().save(file);
      if (!saved) std::fprintf(stderr, "clusterlab: cannot write %s\n", qPrintable(file));
      window.close();
      QApplication::exit(saved ? 0 : 1);
    });
  }
  return QApplication::exec();
}
