#include "models/CheckpointTableModel.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"
#include "run/CheckpointChoice.h"

#include <QColor>
#include <QCoreApplication>
#include <QFileInfo>
#include <QFont>

#include <algorithm>

namespace clab::ui {
namespace {

QString Size(qint64 bytes) {
  if (bytes < 10 * 1024) return QStringLiteral("%1 B").arg(bytes);
  if (bytes < 10 * 1024 * 1024) return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
  return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 1);
}

}  // namespace

CheckpointTableModel::CheckpointTableModel(QObject* parent) : QAbstractTableModel(parent) {}

qint64 CheckpointTableModel::stepOf(const QString& prefix) { return prefix.section('-', -1).toLongLong(); }

void CheckpointTableModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

bool CheckpointTableModel::load(const QString& dir) {
  beginResetModel();
  rows_.clear();
  if (dir.isEmpty()) {
    endResetModel();
    return false;
  }
  auto state = ReadCheckpointState(dir.toStdString());
  if (!state.ok()) {
    endResetModel();
    return false;
  }
  QStringList prefixes;
  for (const std::string& path : state->all_model_checkpoint_paths()) prefixes << QString::fromStdString(path);
  std::stable_sort(prefixes.begin(), prefixes.end(),
                   [](const QString& a, const QString& b) { return stepOf(a) > stepOf(b); });
  const QString next = QString::fromStdString(state->model_checkpoint_path());
  for (const QString& prefix : prefixes) {
    const QFileInfo index(prefix + ".index");
    const QFileInfo data(QString::fromStdString(BundleDataFile(prefix.toStdString())));
    Row row;
    row.prefix = prefix;
    row.written = index.lastModified();
    row.bytes = index.size() + data.size();
    row.good = CheckCheckpoint(prefix, &row.condition);
    row.next = prefix == next;
    rows_.append(row);
  }
  endResetModel();
  return true;
}

QString CheckpointTableModel::prefix(int row) const {
  return row >= 0 && row < rows_.size() ? rows_[row].prefix : QString();
}

void CheckpointTableModel::retranslate() {
  emit headerDataChanged(Qt::Horizontal, 0, kColumns - 1);
  if (!rows_.isEmpty()) emit dataChanged(index(0, 0), index(rowCount() - 1, kColumns - 1), {Qt::ToolTipRole});
}

int CheckpointTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CheckpointTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant CheckpointTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const Row& row = rows_[index.row()];
  switch (role) {
    case StepRole: return stepOf(row.prefix);
    case PrefixRole: return row.prefix;
    case GoodRole: return row.good;
    case NextRole: return row.next;
    // A damaged checkpoint stands out: the next run skips it for an older one.
    case Qt::ForegroundRole: return row.good ? QVariant() : QVariant(QColor(200, 30, 30));
    case Qt::FontRole: {
      if (!row.next) return {};
      QFont font;
      font.setBold(true);
      return font;
    }
    case Qt::ToolTipRole:
      if (row.next)
        return QCoreApplication::translate("clab::ui::CheckpointsView", "The next run restores from this checkpoint");
      return row.good ? QVariant() : QVariant(row.condition);
    case Qt::DisplayRole:
      switch (index.column()) {
        case kStep: return QString::number(stepOf(row.prefix));
        case kWritten: return row.written.toString("yyyy-MM-dd HH:mm:ss");
        case kSize: return Size(row.bytes);
        case kState: return row.condition;
        case kPrefix: return row.prefix;
        default: return {};
      }
    default: return {};
  }
}

// The texts keep the checkpoints view's translation context, where the studio's
// translations have them.
QVariant CheckpointTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kStep: return QCoreApplication::translate("clab::ui::CheckpointsView", "Step");
    case kWritten: return QCoreApplication::translate("clab::ui::CheckpointsView", "Written");
    case kSize: return QCoreApplication::translate("clab::ui::CheckpointsView", "Size");
    case kState: return QCoreApplication::translate("clab::ui::CheckpointsView", "State");
    case kPrefix: return QCoreApplication::translate("clab::ui::CheckpointsView", "Prefix");
    default: return {};
  }
}

}  // namespace clab::ui
