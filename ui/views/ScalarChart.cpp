#include "views/ScalarChart.h"

#include "views/AxisTitle.h"
#include "views/ScalarSmoothing.h"

#include <QChart>
#include <QChartView>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace clab::ui {

ScalarChart::ScalarChart(const QString& title, const QString& value_title, QWidget* parent) : QWidget(parent) {
  chart_ = new QChart;
  chart_->setTitle(title);
  chart_->legend()->setAlignment(Qt::AlignBottom);
  x_ = new QValueAxis(chart_);
  x_->setTitleText(tr("global step"));
  x_->setLabelFormat("%g");
  x_->setRange(0, 100);
  y_ = new QValueAxis(chart_);
  y_->setLabelFormat("%g");
  log_y_ = new QLogValueAxis(chart_);
  log_y_->setLabelFormat("%g");
  log_y_->setBase(10);
  log_y_->setMinorTickCount(-1);
  chart_->addAxis(x_, Qt::AlignBottom);
  chart_->addAxis(y_, Qt::AlignLeft);
  chart_->addAxis(log_y_, Qt::AlignLeft);
  log_y_->setVisible(false);
  value_title_ = new AxisTitle(chart_, {y_, log_y_});
  value_title_->setText(value_title);
  view_ = new QChartView(chart_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(160);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
}

void ScalarChart::addRun(int run, const QString& name, const QColor& color) {
  if (runs_.contains(run)) return;
  Curve curve;
  curve.raw_series = new QLineSeries;
  curve.raw_series->setName(tr("%1 (raw)").arg(name));
  QColor faint = color;
  faint.setAlpha(70);
  curve.raw_series->setPen(QPen(faint, 1));
  curve.smoothed_series = new QLineSeries;
  curve.smoothed_series->setName(name);
  curve.smoothed_series->setPen(QPen(color, 2));
  curve.mark_series = new QScatterSeries;
  curve.mark_series->setColor(color);
  curve.mark_series->setBorderColor(color.darker(150));
  curve.mark_series->setMarkerSize(10);
  for (QXYSeries* series : {static_cast<QXYSeries*>(curve.raw_series), static_cast<QXYSeries*>(curve.smoothed_series),
                            static_cast<QXYSeries*>(curve.mark_series)}) {
    chart_->addSeries(series);
    series->attachAxis(x_);
    series->attachAxis(log_ ? static_cast<QAbstractAxis*>(log_y_) : y_);
  }
  runs_.insert(run, curve);
  updateLegend();
}

void ScalarChart::updateLegend() {
  // The legend names each run once, by its smoothed curve (and its marks once it has some).
  for (const Curve& curve : std::as_const(runs_)) {
    for (QLegendMarker* marker : chart_->legend()->markers(curve.raw_series)) marker->setVisible(false);
    // Marks share their run's colour; the title says what they are.
    for (QLegendMarker* marker : chart_->legend()->markers(curve.mark_series)) marker->setVisible(false);
  }
}

void ScalarChart::add(int run, qint64 step, double value) {
  auto it = runs_.find(run);
  if (it == runs_.end()) return;
  const QPointF point(static_cast<double>(step), value);
  // Workers report in the order they log: keep the curve in step order.
  auto at = std::upper_bound(it->raw.begin(), it->raw.end(), point,
                             [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  it->raw.insert(at, point);
  redraw(*it);
  rescale();
}

void ScalarChart::addMark(int run, qint64 step, double value, const QString& mark_name) {
  auto it = runs_.find(run);
  if (it == runs_.end()) return;
  it->marks.append({static_cast<double>(step), value});
  it->mark_series->setName(mark_name);
  updateLegend();
  redraw(*it);
  rescale();
}

QList<QPointF> ScalarChart::drawable(const QList<QPointF>& points) const {
  if (!log_) return points;
  QList<QPointF> positive;
  for (const QPointF& point : points)
    if (point.y() > 0) positive.append(point);
  return positive;
}

void ScalarChart::redraw(Curve& curve) {
  curve.raw_series->replace(drawable(curve.raw));
  curve.smoothed_series->replace(drawable(SmoothScalars(curve.raw, smoothing_)));
  curve.mark_series->replace(drawable(curve.marks));
}

void ScalarChart::rescale() {
  double low = std::numeric_limits<double>::infinity(), high = -low, last_step = 0;
  for (const Curve& curve : std::as_const(runs_)) {
    if (!curve.visible) continue;
    for (const QList<QPointF>* points : {&curve.raw, &curve.marks}) {
      for (const QPointF& point : drawable(*points)) {
        if (!std::isfinite(point.y())) continue;
        low = std::min(low, point.y());
        high = std::max(high, point.y());
        last_step = std::max(last_step, point.x());
      }
    }
  }
  x_->setRange(0, std::max(100.0, last_step));
  x_->applyNiceNumbers();
  if (!std::isfinite(low)) return;
  if (log_) {
    // Whole decades: ticks at 0.01, 0.1, 1, 10.
    const double bottom = std::pow(10.0, std::floor(std::log10(low)));
    double top = std::pow(10.0, std::ceil(std::log10(high)));
    if (top <= bottom) top = bottom * 10;
    log_y_->setRange(bottom, top);
    return;
  }
  low = std::min(0.0, low);
  if (high <= low) high = low + 1;
  y_->setRange(low, high);
  y_->applyNiceNumbers();
}

void ScalarChart::setSmoothing(double weight) {
  smoothing_ = weight;
  for (Curve& curve : runs_) redraw(curve);
}

void ScalarChart::setLogScale(bool log) {
  if (log == log_) return;
  log_ = log;
  QAbstractAxis* from = log ? static_cast<QAbstractAxis*>(y_) : log_y_;
  QAbstractAxis* to = log ? static_cast<QAbstractAxis*>(log_y_) : y_;
  for (QAbstractSeries* series : chart_->series()) {
    series->detachAxis(from);
    series->attachAxis(to);
  }
  from->setVisible(false);
  to->setVisible(true);
  for (Curve& curve : runs_) redraw(curve);
  rescale();
}

void ScalarChart::setRunVisible(int run, bool visible) {
  auto it = runs_.find(run);
  if (it == runs_.end()) return;
  it->visible = visible;
  it->raw_series->setVisible(visible);
  it->smoothed_series->setVisible(visible);
  it->mark_series->setVisible(visible);
  updateLegend();
  rescale();
}

void ScalarChart::removeRun(int run) {
  auto it = runs_.find(run);
  if (it == runs_.end()) return;
  for (QAbstractSeries* series :
       {static_cast<QAbstractSeries*>(it->raw_series), static_cast<QAbstractSeries*>(it->smoothed_series),
        static_cast<QAbstractSeries*>(it->mark_series)}) {
    chart_->removeSeries(series);
    delete series;
  }
  runs_.erase(it);
  rescale();
}

void ScalarChart::clear() {
  for (int run : runs_.keys()) removeRun(run);
}

bool ScalarChart::hasData() const {
  return std::any_of(runs_.begin(), runs_.end(),
                     [](const Curve& curve) { return !curve.raw.isEmpty() || !curve.marks.isEmpty(); });
}

void ScalarChart::setTitles(const QString& title, const QString& value_title) {
  chart_->setTitle(title);
  x_->setTitleText(tr("global step"));
  value_title_->setText(value_title);
}

}  // namespace clab::ui
