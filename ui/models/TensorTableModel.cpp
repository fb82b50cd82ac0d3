#include "models/TensorTableModel.h"

#include "clab/io/TensorBundle.h"

#include <QCoreApplication>

namespace clab::ui {
namespace {

QString OneLine(const std::string& text) {
  QString line = QString::fromStdString(text);
  line.replace('\n', ' ');
  return line.simplified();
}

}  // namespace

TensorTableModel::TensorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TensorTableModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

void TensorTableModel::load(const QString& prefix) {
  beginResetModel();
  rows_.clear();
  if (auto reader = TensorBundleReader::Open(prefix.toStdString()); reader.ok()) {
    for (const BundleEntryInfo& entry : reader->List()) {
      auto tensor = reader->Read(entry.name);
      rows_.append({QString::fromStdString(entry.name), QString::fromStdString(DataTypeName(entry.dtype)),
                    QString::fromStdString(entry.shape.DebugString()),
                    tensor.ok() ? OneLine(tensor->DebugString(8))
                                : QString::fromStdString(std::string(tensor.status().message()))});
    }
  }
  endResetModel();
}

void TensorTableModel::retranslate() { emit headerDataChanged(Qt::Horizontal, 0, kColumns - 1); }

int TensorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int TensorTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant TensorTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size() || index.column() >= kColumns) return {};
  if (role == Qt::DisplayRole) return rows_[index.row()][index.column()];
  if (role == Qt::ToolTipRole && index.column() == kValues) return rows_[index.row()][kValues];
  return {};
}

// The texts keep the checkpoints view's translation context, where the studio's
// translations have them.
QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case kName: return QCoreApplication::translate("clab::ui::CheckpointsView", "Tensor");
    case kDtype: return QCoreApplication::translate("clab::ui::CheckpointsView", "Dtype");
    case kShape: return QCoreApplication::translate("clab::ui::CheckpointsView", "Shape");
    case kValues: return QCoreApplication::translate("clab::ui::CheckpointsView", "Values");
    default: return {};
  }
}

}  // namespace clab::ui
