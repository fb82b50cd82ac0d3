#include "window/MainMenus.h"

#include "cluster/ClusterScene.h"
#include "project/ExampleProjects.h"
#include "project/Project.h"
#include "translations/Retranslate.h"
#include "translations/StudioLanguage.h"
#include "views/WelcomeView.h"
#include "window/GraphMaximiser.h"
#include "window/HostRunController.h"
#include "window/MainWindow.h"
#include "window/RecentProjects.h"
#include "window/SecurityActions.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>

namespace clab::ui {

void MainMenus::build(MainWindow& w) {
  QMenu* file = w.menuBar()->addMenu(QString());
  QAction* new_action = file->addAction(QString(), &w, [&w] {
    if (!w.maybeSave()) return;
    Project project = Project::seed();
    project.name = MainWindow::tr("Untitled");
    w.setProject(project);
  });
  new_action->setShortcut(QKeySequence::New);
  QAction* open_action = file->addAction(QString(), &w, &MainWindow::open);
  open_action->setShortcut(QKeySequence::Open);
  QAction* save_action = file->addAction(QString(), &w, &MainWindow::save);
  save_action->setShortcut(QKeySequence::Save);
  QAction* save_as = file->addAction(QString(), &w, &MainWindow::saveAs);
  save_as->setShortcut(QKeySequence::SaveAs);
  QMenu* examples = file->addMenu(QString());
  // Every shipped example project, by its (translated) name.
  QList<QPair<QAction*, QString>> example_actions;
  for (const ExampleProject& example : ExampleProjects()) {
    QAction* action = examples->addAction(example.name, &w, [&w, id = example.id] { w.openExampleProject(id); });
    action->setData(example.id);
    example_actions.append({action, example.name});
  }
  QMenu* recent = file->addMenu(QString());
  w.recent_ = new RecentProjects(recent, &w);
  QObject::connect(w.recent_, &RecentProjects::changed, w.welcome_, &WelcomeView::setRecent);
  QObject::connect(w.recent_, &RecentProjects::chosen, &w, &MainWindow::openRecent);
  file->addSeparator();
  QAction* quit = file->addAction(QString(), &w, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit_menu = w.menuBar()->addMenu(QString());
  // Undo and redo name the edit they undo, in the studio's language (QUndoStack's own
  // actions would say "Undo" in English).
  QAction* undo = edit_menu->addAction(QString(), w.undo_, &QUndoStack::undo);
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = edit_menu->addAction(QString(), w.undo_, &QUndoStack::redo);
  redo->setShortcut(QKeySequence::Redo);
  auto undo_texts = [&w, undo, redo] {
    undo->setEnabled(w.undo_->canUndo());
    redo->setEnabled(w.undo_->canRedo());
    undo->setText(w.undo_->undoText().isEmpty() ? MainWindow::tr("&Undo")
                                                : MainWindow::tr("&Undo %1").arg(w.undo_->undoText()));
    redo->setText(w.undo_->redoText().isEmpty() ? MainWindow::tr("&Redo")
                                                : MainWindow::tr("&Redo %1").arg(w.undo_->redoText()));
  };
  QObject::connect(w.undo_, &QUndoStack::indexChanged, &w, undo_texts);
  QObject::connect(w.undo_, &QUndoStack::cleanChanged, &w, undo_texts);
  edit_menu->addSeparator();
  QAction* add_ps = edit_menu->addAction(QString(), &w, [&w] { w.addTask("ps"); });
  QAction* add_worker = edit_menu->addAction(QString(), &w, [&w] { w.addTask("worker"); });
  QAction* remove = edit_menu->addAction(QString(), &w, [&w] { w.removeTask(w.scene_->selectedTask()); });
  remove->setShortcut(QKeySequence::Delete);
  edit_menu->addSeparator();
  QAction* import = edit_menu->addAction(QString(), &w, [&w] {
    bool ok = false;
    const QString text =
        QInputDialog::getMultiLineText(&w, MainWindow::tr("Import cluster"),
                                       MainWindow::tr("A ClusterSpec JSON, a TF_CONFIG, a Python dict {'ps': "
                                                      "[...], ...}, or ps=host:port;worker=host:port,..."),
                                       {}, &ok);
    QString error;
    if (ok && !w.importCluster(text, &error))
      QMessageBox::warning(&w, MainWindow::tr("Cannot import the cluster"), error);
  });
  QMenu* copy_as = edit_menu->addMenu(QString());
  for (const QString& format : {QString("ClusterSpec JSON"), QString("Python dict"), QString("TF_CONFIG")}) {
    copy_as->addAction(format, &w, [&w, format] {
      QApplication::clipboard()->setText(w.exportCluster(format, w.scene_->selectedTask()));
      w.statusBar()->showMessage(MainWindow::tr("Copied the cluster as %1").arg(format), 3000);
    });
  }

  QMenu* run_menu = w.menuBar()->addMenu(QString());
  w.run_ = run_menu->addAction(QString(), &w, [&w] { w.runProject(); });
  w.run_->setShortcut(Qt::Key_F5);
  w.stop_ = run_menu->addAction(QString(), &w, &MainWindow::stopRun);
  w.stop_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  w.attach_ = run_menu->addAction(QString(), &w, [&w] { w.isAttached() ? w.detach() : w.attach(); });
  run_menu->addSeparator();
  w.host_run_ = new HostRunController(w, run_menu, w.clab_program_);
  w.security_ = new SecurityActions(w, run_menu);
  run_menu->addSeparator();
  QAction* copy_commands = run_menu->addAction(QString(), &w, &MainWindow::copyStartCommands);

  QMenu* view_menu = w.menuBar()->addMenu(QString());
  QAction* fit = view_menu->addAction(QString(), &w, &MainWindow::fitCluster);
  fit->setShortcut(Qt::CTRL | Qt::Key_0);
  view_menu->addAction(w.graph_maximiser_->action());
  // The language: the studio's texts change at once (every view follows LanguageChange).
  QMenu* language = view_menu->addMenu(QString());
  language->setObjectName("language-menu");
  auto* languages = new QActionGroup(&w);
  for (const auto& [code, name] : {std::pair{"en", "English"}, std::pair{"zh_CN", "中文 (简体)"}}) {
    QAction* choice =
        language->addAction(QString::fromUtf8(name), &w, [code = QString(code)] { StudioLanguage::set(code); });
    choice->setData(QString(code));
    choice->setCheckable(true);
    languages->addAction(choice);
  }
  QObject::connect(language, &QMenu::aboutToShow, &w, [language] {
    for (QAction* choice : language->actions()) choice->setChecked(choice->data() == StudioLanguage::current());
  });
  QMenu* help = w.menuBar()->addMenu(QString());
  QAction* lessons = w.lessons_dock_->toggleViewAction();
  lessons->setShortcut(Qt::Key_F1);
  help->addAction(lessons);
  QAction* about_action = help->addAction(QString(), &w, &MainWindow::about);

  QToolBar* toolbar = w.addToolBar(QString());
  toolbar->setObjectName("main-toolbar");
  toolbar->addAction(open_action);
  toolbar->addAction(save_action);
  toolbar->addSeparator();
  toolbar->addAction(w.run_);
  toolbar->addAction(w.stop_);
  new Retranslate(&w, [=, &w] {
    file->setTitle(MainWindow::tr("&File"));
    new_action->setText(MainWindow::tr("&New"));
    open_action->setText(MainWindow::tr("&Open..."));
    save_action->setText(MainWindow::tr("&Save"));
    save_as->setText(MainWindow::tr("Save &As..."));
    examples->setTitle(MainWindow::tr("&Examples"));
    for (const auto& [action, name] : example_actions)
      action->setText(QCoreApplication::translate("clab::ui::ExampleProjects", name.toUtf8().constData()));
    recent->setTitle(MainWindow::tr("Open &Recent"));
    quit->setText(MainWindow::tr("&Quit"));
    edit_menu->setTitle(MainWindow::tr("&Edit"));
    undo_texts();
    add_ps->setText(MainWindow::tr("Add &ps task"));
    add_worker->setText(MainWindow::tr("Add &worker task"));
    remove->setText(MainWindow::tr("&Remove task"));
    import->setText(MainWindow::tr("&Import cluster..."));
    copy_as->setTitle(MainWindow::tr("&Copy cluster as"));
    run_menu->setTitle(MainWindow::tr("&Run"));
    w.run_->setText(MainWindow::tr("&Run locally"));
    w.run_->setToolTip(MainWindow::tr("Start every task as its own process on 127.0.0.1 (F5)"));
    w.stop_->setText(MainWindow::tr("&Stop"));
    w.stop_->setToolTip(MainWindow::tr("Stop the processes of this run (Shift+F5)"));
    w.attach_->setToolTip(
        MainWindow::tr("Watch tasks already running at the addresses of this project, without starting anything"));
    copy_commands->setText(MainWindow::tr("&Copy start commands"));
    copy_commands->setToolTip(MainWindow::tr("The clab command line of every task, to run the cluster by hand"));
    view_menu->setTitle(MainWindow::tr("&View"));
    fit->setText(MainWindow::tr("&Fit cluster"));
    language->setTitle(MainWindow::tr("&Language"));
    help->setTitle(MainWindow::tr("&Help"));
    lessons->setText(MainWindow::tr("&Lessons"));
    about_action->setText(MainWindow::tr("&About ClusterLab"));
    toolbar->setWindowTitle(MainWindow::tr("Main"));
    w.updateActions();
  });
}

}  // namespace clab::ui
