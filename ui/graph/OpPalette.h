// The ops the engine has, grouped as the OpRegistry groups them ("math", "array", "state",
// ...), with a filter field (matches the op's name or summary). Double-click an op, or drag
// it onto the canvas, to add a node.
#pragma once

#include <QWidget>

class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace clab::ui {

class OpPalette : public QWidget {
  Q_OBJECT

 public:
  explicit OpPalette(QWidget* parent = nullptr);

  QLineEdit* filterEdit() const { return filter_; }
  QTreeWidget* tree() const { return tree_; }
  // Shows the ops whose name or summary contains `text` (case-insensitive); returns how many.
  int setFilter(const QString& text);
  // The ops shown, in display order.
  QStringList visibleOps() const;

 signals:
  void opActivated(const QString& op);

 private:
  QLineEdit* filter_;
  QTreeWidget* tree_;
};

}  // namespace clab::ui
