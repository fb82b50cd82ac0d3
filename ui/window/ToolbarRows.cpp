#include "window/ToolbarRows.h"

#include <QBoxLayout>
#include <QEvent>
#include <QToolBar>

namespace clab::ui {

ToolbarRows::ToolbarRows(const QList<QToolBar*>& bars, QWidget* parent) : QWidget(parent), bars_(bars) {
  layout_ = new QBoxLayout(QBoxLayout::LeftToRight, this);
  layout_->setContentsMargins(0, 0, 0, 0);
  layout_->setSpacing(0);
  for (QToolBar* bar : bars_) {
    layout_->addWidget(bar);
  }
  layout_->addStretch(1);
}

int ToolbarRows::oneRowWidth() const {
  int width = 0;
  for (const QToolBar* bar : bars_) width += bar->sizeHint().width();
  return width;
}

bool ToolbarRows::oneRow() const { return layout_->direction() == QBoxLayout::LeftToRight; }

void ToolbarRows::arrange() {
  const auto direction = oneRowWidth() <= width() ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
  if (layout_->direction() != direction) layout_->setDirection(direction);
}

void ToolbarRows::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrange();
}

bool ToolbarRows::event(QEvent* event) {
  // A tool bar's width changes with its texts (another language) and fonts.
  if (event->type() == QEvent::LayoutRequest) arrange();
  return QWidget::event(event);
}

}  // namespace clab::ui
