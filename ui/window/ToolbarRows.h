// Tool bars side by side while the width allows, one under the other when it does not, so
// that no button ends up behind a tool bar's overflow arrow (where a newcomer never finds it).
#pragma once

#include <QList>
#include <QWidget>

class QBoxLayout;
class QToolBar;

namespace clab::ui {

class ToolbarRows : public QWidget {
  Q_OBJECT

 public:
  ToolbarRows(const QList<QToolBar*>& bars, QWidget* parent = nullptr);

  // The width the tool bars need side by side.
  int oneRowWidth() const;
  bool oneRow() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void arrange();

  QList<QToolBar*> bars_;
  QBoxLayout* layout_ = nullptr;
};

}  // namespace clab::ui
