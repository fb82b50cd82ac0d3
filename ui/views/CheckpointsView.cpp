#include "views/CheckpointsView.h"

#include "models/CheckpointTableModel.h"
#include "models/TensorTableModel.h"
#include "translations/Retranslate.h"

#include "clab/train/CheckpointState.h"
#include "run/CheckpointChoice.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace clab::ui {
namespace {

qint64 StepOf(const QString& prefix) { return CheckpointTableModel::stepOf(prefix); }

QTableView* Table(QAbstractItemModel* model, QWidget* parent) {
  auto* table = new QTableView(parent);
  table->setModel(model);
  table->setWordWrap(false);
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
  next_->setObjectName("next-restore");
  checkpoints_ = new CheckpointTableModel(this);
  tensors_ = new TensorTableModel(this);
  checkpoint_table_ = Table(checkpoints_, this);
  checkpoint_table_->setObjectName("checkpoints");
  checkpoint_table_->setContextMenuPolicy(Qt::CustomContextMenu);
  tensor_table_ = Table(tensors_, this);
  tensor_table_->setObjectName("tensors");
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(checkpoint_table_);
  splitter->addWidget(tensor_table_);
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
  connect(checkpoint_table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const int row = selectedRow();
    if (row >= 0) {
      tensors_->load(checkpoints_->prefix(row));
      tensor_table_->resizeColumnsToContents();
    }
    updateButton();
  });
  connect(checkpoint_table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    const int row = checkpoint_table_->rowAt(pos.y());
    if (row < 0) return;
    checkpoint_table_->selectRow(row);
    QMenu menu;
    QAction* action = menu.addAction(tr("Restore on next start"), this, &CheckpointsView::chooseSelected);
    action->setEnabled(restore_->isEnabled());
    menu.exec(checkpoint_table_->viewport()->mapToGlobal(pos));
  });
  new Retranslate(this, [this, refresh] {
    restore_->setText(tr("Restore on next start"));
    refresh->setText(tr("Refresh"));
    checkpoints_->retranslate();
    tensors_->retranslate();
    CheckpointsView::refresh();
  });
}

void CheckpointsView::setDirectory(const QString& dir) {
  dir_ = dir;
  refresh();
}

void CheckpointsView::refresh() {
  tensors_->clear();
  next_->clear();
  const bool listed = checkpoints_->load(dir_);
  updateButton();
  if (dir_.isEmpty()) {
    header_->setText(tr("No checkpoint directory: set one in the run settings to have the chief save checkpoints."));
    return;
  }
  if (!listed) {
    header_->setText(tr("%1: no checkpoints yet").arg(dir_));
    return;
  }
  header_->setText(tr("%1: %2 checkpoints (newest first)").arg(dir_).arg(checkpoints_->rowCount()));
  next_->setText(nextRestoreText());
  checkpoint_table_->resizeColumnsToContents();
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
  const bool done = RestoreOnNextStart(dir_, checkpoints_->prefix(row), error);
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
  const auto rows = checkpoint_table_->selectionModel()->selectedRows();
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

}  // namespace clab::ui
