#include "views/CheckpointsView.h"

#include "translations/Retranslate.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"
#include "run/CheckpointChoice.h"

#include <QColor>
#include <QDateTime>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace clab::ui {
namespace {

enum Column { kStep, kWritten, kSize, kState, kPrefix };

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

qint64 StepOf(const QString& prefix) { return prefix.section('-', -1).toLongLong(); }

QTableWidget* Table(int columns, QWidget* parent) {
  auto* table = new QTableWidget(0, columns, parent);
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
  next_ = new QLabel(this);
  next_->setWordWrap(true);
  QFont bold = next_->font();
  bold.setBold(true);
  next_->setFont(bold);
  restore_ = new QPushButton(this);
  auto* refresh = new QPushButton(this);
  checkpoints_ = Table(5, this);
  checkpoints_->setContextMenuPolicy(Qt::CustomContextMenu);
  tensors_ = Table(4, this);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(checkpoints_);
  splitter->addWidget(tensors_);
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(restore_);
  top->addWidget(refresh);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(next_);
  layout->addWidget(splitter, 1);
  connect(refresh, &QPushButton::clicked, this, &CheckpointsView::refresh);
  connect(restore_, &QPushButton::clicked, this, &CheckpointsView::chooseSelected);
  connect(checkpoints_, &QTableWidget::itemSelectionChanged, this, [this] {
    const int row = selectedRow();
    if (row >= 0) showTensors(checkpoints_->item(row, kPrefix)->text());
    updateButton();
  });
  connect(checkpoints_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    const int row = checkpoints_->rowAt(pos.y());
    if (row < 0) return;
    checkpoints_->selectRow(row);
    QMenu menu;
    QAction* action = menu.addAction(tr("Restore on next start"), this, &CheckpointsView::chooseSelected);
    action->setEnabled(restore_->isEnabled());
    menu.exec(checkpoints_->viewport()->mapToGlobal(pos));
  });
  new Retranslate(this, [this, refresh] {
    restore_->setText(tr("Restore on next start"));
    refresh->setText(tr("Refresh"));
    checkpoints_->setHorizontalHeaderLabels({tr("Step"), tr("Written"), tr("Size"), tr("State"), tr("Prefix")});
    tensors_->setHorizontalHeaderLabels({tr("Tensor"), tr("Dtype"), tr("Shape"), tr("Values")});
    CheckpointsView::refresh();
  });
}

void CheckpointsView::setDirectory(const QString& dir) {
  dir_ = dir;
  refresh();
}

void CheckpointsView::refresh() {
  checkpoints_->setRowCount(0);
  tensors_->setRowCount(0);
  next_->clear();
  updateButton();
  if (dir_.isEmpty()) {
    header_->setText(tr("No checkpoint directory: set one in the run settings to have the chief save checkpoints."));
    return;
  }
  auto state = ReadCheckpointState(dir_.toStdString());
  if (!state.ok()) {
    header_->setText(tr("%1: no checkpoints yet").arg(dir_));
    return;
  }
  QStringList prefixes;
  for (const std::string& path : state->all_model_checkpoint_paths()) prefixes << QString::fromStdString(path);
  std::stable_sort(prefixes.begin(), prefixes.end(),
                   [](const QString& a, const QString& b) { return StepOf(a) > StepOf(b); });
  const QString next = QString::fromStdString(state->model_checkpoint_path());
  for (const QString& prefix : prefixes) {
    const QFileInfo index(prefix + ".index");
    const QFileInfo data(QString::fromStdString(BundleDataFile(prefix.toStdString())));
    QString condition;
    const bool good = CheckCheckpoint(prefix, &condition);
    const int row = checkpoints_->rowCount();
    checkpoints_->insertRow(row);
    checkpoints_->setItem(row, kStep, new QTableWidgetItem(QString::number(StepOf(prefix))));
    checkpoints_->setItem(row, kWritten, new QTableWidgetItem(index.lastModified().toString("yyyy-MM-dd HH:mm:ss")));
    checkpoints_->setItem(row, kSize, new QTableWidgetItem(Size(index.size() + data.size())));
    checkpoints_->setItem(row, kState, new QTableWidgetItem(condition));
    checkpoints_->setItem(row, kPrefix, new QTableWidgetItem(prefix));
    if (!good) {
      // A damaged checkpoint stands out: the next run skips it for an older one.
      for (int column = kStep; column <= kPrefix; ++column) {
        checkpoints_->item(row, column)->setForeground(QColor(200, 30, 30));
        checkpoints_->item(row, column)->setToolTip(condition);
      }
    }
    if (prefix == next) {
      for (int column = kStep; column <= kPrefix; ++column) {
        QFont font = checkpoints_->item(row, column)->font();
        font.setBold(true);
        checkpoints_->item(row, column)->setFont(font);
        checkpoints_->item(row, column)->setToolTip(tr("The next run restores from this checkpoint"));
      }
    }
  }
  header_->setText(tr("%1: %2 checkpoints (newest first)").arg(dir_).arg(checkpoints_->rowCount()));
  next_->setText(nextRestoreText());
  checkpoints_->resizeColumnsToContents();
}

