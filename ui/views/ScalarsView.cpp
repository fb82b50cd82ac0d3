#include "views/ScalarsView.h"

#include "translations/Retranslate.h"

#include "views/ScalarChart.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPixmap>
#include <QPushButton>
#include <QSlider>
#include <QTime>
#include <QVBoxLayout>

namespace clab::ui {
namespace {

constexpr int kRunRole = Qt::UserRole + 1;

QColor RunColor(int run) {
  static const QColor kColors[] = {QColor(0, 119, 187),  QColor(238, 119, 51), QColor(0, 153, 136),
                                   QColor(238, 51, 119), QColor(51, 187, 238), QColor(204, 51, 17),
                                   QColor(120, 90, 170)};
  return kColors[(run - 1) % static_cast<int>(std::size(kColors))];
}

}  // namespace

ScalarsView::ScalarsView(QWidget* parent) : QWidget(parent) {
  loss_ = new ScalarChart(tr("Loss"), tr("loss"), this);
  loss_->setObjectName("loss-chart");
  accuracy_ = new ScalarChart(tr("Accuracy (dots: held-out)"), tr("accuracy"), this);
  accuracy_->setObjectName("accuracy-chart");
  accuracy_->hide();  // until a run reports one (linear regression has none)

  smoothing_ = new QSlider(Qt::Horizontal, this);
  smoothing_->setObjectName("smoothing");
  smoothing_->setRange(0, 99);
  smoothing_->setValue(60);
  smoothing_->setToolTip(
      tr("Exponential moving average of the curves, as TensorBoard smooths them: "
         "0 shows the raw values"));
  smoothing_value_ = new QLabel(this);
  log_scale_ = new QCheckBox(tr("Log scale (loss)"), this);
  log_scale_->setObjectName("log-scale");
  runs_ = new QListWidget(this);
  runs_->setObjectName("runs");
  runs_->setToolTip(tr("Each Start of training is a run; untick one to hide its curves"));
  clear_ = new QPushButton(tr("Clear earlier runs"), this);
  clear_->setObjectName("clear-runs");

  auto* smoothing_row = new QHBoxLayout;
  smoothing_row->addWidget(smoothing_, 1);
  smoothing_row->addWidget(smoothing_value_);
  auto* controls = new QVBoxLayout;
  auto* smoothing_title = new QLabel(this);
  controls->addWidget(smoothing_title);
  controls->addLayout(smoothing_row);
  controls->addWidget(log_scale_);
  auto* runs_title = new QLabel(this);
  controls->addWidget(runs_title);
  controls->addWidget(runs_, 1);
  controls->addWidget(clear_);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(loss_, 3);
  layout->addWidget(accuracy_, 3);
  layout->addLayout(controls, 1);

  connect(smoothing_, &QSlider::valueChanged, this, &ScalarsView::setSmoothing);
  connect(log_scale_, &QCheckBox::toggled, loss_, &ScalarChart::setLogScale);
  connect(runs_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    const int run = item->data(kRunRole).toInt();
    const bool visible = item->checkState() == Qt::Checked;
    loss_->setRunVisible(run, visible);
    accuracy_->setRunVisible(run, visible);
  });
  connect(clear_, &QPushButton::clicked, this, &ScalarsView::removeEarlierRuns);
  new Retranslate(this, [this, smoothing_title, runs_title] {
    loss_->setTitles(tr("Loss"), tr("loss"));
    accuracy_->setTitles(tr("Accuracy (dots: held-out)"), tr("accuracy"));
    smoothing_->setToolTip(
        tr("Exponential moving average of the curves, as TensorBoard smooths them: "
           "0 shows the raw values"));
    log_scale_->setText(tr("Log scale (loss)"));
    runs_->setToolTip(tr("Each Start of training is a run; untick one to hide its curves"));
    clear_->setText(tr("Clear earlier runs"));
    smoothing_title->setText(tr("Smoothing"));
    runs_title->setText(tr("Runs"));
  });
  setSmoothing(smoothing_->value());
  clear_->setEnabled(false);
  hide();
}

void ScalarsView::setSmoothing(int slider_value) {
  const double weight = slider_value / 100.0;
  smoothing_value_->setText(QString::number(weight, 'f', 2));
  loss_->setSmoothing(weight);
  accuracy_->setSmoothing(weight);
}

void ScalarsView::startRun() {
  ++run_;
  run_listed_ = false;
  loss_points_ = 0;
}

void ScalarsView::clear() {
  loss_->clear();
  accuracy_->clear();
  runs_->clear();
  run_ = 0;
  run_listed_ = false;
  loss_points_ = 0;
  clear_->setEnabled(false);
  accuracy_->hide();
  hide();
}

void ScalarsView::ensureRun() {
  if (run_ == 0) run_ = 1;  // values before any Start (an attached cluster)
  if (run_listed_) return;
  run_listed_ = true;
  const QString name = tr("Run %1").arg(run_);
  const QColor color = RunColor(run_);
  loss_->addRun(run_, name, color);
  accuracy_->addRun(run_, name, color);
  QPixmap swatch(12, 12);
  swatch.fill(color);
  auto* item = new QListWidgetItem(QIcon(swatch), name);
  item->setToolTip(tr("%1, started at %2").arg(name, QTime::currentTime().toString("HH:mm:ss")));
  item->setData(kRunRole, run_);
  item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
  item->setCheckState(Qt::Checked);
  runs_->addItem(item);
  clear_->setEnabled(runs_->count() > 1);
  show();
}

void ScalarsView::add(const QString& name, qint64 global_step, double value) {
  if (name != "loss" && name != "accuracy" && name != "held_out_accuracy") return;
  ensureRun();
  if (name == "loss") {
    loss_->add(run_, global_step, value);
    ++loss_points_;
    return;
  }
  accuracy_->show();
  if (name == "accuracy") accuracy_->add(run_, global_step, value);
  else accuracy_->addMark(run_, global_step, value, tr("held-out, run %1").arg(run_));
}

void ScalarsView::removeEarlierRuns() {
  for (int row = runs_->count() - 1; row >= 0; --row) {
    const int run = runs_->item(row)->data(kRunRole).toInt();
    if (run_listed_ && run == run_) continue;
    loss_->removeRun(run);
    accuracy_->removeRun(run);
    delete runs_->takeItem(row);
  }
  clear_->setEnabled(false);
  if (!accuracy_->hasData()) accuracy_->hide();
  if (runs_->count() == 0) hide();
}

}  // namespace clab::ui
