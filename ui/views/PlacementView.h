// The placement log as a table: node, op type, device, and the task whose session placed
// it (each worker's session places its own copy of the graph); a filter box, and per device
// the number of ops placed there ("/job:ps/replica:0/task:0/device:CPU:0: 6 ops").
#pragma once

#include "monitor/RunMonitor.h"

#include <QMap>
#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace clab::ui {

class PlacementView : public QWidget {
  Q_OBJECT

 public:
  explicit PlacementView(QWidget* parent = nullptr);

  void setRows(const QList<PlacementRow>& rows);
  int rowCount() const;
  // The device of `node`, "" if it is not in the table.
  QString deviceOf(const QString& node) const;

 private:
  void showCounts();  // ops per device under the table

  QMap<QString, int> per_device_;
  QLineEdit* filter_ = nullptr;
  QLabel* counts_ = nullptr;
  QStandardItemModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* table_ = nullptr;
};

}  // namespace clab::ui
