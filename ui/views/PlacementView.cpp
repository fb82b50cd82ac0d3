#include "views/PlacementView.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace clab::ui {

PlacementView::PlacementView(QWidget* parent) : QWidget(parent) {
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText("Filter by node, op or device");
  filter_->setClearButtonEnabled(true);
  counts_ = new QLabel("No placement yet: it appears when a session places its graph.", this);
  counts_->setWordWrap(true);
  model_ = new QStandardItemModel(0, 4, this);
  model_->setHorizontalHeaderLabels({"Node", "Op", "Device", "Placed by"});
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_ = new QTableView(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(0, Qt::AscendingOrder);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(filter_);
  layout->addWidget(table_, 1);
  layout->addWidget(counts_);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
}

void PlacementView::setRows(const QList<PlacementRow>& rows) {
  model_->removeRows(0, model_->rowCount());
  QMap<QString, int> per_device;
  for (const PlacementRow& row : rows) {
    model_->appendRow({new QStandardItem(row.node), new QStandardItem(row.op), new QStandardItem(row.device),
                       new QStandardItem(row.task)});
    ++per_device[row.device];
  }
  QStringList counts;
  for (auto it = per_device.begin(); it != per_device.end(); ++it)
    counts << QStringLiteral("%1: %2 ops").arg(it.key()).arg(it.value());
  counts_->setText(rows.isEmpty() ? "No placement yet." : counts.join("   "));
  table_->resizeColumnsToContents();
}

int PlacementView::rowCount() const { return model_->rowCount(); }

QString PlacementView::deviceOf(const QString& node) const {
  for (int row = 0; row < model_->rowCount(); ++row)
    if (model_->item(row, 0)->text() == node) return model_->item(row, 2)->text();
  return {};
}

}  // namespace clab::ui
