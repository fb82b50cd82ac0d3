#include "views/DashboardView.h"

#include "translations/Retranslate.h"
#include "views/ScalarsView.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTableWidget>
#include <QVBoxLayout>

#include <QValueAxis>
#include <algorithm>

namespace clab::ui {
namespace {

enum Column { kTask, kState, kStep, kRate, kDetail, kColumns };
constexpr int kChartPoints = 600;

QLabel* BigLabel(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * 2.0);
  font.setBold(true);
  label->setFont(font);
  return label;
}

}  // namespace

DashboardView::DashboardView(QWidget* parent) : QWidget(parent) {
  step_ = BigLabel(tr("global step -"), this);
  rate_ = BigLabel(tr("%1 steps/s").arg(0), this);
  table_ = new QTableWidget(0, kColumns, this);
  table_->setHorizontalHeaderLabels({tr("Task"), tr("State"), tr("Global step"), tr("Steps/s"), tr("Detail")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  series_ = new QLineSeries;
  series_->setName(tr("steps/s (all workers)"));
  auto* chart = new QChart;
  chart->addSeries(series_);
  chart->setTitle(tr("Training speed"));
  auto marks = [chart](const QString& name, const QColor& color) {
    auto* series = new QScatterSeries;
    series->setName(name);
    series->setColor(color);
    series->setMarkerSize(11);
    chart->addSeries(series);
    return series;
  };
  faults_ = marks(tr("fault injected"), QColor(200, 60, 200));
  errors_ = marks(tr("step failed"), QColor(210, 40, 40));
  recoveries_ = marks(tr("recovered"), QColor(40, 170, 80));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->markers(series_).first()->setVisible(false);
  x_axis_ = new QValueAxis;
  x_axis_->setTitleText(tr("seconds since start"));
  x_axis_->setRange(0, 10);
  y_axis_ = new QValueAxis;
  y_axis_->setTitleText(tr("steps/s"));
  y_axis_->setRange(0, max_rate_);
  for (QValueAxis* axis : {x_axis_, y_axis_}) axis->setLabelFormat("%g");
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  for (QXYSeries* series : {static_cast<QXYSeries*>(series_), static_cast<QXYSeries*>(faults_),
                            static_cast<QXYSeries*>(errors_), static_cast<QXYSeries*>(recoveries_)}) {
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
  }
  auto* chart_view = new QChartView(chart, this);
  chart_view->setRenderHint(QPainter::Antialiasing);
  chart_view->setMinimumHeight(180);

  scalars_ = new ScalarsView(this);
  auto* charts = new QHBoxLayout;
  charts->addWidget(chart_view, 1);
  charts->addWidget(scalars_, 3);

  auto* figures = new QHBoxLayout;
  figures->addWidget(step_);
  figures->addSpacing(40);
  figures->addWidget(rate_);
  figures->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(figures);
  layout->addWidget(table_, 1);
  layout->addLayout(charts, 2);
  run_clock_.start();
  // The texts again after a change of the studio's language.
  new Retranslate(this, [this, chart] {
    table_->setHorizontalHeaderLabels({tr("Task"), tr("State"), tr("Global step"), tr("Steps/s"), tr("Detail")});
    series_->setName(tr("steps/s (all workers)"));
    chart->setTitle(tr("Training speed"));
    faults_->setName(tr("fault injected"));
    errors_->setName(tr("step failed"));
    recoveries_->setName(tr("recovered"));
    x_axis_->setTitleText(tr("seconds since start"));
    y_axis_->setTitleText(tr("steps/s"));
    showFigures();
  });
}

void DashboardView::showFigures() {
  step_->setText(shown_step_ >= 0 ? tr("global step %1").arg(shown_step_) : tr("global step -"));
  rate_->setText(tr("%1 steps/s").arg(shown_rate_, 0, 'f', 0));
}

void DashboardView::setTasks(const QStringList& tasks) {
  table_->setRowCount(0);
  for (const QString& task : tasks) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    table_->setItem(row, kTask, new QTableWidgetItem(task));
    for (int column = kState; column < kColumns; ++column) table_->setItem(row, column, new QTableWidgetItem);
    table_->item(row, kState)->setText(NotRunningState().text);
  }
  table_->resizeColumnToContents(kTask);
  table_->setColumnWidth(kState, std::max(table_->columnWidth(kState), fontMetrics().horizontalAdvance('x') * 34));
}

void DashboardView::updateTask(const QString& task, const TaskLiveState& state, const TaskStatus& status) {
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (table_->item(row, kTask)->text() != task) continue;
    table_->item(row, kState)->setText(state.text);
    table_->item(row, kState)->setForeground(state.light.darker(130));
    table_->item(row, kStep)->setText(status.global_step >= 0 ? QString::number(status.global_step) : "");
    table_->item(row, kRate)
        ->setText(status.steps_per_second > 0 ? QString::number(status.steps_per_second, 'f', 0) : "");
    QString detail = status.step_failed ? status.last_error : status.detail;
    // An ended task's last event no longer describes it.
    switch (state.condition) {
      case TaskCondition::kKilled:
      case TaskCondition::kCrashed:
      case TaskCondition::kFailed: detail = tr("its last output is in the Console"); break;
      case TaskCondition::kStopped:
      case TaskCondition::kFinished: detail.clear(); break;
      default: break;
    }
    if (!status.uninitialized.isEmpty()) detail += tr(" (waiting for: %1)").arg(status.uninitialized.join(", "));
    table_->item(row, kDetail)->setText(detail);
    table_->item(row, kDetail)->setToolTip(detail);
  }
}

