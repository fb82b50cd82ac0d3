#include "views/DashboardView.h"

#include "models/TaskTableModel.h"
#include "translations/Retranslate.h"
#include "views/AxisTitle.h"
#include "views/ScalarsView.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTableView>
#include <QVBoxLayout>

#include <QValueAxis>
#include <algorithm>

namespace clab::ui {
namespace {

constexpr int kChartPoints = 600;

const QColor kFaultColour(200, 60, 200), kErrorColour(210, 40, 40), kRecoveredColour(40, 170, 80);

// The speed chart's legend: a square of each mark's colour and its name. Each entry stays on
// one line; entries wrap to the chart's width rather than be cut short.
QString LegendText(const QList<std::pair<QColor, QString>>& entries) {
  QStringList items;
  for (const auto& [colour, name] : entries)
    items << QStringLiteral("<span style=\"white-space:nowrap\"><span style=\"color:%1\">\u25a0</span>&nbsp;%2</span>")
                 .arg(colour.name(), name.toHtmlEscaped());
  return items.join(QStringLiteral(" &nbsp; "));
}

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
  step_->setObjectName("global-step");
  rate_->setObjectName("steps-per-second");
  tasks_ = new TaskTableModel(this);
  table_ = new QTableView(this);
  table_->setObjectName("tasks");
  table_->setModel(tasks_);
  table_->setWordWrap(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  series_ = new QLineSeries;
  series_->setName(tr("steps/s (all workers)"));
  series_->setObjectName("speed");
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
  faults_ = marks(tr("fault injected"), kFaultColour);
  errors_ = marks(tr("step failed"), kErrorColour);
  recoveries_ = marks(tr("recovered"), kRecoveredColour);
  faults_->setObjectName("fault");
  errors_->setObjectName("error");
  recoveries_->setObjectName("recovered");
  // Qt Charts cuts the names of a narrow chart's legend short: a label under it says them whole.
  chart->legend()->setVisible(false);
  x_axis_ = new QValueAxis;
  x_axis_->setTitleText(tr("seconds since start"));
  x_axis_->setRange(0, 10);
  y_axis_ = new QValueAxis;
  y_axis_->setRange(0, max_rate_);
  for (QValueAxis* axis : {x_axis_, y_axis_}) axis->setLabelFormat("%g");
  chart->addAxis(x_axis_, Qt::AlignBottom);
  chart->addAxis(y_axis_, Qt::AlignLeft);
  y_title_ = new AxisTitle(chart, {y_axis_});
  for (QXYSeries* series : {static_cast<QXYSeries*>(series_), static_cast<QXYSeries*>(faults_),
                            static_cast<QXYSeries*>(errors_), static_cast<QXYSeries*>(recoveries_)}) {
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
  }
  auto* chart_view = new QChartView(chart, this);
  chart_view->setRenderHint(QPainter::Antialiasing);
  chart_view->setMinimumHeight(180);

  legend_ = new QLabel(this);
  legend_->setObjectName("speed-legend");
  legend_->setWordWrap(true);
  legend_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
  auto* speed = new QVBoxLayout;
  speed->setSpacing(2);
  speed->addWidget(chart_view, 1);
  speed->addWidget(legend_);

  scalars_ = new ScalarsView(this);
  auto* charts = new QHBoxLayout;
  charts->addLayout(speed, 4);
  charts->addWidget(scalars_, 9);

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
    tasks_->retranslate();
    series_->setName(tr("steps/s (all workers)"));
    chart->setTitle(tr("Training speed"));
    faults_->setName(tr("fault injected"));
    errors_->setName(tr("step failed"));
    recoveries_->setName(tr("recovered"));
    x_axis_->setTitleText(tr("seconds since start"));
    y_title_->setText(tr("steps/s"));
    legend_->setText(LegendText({{kFaultColour, tr("fault injected")},
                                 {kErrorColour, tr("step failed")},
                                 {kRecoveredColour, tr("recovered")}}));
    showFigures();
  });
}

void DashboardView::showFigures() {
  step_->setText(shown_step_ >= 0 ? tr("global step %1").arg(shown_step_) : tr("global step -"));
  rate_->setText(tr("%1 steps/s").arg(shown_rate_, 0, 'f', 0));
}

void DashboardView::setTasks(const QStringList& tasks) {
  tasks_->setTasks(tasks);
  table_->resizeColumnToContents(TaskTableModel::kTask);
  table_->setColumnWidth(TaskTableModel::kState, std::max(table_->columnWidth(TaskTableModel::kState),
                                                          fontMetrics().horizontalAdvance('x') * 34));
}

void DashboardView::updateTask(const QString& task, const TaskLiveState& state, const TaskStatus& status) {
  tasks_->updateTask(task, state, status);
}

void DashboardView::mark(const QString& kind) {
  QScatterSeries* series = kind == "fault" ? faults_ : kind == "error" ? errors_ : recoveries_;
  const double t = static_cast<double>(run_clock_.elapsed()) / 1000.0;
  const double y = series_->count() > 0 ? series_->at(series_->count() - 1).y() : 0.0;
  series->append(t, y);
}

void DashboardView::addScalar(const QString&, qint64 global_step, const QString& name, double value) {
  scalars_->add(name, global_step, value);
}

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

}  // namespace clab::ui
