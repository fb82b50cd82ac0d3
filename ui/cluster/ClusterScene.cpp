#include "cluster/ClusterScene.h"

#include "cluster/TaskItem.h"

#include <QFont>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSimpleTextItem>
#include <QPen>

#include <cmath>

namespace clab::ui {
namespace {

constexpr qreal kColumnGap = 120;
constexpr qreal kRowGap = 24;
constexpr qreal kTop = 40;

}  // namespace

ClusterScene::ClusterScene(QObject* parent) : QGraphicsScene(parent) { setBackgroundBrush(QColor(250, 251, 253)); }

void ClusterScene::setProject(const Project& project) {
  clear();
  items_.clear();
  links_.clear();
  QStringList jobs = project.jobs();
  // ps first, workers next: the picture reads as "parameters on the left, compute on the right".
  std::stable_sort(jobs.begin(), jobs.end(), [](const QString& a, const QString& b) {
    auto rank = [](const QString& job) { return job == "ps" ? 0 : job == "worker" ? 1 : 2; };
    return rank(a) < rank(b);
  });
  const QStringList all_problems = project.validate();
  QHash<QString, QString> problems;  // task -> its problems
  for (const ProjectTask& task : project.tasks)
    for (const QString& problem : all_problems)
      if (problem.startsWith(task.name() + ": "))
        problems[task.name()] += (problems[task.name()].isEmpty() ? "" : "; ") + problem.mid(task.name().size() + 2);
  qreal x = 0;
  for (const QString& job : jobs) {
    auto* label = addSimpleText(job);
    QFont font = label->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.2);
    label->setFont(font);
    label->setBrush(QColor(60, 65, 80));
    label->setPos(x, 0);
    qreal y = kTop;
    for (const ProjectTask& task : project.tasksOf(job)) {
      auto* item = new TaskItem(task.name(), task.job, task.index, task.address());
      item->setPos(x, y);
      item->setProblem(problems.value(task.name()));
      addItem(item);
      items_.insert(task.name(), item);
      y += TaskItem::kHeight + kRowGap;
    }
    x += TaskItem::kWidth + kColumnGap;
  }
  // Workers pull parameters from every ps.
  QPen link(QColor(150, 160, 180), 1.4, Qt::DashLine);
  for (const ProjectTask& worker : project.tasksOf("worker")) {
    for (const ProjectTask& ps : project.tasksOf("ps")) {
      const QPointF from = items_[ps.name()]->pos() + QPointF(TaskItem::kWidth, TaskItem::kHeight / 2);
      const QPointF to = items_[worker.name()]->pos() + QPointF(0, TaskItem::kHeight / 2);
      auto* line = addLine(QLineF(from, to), link);
      line->setZValue(-1);
      auto* label = addSimpleText("");
      label->setBrush(QColor(70, 90, 140));
      label->setPos((from + to) / 2 + QPointF(-30, -18));
      links_.insert(linkKey(ps.name(), worker.name()), Link{line, label});
    }
  }
  setSceneRect(itemsBoundingRect().adjusted(-40, -30, 40, 30));
}

void ClusterScene::setTaskStatus(const QString& task, const QColor& light, const QString& text) {
  if (TaskItem* item = items_.value(task)) item->setStatus(light, text);
}

void ClusterScene::setLinkRate(const QString& a, const QString& b, double bytes_per_second) {
  auto it = links_.find(linkKey(a, b));
  if (it == links_.end()) return;
  QString text;
  if (bytes_per_second >= 1e6) text = QStringLiteral("%1 MB/s").arg(bytes_per_second / 1e6, 0, 'f', 1);
  else if (bytes_per_second >= 1e3) text = QStringLiteral("%1 kB/s").arg(bytes_per_second / 1e3, 0, 'f', 1);
  else if (bytes_per_second > 0) text = QStringLiteral("%1 B/s").arg(bytes_per_second, 0, 'f', 0);
  it->label->setText(text);
  QPen pen = it->line->pen();
  // Busier links are drawn thicker: 1.4 px idle, up to 6 px.
  pen.setWidthF(bytes_per_second > 0 ? std::min(6.0, 1.4 + std::log10(1.0 + bytes_per_second) / 1.5) : 1.4);
  pen.setStyle(bytes_per_second > 0 ? Qt::SolidLine : Qt::DashLine);
  pen.setColor(bytes_per_second > 0 ? QColor(60, 110, 200) : QColor(150, 160, 180));
  it->line->setPen(pen);
}

QString ClusterScene::linkLabel(const QString& a, const QString& b) const {
  auto it = links_.find(linkKey(a, b));
  return it == links_.end() ? QString() : it->label->text();
}

void ClusterScene::resetStatuses() {
  for (auto& link : links_) {
    link.label->setText("");
    link.line->setPen(QPen(QColor(150, 160, 180), 1.4, Qt::DashLine));
  }
  for (TaskItem* item : items_) item->setStatus(QColor(150, 150, 150), tr("not running"));
}

void ClusterScene::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
  for (QGraphicsItem* under : items(event->scenePos())) {
    if (auto* task = dynamic_cast<TaskItem*>(under)) {
      emit taskMenuRequested(task->task(), event->screenPos());
      event->accept();
      return;
    }
  }
  QGraphicsScene::contextMenuEvent(event);
}

QString ClusterScene::selectedTask() const {
  for (TaskItem* item : items_)
    if (item->isSelected()) return item->task();
  return {};
}

}  // namespace clab::ui
