#include "views/CheckpointsView.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace clab::ui {
namespace {

QString Size(qint64 bytes) {
  if (bytes < 10 * 1024) return QStringLiteral("%1 B").arg(bytes);
  if (bytes < 10 * 1024 * 1024) return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
  return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 1);
}

QString OneLine(const std::string& text) {
  QString line = QString::fromStdString(text);
  line.replace('\n', ' ');
  return line.simplified();
}

QTableWidget* Table(const QStringList& headers, QWidget* parent) {
  auto* table = new QTableWidget(0, static_cast<int>(headers.size()), parent);
  table->setHorizontalHeaderLabels(headers);
  table->horizontalHeader()->setStretchLastSection(true);
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  return table;
}

}  // namespace

CheckpointsView::CheckpointsView(QWidget* parent) : QWidget(parent) {
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  auto* refresh = new QPushButton("Refresh", this);
  checkpoints_ = Table({"Step", "Written", "Size", "State", "Prefix"}, this);
  tensors_ = Table({"Tensor", "Dtype", "Shape", "Values"}, this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(checkpoints_);
  splitter->addWidget(tensors_);
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(refresh);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(splitter, 1);
  connect(refresh, &QPushButton::clicked, this, &CheckpointsView::refresh);
  connect(checkpoints_, &QTableWidget::itemSelectionChanged, this, [this] {
    const auto rows = checkpoints_->selectionModel()->selectedRows();
    if (!rows.isEmpty()) showTensors(checkpoints_->item(rows.first().row(), 4)->text());
  });
  setDirectory({});
}

void CheckpointsView::setDirectory(const QString& dir) {
  dir_ = dir;
  refresh();
}

void CheckpointsView::refresh() {
  checkpoints_->setRowCount(0);
  tensors_->setRowCount(0);
  if (dir_.isEmpty()) {
    header_->setText("No checkpoint directory: set one in the run settings to have the chief save checkpoints.");
    return;
  }
  auto state = ReadCheckpointState(dir_.toStdString());
  if (!state.ok()) {
    header_->setText(QStringLiteral("%1: no checkpoints yet").arg(dir_));
    return;
  }
  const auto& paths = state->all_model_checkpoint_paths();
  for (int i = paths.size() - 1; i >= 0; --i) {
    const QString prefix = QString::fromStdString(paths[i]);
    const QFileInfo index(prefix + ".index");
    const QFileInfo data(QString::fromStdString(BundleDataFile(paths[i])));
    QString condition;
    auto reader = TensorBundleReader::Open(paths[i]);
    if (reader.ok()) {
      condition = QStringLiteral("ok, %1 tensors").arg(reader->List().size());
    } else {
      condition = QString::fromStdString(std::string(reader.status().message()));
    }
    const int row = checkpoints_->rowCount();
    checkpoints_->insertRow(row);
    checkpoints_->setItem(row, 0, new QTableWidgetItem(prefix.section('-', -1)));
    checkpoints_->setItem(row, 1, new QTableWidgetItem(index.lastModified().toString("yyyy-MM-dd HH:mm:ss")));
    checkpoints_->setItem(row, 2, new QTableWidgetItem(Size(index.size() + data.size())));
    checkpoints_->setItem(row, 3, new QTableWidgetItem(condition));
    checkpoints_->setItem(row, 4, new QTableWidgetItem(prefix));
  }
  header_->setText(QStringLiteral("%1: %2 checkpoints (newest first; a restarted chief restores the newest whole one)")
                       .arg(dir_)
                       .arg(checkpoints_->rowCount()));
  checkpoints_->resizeColumnsToContents();
}

int CheckpointsView::checkpointCount() const { return checkpoints_->rowCount(); }

void CheckpointsView::select(int row) { checkpoints_->selectRow(row); }

int CheckpointsView::tensorCount() const { return tensors_->rowCount(); }

QString CheckpointsView::tensorText(int row, int column) const {
  const QTableWidgetItem* item = tensors_->item(row, column);
  return item ? item->text() : QString();
}

void CheckpointsView::showTensors(const QString& prefix) {
  tensors_->setRowCount(0);
  auto reader = TensorBundleReader::Open(prefix.toStdString());
  if (!reader.ok()) return;
  for (const BundleEntryInfo& entry : reader->List()) {
    auto tensor = reader->Read(entry.name);
    const int row = tensors_->rowCount();
    tensors_->insertRow(row);
    tensors_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(entry.name)));
    tensors_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(DataTypeName(entry.dtype))));
    tensors_->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(entry.shape.DebugString())));
    tensors_->setItem(row, 3, new QTableWidgetItem(tensor.ok() ? OneLine(tensor->DebugString(8))
                                                               : QString::fromStdString(std::string(tensor.status().message()))));
  }
  tensors_->resizeColumnsToContents();
}

}  // namespace clab::ui
