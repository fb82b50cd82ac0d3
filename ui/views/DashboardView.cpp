#include "views/DashboardView.h"

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

QString PhaseText(TaskState::Phase phase) {
  switch (phase) {
    case TaskState::UNKNOWN: return "not reached";
    case TaskState::STARTING: return "starting";
    case TaskState::LISTENING: return "listening";
    case TaskState::CONNECTED: return "connected";
    case TaskState::WAITING: return "waiting";
    case TaskState::SESSION_CREATED: return "session created";
    case TaskState::MODEL_READY: return "model ready";
    case TaskState::TRAINING: return "training";
    case TaskState::STOPPED: return "stopped";
    case TaskState::FAILED: return "failed";
    default: return "?";
  }
}

QColor PhaseColor(TaskState::Phase phase, bool connected) {
  switch (phase) {
    case TaskState::WAITING:
    case TaskState::STARTING:
    case TaskState::SESSION_CREATED: return QColor(235, 170, 40);
    case TaskState::LISTENING:
    case TaskState::CONNECTED:
    case TaskState::MODEL_READY:
    case TaskState::TRAINING: return QColor(40, 170, 80);
    case TaskState::STOPPED: return QColor(70, 120, 210);
    case TaskState::FAILED: return QColor(210, 40, 40);
    default: return connected ? QColor(235, 170, 40) : QColor(150, 150, 150);
  }
}

DashboardView::DashboardView(QWidget* parent) : QWidget(parent) {
  step_ = BigLabel("global step -", this);
  rate_ = BigLabel("0 steps/s", this);
  table_ = new QTableWidget(0, kColumns, this);
  table_->setHorizontalHeaderLabels({"Task", "State", "Global step", "Steps/s", "Detail"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  series_ = new QLineSeries;
  series_->setName("steps/s (all workers)");
  auto* chart = new QChart;
  chart->addSeries(series_);
  chart->setTitle("Training speed");
  auto marks = [chart](const QString& name, const QColor& color) {
    auto* series = new QScatterSeries;
    series->setName(name);
    series->setColor(color);
    series->setMarkerSize(11);
    chart->addSeries(series);
    return series;
  };
  faults_ = marks("fault injected", QColor(200, 60, 200));
  errors_ = marks("step failed", QColor(210, 40, 40));
  recoveries_ = marks("recovered", QColor(40, 170, 80));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->markers(series_).first()->setVisible(false);
  x_axis_ = new QValueAxis;
  x_axis_->setTitleText("seconds since start");
  x_axis_->setRange(0, 10);
  y_axis_ = new QValueAxis;
  y_axis_->setTitleText("steps/s");
  y_axis_->setRange(0, max_rate_);
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

  loss_ = new QLineSeries;
  loss_->setName("loss");
  auto* loss_chart = new QChart;
  loss_chart->addSeries(loss_);
  loss_chart->setTitle("Loss (logged every 100 steps)");
  loss_chart->legend()->hide();
  loss_x_ = new QValueAxis;
  loss_x_->setTitleText("global step");
  loss_y_ = new QValueAxis;
  loss_y_->setTitleText("loss");
  loss_chart->addAxis(loss_x_, Qt::AlignBottom);
  loss_chart->addAxis(loss_y_, Qt::AlignLeft);
  loss_->attachAxis(loss_x_);
  loss_->attachAxis(loss_y_);
  auto* loss_view = new QChartView(loss_chart, this);
  loss_view->setRenderHint(QPainter::Antialiasing);
  loss_view->setMinimumHeight(180);
  loss_view->hide();  // until a run reports a loss (the seed program has none)
  loss_view_ = loss_view;
  auto* charts = new QHBoxLayout;
  charts->addWidget(chart_view, 1);
  charts->addWidget(loss_view, 1);

  auto* figures = new QHBoxLayout;
  figures->addWidget(step_);
  figures->addSpacing(40);
  figures->addWidget(rate_);
  figures->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addLayout(figures);
  layout->addWidget(table_, 1);
  layout->addLayout(charts, 1);
  run_clock_.start();
}

void DashboardView::setTasks(const QStringList& tasks) {
  table_->setRowCount(0);
  for (const QString& task : tasks) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    table_->setItem(row, kTask, new QTableWidgetItem(task));
    for (int column = kState; column < kColumns; ++column) table_->setItem(row, column, new QTableWidgetItem);
    table_->item(row, kState)->setText("not running");
  }
  table_->resizeColumnToContents(kTask);
}

void DashboardView::updateTask(const QString& task, const TaskStatus& status, const QString& process_note) {
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (table_->item(row, kTask)->text() != task) continue;
    QString state = PhaseText(status.phase);
    if (!process_note.isEmpty()) state = process_note;
    table_->item(row, kState)->setText(state);
    table_->item(row, kState)->setForeground(PhaseColor(status.phase, status.connected).darker(130));
    table_->item(row, kStep)->setText(status.global_step >= 0 ? QString::number(status.global_step) : "");
    table_->item(row, kRate)
        ->setText(status.steps_per_second > 0 ? QString::number(status.steps_per_second, 'f', 0) : "");
    QString detail = status.detail;
    if (!status.uninitialized.isEmpty()) detail += " (waiting for: " + status.uninitialized.join(", ") + ")";
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

void DashboardView::addLoss(const QString&, qint64 global_step, double loss) {
  loss_view_->show();
  loss_->append(static_cast<double>(global_step), loss);
  max_loss_ = std::max(max_loss_, loss);
  max_loss_step_ = std::max(max_loss_step_, global_step);
  loss_y_->setRange(0, max_loss_ * 1.1);
  loss_x_->setRange(0, static_cast<double>(std::max<qint64>(max_loss_step_, 100)));
}

int DashboardView::lossPoints() const { return loss_->count(); }

void DashboardView::startRun() {
  series_->clear();
  loss_->clear();
  max_loss_ = 0;
  max_loss_step_ = 0;
  faults_->clear();
  errors_->clear();
  recoveries_->clear();
  max_rate_ = 10;
  y_axis_->setRange(0, max_rate_);
  x_axis_->setRange(0, 10);
  run_clock_.restart();
  step_->setText("global step -");
  rate_->setText("0 steps/s");
}

void DashboardView::updateProgress(qint64 global_step, double steps_per_second) {
  step_->setText(global_step >= 0 ? QStringLiteral("global step %1").arg(global_step) : "global step -");
  rate_->setText(QStringLiteral("%1 steps/s").arg(steps_per_second, 0, 'f', 0));
  const double t = static_cast<double>(run_clock_.elapsed()) / 1000.0;
  series_->append(t, steps_per_second);
  if (series_->count() > kChartPoints) series_->removePoints(0, series_->count() - kChartPoints);
  max_rate_ = std::max(max_rate_, steps_per_second * 1.2);
  y_axis_->setRange(0, max_rate_);
  x_axis_->setRange(std::max(0.0, t - 60), std::max(10.0, t));
}

QString DashboardView::globalStepText() const { return step_->text(); }

QString DashboardView::stateOf(const QString& task) const {
  for (int row = 0; row < table_->rowCount(); ++row)
    if (table_->item(row, kTask)->text() == task) return table_->item(row, kState)->text();
  return {};
}

}  // namespace clab::ui
