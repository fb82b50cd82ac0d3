// The title of a chart's vertical value axis. Latin text is left to Qt Charts, which draws it
// rotated beside the axis. Chinese (any CJK) text stands upright instead, one character under
// the other as vertical Chinese is written, in the axis title's font and colour: Qt Charts
// would rotate it and, where the axis is narrow, elide it to a lone "⋮".
#pragma once

#include <QList>
#include <QObject>
#include <QString>

class QAbstractAxis;
class QChart;
class QGraphicsSimpleTextItem;

namespace clab::ui {

class AxisTitle : public QObject {
  Q_OBJECT

 public:
  // `axes`: the value axes that share the place left of the plot (a linear and a log one).
  AxisTitle(QChart* chart, const QList<QAbstractAxis*>& axes);

  void setText(const QString& text);
  // Whether `text` holds Chinese, Japanese or Korean characters.
  static bool isCjk(const QString& text);

 private:
  void place();

  QChart* chart_;
  QList<QAbstractAxis*> axes_;
  QGraphicsSimpleTextItem* upright_ = nullptr;
  qreal left_margin_ = 0;  // the chart's own left margin, before room was made for the title
};

}  // namespace clab::ui
