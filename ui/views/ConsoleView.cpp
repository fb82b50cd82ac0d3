#include "views/ConsoleView.h"

#include "translations/Retranslate.h"

#include "views/ConsolePane.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QTabBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace clab::ui {
namespace {

const QColor kFailedTab(200, 30, 30);

}  // namespace

ConsoleView::ConsoleView(QWidget* parent) : QWidget(parent) {
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("console-tabs");
  tabs_->setDocumentMode(true);
  all_ = new ConsolePane(true, tabs_);
  tabs_->addTab(all_, QString());
  new Retranslate(this, [this] { tabs_->setTabText(tabs_->indexOf(all_), tr("All")); });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);
}

QString ConsoleView::shortName(const QString& task) {
  static const QRegularExpression pattern("^/job:([^/]+)/replica:\\d+/task:(\\d+)$");
  const QRegularExpressionMatch match = pattern.match(task);
  return match.hasMatch() ? match.captured(1) + ":" + match.captured(2) : task;
}

ConsolePane* ConsoleView::paneFor(const QString& task) {
  if (ConsolePane* pane = panes_.value(task)) return pane;
  auto* pane = new ConsolePane(false, tabs_);
  panes_.insert(task, pane);
  // Tasks in name order after "All": ps:0, ps:1, worker:0, ... (indices compared as numbers).
  QStringList names = panes_.keys();
  std::sort(names.begin(), names.end(), [](const QString& a, const QString& b) {
    const QString job_a = a.section("/task:", 0, 0), job_b = b.section("/task:", 0, 0);
    if (job_a != job_b) return job_a < job_b;
    return a.section("/task:", 1).toInt() < b.section("/task:", 1).toInt();
  });
  tabs_->insertTab(1 + static_cast<int>(names.indexOf(task)), pane, shortName(task));
  tabs_->setTabToolTip(tabs_->indexOf(pane), task);
  return pane;
}

void ConsoleView::append(const QList<ConsoleLine>& lines) {
  all_->append(lines);
  // One batch per task, in the order the lines came.
  QHash<QString, QList<ConsoleLine>> by_task;
  QStringList order;
  for (const ConsoleLine& line : lines) {
    auto it = by_task.find(line.task);
    if (it == by_task.end()) {
      order << line.task;
      it = by_task.insert(line.task, {});
    }
    it->append(line);
  }
  for (const QString& task : order) {
    if (task.isEmpty()) continue;  // a line of no task (a launch's notes): "All" alone shows it
    const QList<ConsoleLine>& batch = by_task[task];
    ConsolePane* pane = paneFor(task);
    pane->append(batch);
    const bool failed = std::any_of(batch.begin(), batch.end(), [](const ConsoleLine& l) { return l.level >= 40; });
    if (failed) tabs_->tabBar()->setTabTextColor(tabs_->indexOf(pane), kFailedTab);
  }
}

void ConsoleView::appendRaw(const QString& task, const QStringList& lines) {
  QList<ConsoleLine> converted;
  const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
  for (const QString& line : lines) converted.append({task, now, 20, "stdout", line});
  append(converted);
}

void ConsoleView::clear() {
  all_->clear();
  tabs_->setCurrentWidget(all_);
  for (ConsolePane* pane : std::as_const(panes_)) {
    tabs_->removeTab(tabs_->indexOf(pane));
    pane->deleteLater();
  }
  panes_.clear();
}

ConsolePane* ConsoleView::pane(const QString& task) const { return task.isEmpty() ? all_ : panes_.value(task); }

}  // namespace clab::ui
