// ClusterLab Studio. Opens the seed example (or the project given), ready to run.
//
//   clusterlab [PROJECT.clab] [--run | --run-on-hosts | --attach] [--teach STEPS [--timeline]] [--lesson ID]
//              [--language zh_CN] [--maximise-graph] [--screenshot FILE --after SECONDS [--tab NAME]]
//
// --run starts the cluster at once (--run-on-hosts: on its hosts, as the project's launch
// settings say; --attach: watch the tasks at their addresses); --teach opens the Graph tab in teaching mode, walks
// through one step of the project's graph and goes STEPS steps into it (for a class that
// starts at a given phase; --timeline then opens its timeline); --lesson opens the Lessons panel at a lesson (seed,
// chief, ps-failure, sync); --maximise-graph opens the Graph tab maximised (View > Maximise graph, F11); --screenshot
// grabs the window after SECONDS and quits (how the pictures in docs/ are made, under xvfb-run).
#include "teach/LessonPanel.h"
#include "teach/TeachingPanel.h"
#include "teach/TimelineView.h"
#include "translations/StudioLanguage.h"
#include "window/GraphEditor.h"
#include "window/HostRunController.h"
#include "window/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
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
  QCommandLineOption run_on_hosts("run-on-hosts",
                                  "start the cluster at once on its hosts (ssh or SLURM, as the project says)");
  QCommandLineOption attach("attach", "watch the project's tasks at their addresses without starting them");
  QCommandLineOption timeline("timeline",
                              "with --teach: open the timeline of the traced steps (the screenshot shows it)");
  QCommandLineOption screenshot("screenshot", "save a picture of the window to FILE and quit", "FILE");
  QCommandLineOption after("after", "seconds to wait before the screenshot", "SECONDS", "3");
  QCommandLineOption tab("tab", "the tab to show: Dashboard, Console, Placement, Checkpoints or Graph", "NAME",
                         "Dashboard");
  QCommandLineOption teach("teach", "open the teaching mode on the project's graph and go STEPS steps into one step",
                           "STEPS");
  QCommandLineOption lesson("lesson", "open the Lessons panel at a lesson: seed, chief, ps-failure or sync", "ID");
  QCommandLineOption language("language", "the studio's language: en or zh_CN", "CODE", "en");
  QCommandLineOption maximise_graph("maximise-graph", "open the Graph tab maximised (View > Maximise graph)");
  parser.addOptions(
      {run, run_on_hosts, attach, timeline, teach, lesson, language, maximise_graph, screenshot, after, tab});
  parser.process(app);
  if (!clab::ui::StudioLanguage::set(parser.value(language))) {
    std::fprintf(stderr, "clusterlab: --language %s: want en or zh_CN\n", qPrintable(parser.value(language)));
    return 2;
  }
  bool steps_ok = true;
  const int teach_steps = parser.isSet(teach) ? parser.value(teach).toInt(&steps_ok) : 0;
  if (!steps_ok || teach_steps < 0) {
    std::fprintf(stderr, "clusterlab: --teach %s: want a number of steps, 0 or more\n",
                 qPrintable(parser.value(teach)));
    return 2;
  }

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
  if (parser.isSet(attach)) QTimer::singleShot(0, &window, [&window] { window.attach(); });
  if (parser.isSet(run_on_hosts)) {
    QTimer::singleShot(0, &window, [&window] {
      QString error;
      if (!window.hostRun()->startOnHosts(&error)) std::fprintf(stderr, "clusterlab: %s\n", qPrintable(error));
    });
  }
  if (parser.isSet(lesson)) {
    int index = -1;
    const auto& lessons = window.lessons()->lessons();
    for (int i = 0; i < lessons.size(); ++i)
      if (lessons[i].id == parser.value(lesson)) index = i;
    if (index < 0) {
      std::fprintf(stderr, "clusterlab: --lesson %s: want seed, chief, ps-failure or sync\n",
                   qPrintable(parser.value(lesson)));
      return 2;
    }
    window.lessons()->setLesson(index);
    window.lessonsDock()->show();
    QTimer::singleShot(0, &window, [&window] { window.lessonsDock()->raise(); });
  }
  if (parser.isSet(teach)) {
    for (int i = 0; i < window.tabs()->count(); ++i)
      if (window.tabs()->widget(i) == window.graphEditor()) window.tabs()->setCurrentIndex(i);
    clab::ui::GraphEditor* editor = window.graphEditor();
    editor->setTeaching(true);
    clab::ui::TeachingPanel* panel = editor->teaching();
    const bool open_timeline = parser.isSet(timeline);
    QObject::connect(panel, &clab::ui::TeachingPanel::ready, panel, [panel, teach_steps, open_timeline] {
      for (int i = 0; i < teach_steps; ++i) panel->step();
      if (open_timeline) panel->showTimeline();
    });
    QObject::connect(panel, &clab::ui::TeachingPanel::failed, panel,
                     [](const QString& message) { std::fprintf(stderr, "clusterlab: %s\n", qPrintable(message)); });
    QTimer::singleShot(0, panel, [panel] { panel->prepare(); });
  }
  auto* maximise = window.findChild<QAction*>("maximise-graph");
  const bool maximised = parser.isSet(maximise_graph) && maximise != nullptr;
  if (maximised) QTimer::singleShot(0, maximise, [maximise] { maximise->setChecked(true); });
  if (parser.isSet(screenshot)) {
    const QString file = parser.value(screenshot);
    const QString tab_name = maximised ? QString("Graph") : parser.value(tab);
    QTimer::singleShot(static_cast<int>(parser.value(after).toDouble() * 1000), &window, [&window, file, tab_name] {
      for (int i = 0; i < window.tabs()->count(); ++i)
        if (window.tabs()->widget(i)->property("page").toString().compare(tab_name, Qt::CaseInsensitive) == 0)
          window.tabs()->setCurrentIndex(i);
      QApplication::processEvents();
      // An open timeline is what the picture is of.
      auto* timeline = window.findChild<clab::ui::TimelineView*>();
      const bool saved = (timeline && timeline->isVisible() ? timeline->grab() : window.grab()).save(file);
      if (!saved) std::fprintf(stderr, "clusterlab: cannot write %s\n", qPrintable(file));
      window.close();
      QApplication::exit(saved ? 0 : 1);
    });
  }
  return QApplication::exec();
}
