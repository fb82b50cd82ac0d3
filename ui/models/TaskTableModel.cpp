#include "models/TaskTableModel.h"

#include <QCoreApplication>

namespace clab::ui {

// The texts keep the dashboard's translation context, where the studio's translations have them.

TaskTableModel::TaskTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TaskTableModel::setTasks(const QStringList& tasks) {
  beginResetModel();
  rows_.clear();
  for (const QString& task : tasks) rows_.append({task, NotRunningState(), TaskStatus{}});
  endResetModel();
}

int TaskTableModel::rowOf(const QString& task) const {
  for (qsizetype row = 0; row < rows_.size(); ++row)
    if (rows_[row].task == task) return static_cast<int>(row);
  return -1;
}

void TaskTableModel::updateTask(const QString& task, const TaskLiveState& state, const TaskStatus& status) {
  const int row = rowOf(task);
  if (row < 0) return;
  rows_[row].state = state;
  rows_[row].status = status;
  emit dataChanged(index(row, kState), index(row, kDetail));
}

void TaskTableModel::retranslate() {
  emit headerDataChanged(Qt::Horizontal, 0, kColumns - 1);
  if (!rows_.isEmpty()) emit dataChanged(index(0, kDetail), index(rowCount() - 1, kDetail));
}

int TaskTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int TaskTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QString TaskTableModel::detail(const Row& row) const {
  QString text = row.status.step_failed ? row.status.last_error : row.status.detail;
  // An ended task's last event no longer describes it.
  switch (row.state.condition) {
    case TaskCondition::kKilled:
    case TaskCondition::kCrashed:
    case TaskCondition::kFailed:
      text = QCoreApplication::translate("clab::ui::DashboardView", "its last output is in the Console");
      break;
    case TaskCondition::kStopped:
    case TaskCondition::kFinished: text.clear(); break;
    default: break;
  }
  if (!row.status.uninitialized.isEmpty())
    text += QCoreApplication::translate("clab::ui::DashboardView", " (waiting for: %1)")
                .arg(row.status.uninitialized.join(", "));
  return text;
}

QVariant TaskTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const Row& row = rows_[index.row()];
  switch (role) {
    case ConditionRole: return static_cast<int>(row.state.condition);
    case TaskRole: return row.task;
    case GlobalStepRole: return row.status.global_step;
    case RateRole: return row.status.steps_per_second;
    case Qt::ForegroundRole:
      if (index.column() == kState) return row.state.light.darker(130);
      return {};
    case Qt::ToolTipRole:
      if (index.column() == kDetail) return detail(row);
      if (index.column() == kTask) return row.task;
      return {};
    case Qt::DisplayRole:
      switch (index.column()) {
        case kTask: return row.task;
        case kState: return row.state.text;
        case kStep: return row.status.global_step >= 0 ? QString::number(row.status.global_step) : QString();
        case kRate:
          return row.status.steps_per_second > 0 ? QString::number(row.status.steps_per_second, 'f', 0) : QString();
        case kDetail: return detail(row);
        default: return {};
      }
    default: return {};
  }
}

QVariant TaskTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kTask: return QCoreApplication::translate("clab::ui::DashboardView", "Task");
    case kState: return QCoreApplication::translate("clab::ui::DashboardView", "State");
    case kStep: return QCoreApplication::translate("clab::ui::DashboardView", "Global step");
    case kRate: return QCoreApplication::translate("clab::ui::DashboardView", "Steps/s");
    case kDetail: return QCoreApplication::translate("clab::ui::DashboardView", "Detail");
    default: return {};
  }
}

}  // namespace clab::ui
