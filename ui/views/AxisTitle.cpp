#include "views/AxisTitle.h"

#include <QAbstractAxis>
#include <QChart>
#include <QGraphicsSimpleTextItem>

#include <algorithm>

namespace clab::ui {
namespace {

constexpr qreal kGap = 4;  // between the upright title and the axis labels

}  // namespace

AxisTitle::AxisTitle(QChart* chart, const QList<QAbstractAxis*>& axes)
    : QObject(chart), chart_(chart), axes_(axes), left_margin_(chart->margins().left()) {
  upright_ = new QGraphicsSimpleTextItem(chart);
  upright_->setData(0, QStringLiteral("upright-axis-title"));
  upright_->setZValue(10);
  upright_->hide();
  connect(chart, &QChart::plotAreaChanged, this, &AxisTitle::place);
}

bool AxisTitle::isCjk(const QString& text) {
  for (const QChar c : text) {
    switch (c.script()) {
      case QChar::Script_Han:
      case QChar::Script_Hiragana:
      case QChar::Script_Katakana:
      case QChar::Script_Hangul: return true;
      default: break;
    }
  }
  return false;
}

void AxisTitle::setText(const QString& text) {
  const bool upright = isCjk(text);
  for (QAbstractAxis* axis : std::as_const(axes_)) {
    axis->setTitleText(text);
    axis->setTitleVisible(!upright);
  }
  QMargins margins = chart_->margins();
  if (!upright) {
    upright_->hide();
    upright_->setText({});
    margins.setLeft(static_cast<int>(left_margin_));
    chart_->setMargins(margins);
    return;
  }
  QStringList lines;
  for (const QChar c : text) lines << QString(c);
  upright_->setText(lines.join('\n'));
  if (!axes_.isEmpty()) {
    upright_->setFont(axes_.first()->titleFont());
    upright_->setBrush(axes_.first()->titleBrush());
  }
  upright_->show();
  margins.setLeft(static_cast<int>(left_margin_ + upright_->boundingRect().width() + kGap));
  chart_->setMargins(margins);
  place();
}

void AxisTitle::place() {
  if (!upright_->isVisible()) return;
  // Where the axis's own title would start: the chart's left margin, inside its background.
  const qreal x = chart_->contentsRect().left() + left_margin_;
  const qreal y = chart_->plotArea().center().y() - upright_->boundingRect().height() / 2;
  upright_->setPos(x, std::max(chart_->contentsRect().top(), y));
}

}  // namespace clab::ui
