// One scalar over global steps, drawn as TensorBoard draws its scalars: a curve per run (each
// Start of training in this session), the raw values faint under their smoothed curve, a linear
// or logarithmic value axis with round ticks. Values measured once (a held-out accuracy at the
// end of training) are marks. Runs stay until removed; each can be hidden.
#pragma once

#include <QColor>
#include <QList>
#include <QMap>
#include <QPointF>
#include <QWidget>

class QChart;
class QChartView;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace clab::ui {

class AxisTitle;

class ScalarChart : public QWidget {
  Q_OBJECT

 public:
  ScalarChart(const QString& title, const QString& value_title, QWidget* parent = nullptr);
  // The chart's title and its value axis's (after a change of language).
  void setTitles(const QString& title, const QString& value_title);

  void addRun(int run, const QString& name, const QColor& color);
  void add(int run, qint64 step, double value);
  void addMark(int run, qint64 step, double value, const QString& mark_name);
  void setSmoothing(double weight);
  // Only positive values can be drawn on a log axis; the others are left out while it is on.
  void setLogScale(bool log);
  void setRunVisible(int run, bool visible);
  void removeRun(int run);
  void clear();
  bool hasData() const;
  QChart* chart() const { return chart_; }

 private:
  struct Curve {
    QList<QPointF> raw;  // in step order
    QList<QPointF> marks;
    QLineSeries* raw_series = nullptr;
    QLineSeries* smoothed_series = nullptr;
    QScatterSeries* mark_series = nullptr;
    bool visible = true;
  };
  void redraw(Curve& curve);
  void rescale();
  void updateLegend();
  QList<QPointF> drawable(const QList<QPointF>& points) const;

  QChart* chart_ = nullptr;
  QChartView* view_ = nullptr;
  QValueAxis* x_ = nullptr;
  QValueAxis* y_ = nullptr;
  QLogValueAxis* log_y_ = nullptr;
  AxisTitle* value_title_ = nullptr;
  QMap<int, Curve> runs_;
  double smoothing_ = 0.6;
  bool log_ = false;
};

}  // namespace clab::ui
