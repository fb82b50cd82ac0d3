// The tensors of one checkpoint: name, dtype, shape and its first values (or why a tensor
// does not read back). Headers follow the studio's language (retranslate()).
#pragma once

#include <QAbstractTableModel>

#include <array>

namespace clab::ui {

class TensorTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kName, kDtype, kShape, kValues, kColumns };

  explicit TensorTableModel(QObject* parent = nullptr);

  // Lists checkpoint `prefix`'s tensors; no rows when it cannot be opened.
  void load(const QString& prefix);
  void clear();
  void retranslate();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QList<std::array<QString, kColumns>> rows_;
};

}  // namespace clab::ui
