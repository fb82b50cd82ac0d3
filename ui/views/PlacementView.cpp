#include "views/PlacementView.h"

#include "translations/Retranslate.h"

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
  filter_->setClearButtonEnabled(true);
  counts_ = new QLabel(this);
  counts_->setWordWrap(true);
  model_ = new QStandardItemModel(0, 4, this);
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
  new Retranslate(this, [this] {
    filter_->setPlaceholderText(tr("Filter by node, op or device"));
    model_->setHorizontalHeaderLabels({tr("Node"), tr("Op"), tr("Device"), tr("Placed by")});
    showCounts();
  });
}

void PlacementView::setRows(const QList<PlacementRow>& rows) {
  model_->removeRows(0, model_->rowCount());
  QMap<QString, int> per_device;
  for (const PlacementRow& row : rows) {
    model_->appendRow({new QStandardItem(row.node), new QStandardItem(row.op), new QStandardItem(row.device),
                       new QStandardItem(row.task)});
    ++per_device[row.device];
  }
  per_device_ = per_device;
  showCounts();
  table_->resizeColumnsToContents();
}

void PlacementView::showCounts() {
  QStringList counts;
  for (auto it = per_device_.begin(); it != per_device_.end(); ++it)
    counts << tr("%1: %2 ops").arg(it.key()).arg(it.value());
  counts_->setText(counts.isEmpty() ? tr("No placement yet: it appears when a session places its graph.")
                                    : counts.join("   "));
}

int PlacementView::rowCount() const { return model_->rowCount(); }

QString PlacementView::deviceOf(const QString& node) const {
  for (int row = 0; row < model_->rowCount(); ++row)
    if (model_->item(row, 0)->text() == node) return model_->item(row, 2)->text();
  return {};
}

}  // namespace clab::ui