void DashboardView::mark(const QString& kind) {
  QScatterSeries* series = kind == "fault" ? faults_ : kind == "error" ? errors_ : recoveries_;
  const double t = static_cast<double>(run_clock_.elapsed()) / 1000.0;
  const double y = series_->count() > 0 ? series_->at(series_->count() - 1).y() : 0.0;
  series->append(t, y);
}

int DashboardView::markCount(const QString& kind) const {
  const QScatterSeries* series = kind == "fault" ? faults_ : kind == "error" ? errors_ : recoveries_;
  return series->count();
}

void DashboardView::addScalar(const QString&, qint64 global_step, const QString& name, double value) {
  scalars_->add(name, global_step, value);
}

int DashboardView::lossPoints() const { return scalars_->lossPoints(); }

void DashboardView::reset() {
  startRun();
  scalars_->clear();
}

void DashboardView::startRun() {
  series_->clear();
  scalars_->startRun();
  faults_->clear();
  errors_->clear();
  recoveries_->clear();
  max_rate_ = 10;
  y_axis_->setRange(0, max_rate_);
  x_axis_->setRange(0, 10);
  run_clock_.restart();
  shown_step_ = -1;
  shown_rate_ = 0;
  showFigures();
}

void DashboardView::updateProgress(qint64 global_step, double steps_per_second) {
  shown_step_ = global_step;
  shown_rate_ = steps_per_second;
  showFigures();
  const double t = static_cast<double>(run_clock_.elapsed()) / 1000.0;
  series_->append(t, steps_per_second);
  if (series_->count() > kChartPoints) series_->removePoints(0, series_->count() - kChartPoints);
  max_rate_ = std::max(max_rate_, steps_per_second * 1.2);
  y_axis_->setRange(0, max_rate_);
  y_axis_->applyNiceNumbers();
  x_axis_->setRange(std::max(0.0, t - 60), std::max(10.0, t));
  x_axis_->applyNiceNumbers();
}

QString DashboardView::globalStepText() const { return step_->text(); }

QString DashboardView::stateOf(const QString& task) const {
  for (int row = 0; row < table_->rowCount(); ++row)
    if (table_->item(row, kTask)->text() == task) return table_->item(row, kState)->text();
  return {};
}

}  // namespace clab::ui
