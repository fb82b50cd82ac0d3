// The checkpoints of a checkpoint directory, newest first: step, time written, size, state
// ("ok, 3 tensors" or what is damaged) and prefix. Whether a checkpoint is whole and whether
// the next run restores from it are data (GoodRole, NextRole); a damaged one is drawn red,
// the next run's in bold. Headers follow the studio's language (retranslate()).
#pragma once

#include <QAbstractTableModel>
#include <QDateTime>

namespace clab::ui {

class CheckpointTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kStep, kWritten, kSize, kState, kPrefix, kColumns };
  enum Role {
    StepRole = Qt::UserRole + 1,  // the checkpoint's step as a number
    PrefixRole,                   // its prefix, "/runs/a/model.ckpt-200"
    GoodRole,                     // true when every tensor reads back and checks
    NextRole,                     // true for the checkpoint the next run restores from
  };

  explicit CheckpointTableModel(QObject* parent = nullptr);

  // Reads `dir`'s state file and checks each listed checkpoint; false (and no rows) when
  // `dir` is empty or has no state file yet.
  bool load(const QString& dir);
  void clear();
  QString prefix(int row) const;
  void retranslate();

  // The step in a prefix's name ("model.ckpt-200" -> 200).
  static qint64 stepOf(const QString& prefix);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString prefix;
    QDateTime written;
    qint64 bytes = 0;
    QString condition;
    bool good = false;
    bool next = false;
  };
  QList<Row> rows_;
};

}  // namespace clab::ui