int CheckpointsView::checkpointCount() const { return checkpoints_->rowCount(); }

void CheckpointsView::select(int row) { checkpoints_->selectRow(row); }

int CheckpointsView::tensorCount() const { return tensors_->rowCount(); }

QString CheckpointsView::tensorText(int row, int column) const {
  const QTableWidgetItem* item = tensors_->item(row, column);
  return item ? item->text() : QString();
}

QString CheckpointsView::checkpointText(int row, int column) const {
  const QTableWidgetItem* item = checkpoints_->item(row, column);
  return item ? item->text() : QString();
}

void CheckpointsView::setRunActive(bool active) {
  run_active_ = active;
  updateButton();
}

bool CheckpointsView::restoreOnNextStart(int row, QString* error) {
  if (run_active_) {
    *error = tr("Stop the run first: its chief rewrites the checkpoint state each time it saves");
    return false;
  }
  if (row < 0 || row >= checkpoints_->rowCount()) {
    *error = tr("No checkpoint is selected");
    return false;
  }
  const bool done = RestoreOnNextStart(dir_, checkpoints_->item(row, kPrefix)->text(), error);
  refresh();
  return done;
}

QString CheckpointsView::nextRestoreText() const {
  const QString next = NextRestoreCheckpoint(dir_);
  if (next.isEmpty()) return dir_.isEmpty() ? QString() : tr("The next run starts from the initializers");
  QString condition;
  if (CheckCheckpoint(next, &condition))
    return tr("Next run restores from %1 (step %2)").arg(QFileInfo(next).fileName()).arg(StepOf(next));
  // As the chief does: the newest listed checkpoint that reads back is restored instead.
  QString fallback;
  if (auto state = ReadCheckpointState(dir_.toStdString()); state.ok()) {
    for (const std::string& path : state->all_model_checkpoint_paths()) {
      const QString prefix = QString::fromStdString(path);
      QString unused;
      if (prefix != next && StepOf(prefix) < StepOf(next) && CheckCheckpoint(prefix, &unused) &&
          (fallback.isEmpty() || StepOf(prefix) > StepOf(fallback)))
        fallback = prefix;
    }
  }
  if (fallback.isEmpty())
    return tr("%1 is DAMAGED (%2): the next run starts from the initializers")
        .arg(QFileInfo(next).fileName(), condition);
  return tr("%1 is DAMAGED (%2): the next run restores %3 (step %4) instead")
      .arg(QFileInfo(next).fileName(), condition, QFileInfo(fallback).fileName())
      .arg(StepOf(fallback));
}

int CheckpointsView::selectedRow() const {
  const auto rows = checkpoints_->selectionModel()->selectedRows();
  return rows.isEmpty() ? -1 : rows.first().row();
}

void CheckpointsView::chooseSelected() {
  QString error;
  if (!restoreOnNextStart(selectedRow(), &error))
    QMessageBox::warning(this, tr("Cannot restore from this checkpoint"), error);
}

void CheckpointsView::updateButton() {
  restore_->setEnabled(!run_active_ && selectedRow() >= 0);
  restore_->setToolTip(run_active_
                           ? tr("Stop the run first: its chief rewrites the checkpoint state each time it saves")
                           : tr("Make the next run's chief restore from the selected checkpoint"));
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
    tensors_->setItem(row, 3,
                      new QTableWidgetItem(tensor.ok()
                                               ? OneLine(tensor->DebugString(8))
                                               : QString::fromStdString(std::string(tensor.status().message()))));
  }
  tensors_->resizeColumnsToContents();
}

}  // namespace clab::ui
