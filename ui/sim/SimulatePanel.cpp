#include "sim/SimulatePanel.h"

#include "translations/Retranslate.h"

#include "platform/PlatformSpec.h"
#include "platform/Quantity.h"
#include "project/SimProject.h"
#include "report/Bottleneck.h"
#include "run/Simulator.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSlider>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QtConcurrent>

#include <algorithm>
#include <cmath>

namespace clab::ui {
namespace {

// Slider positions on a log scale: 1 Mbit/s to 100 Gbit/s, 1 us to 10 ms, 10 steps a decade.
constexpr double kMinBandwidth = 1e6 / 8;
constexpr double kMinLatency = 1e-6;
constexpr int kStepsPerDecade = 10;

double FromPosition(int position, double minimum) {
  return minimum * std::pow(10.0, position / double(kStepsPerDecade));
}
int ToPosition(double value, double minimum) {
  return static_cast<int>(std::lround(std::log10(std::max(value, minimum) / minimum) * kStepsPerDecade));
}

QString Q(const std::string& text) { return QString::fromStdString(text); }

QString Percent(double fraction) { return QString::number(std::lround(100 * fraction)) + "%"; }

}  // namespace

SimulatePanel::SimulatePanel(QWidget* parent) : QWidget(parent) {
  buildLayout();
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(300);
  connect(debounce_, &QTimer::timeout, this, &SimulatePanel::start);
  watcher_ = new QFutureWatcher<Outcome>(this);
  connect(watcher_, &QFutureWatcher<Outcome>::finished, this, &SimulatePanel::finished);
}

SimulatePanel::~SimulatePanel() { watcher_->waitForFinished(); }

void SimulatePanel::buildLayout() {
  workers_ = new QSpinBox(this);
  workers_->setRange(1, 1000);
  workers_->setValue(32);
  workers_->setToolTip(tr("The curve goes 1, 2, 4, ... up to this many workers"));
  ps_ = new QSpinBox(this);
  ps_->setRange(1, 64);
  sync_ = new QCheckBox(tr("Synchronous replicas"), this);
  cores_ = new QSpinBox(this);
  cores_->setRange(1, 1024);
  speed_ = new QDoubleSpinBox(this);
  speed_->setRange(0.05, 100);
  speed_->setSingleStep(0.25);
  speed_->setToolTip(tr("1.0 is one core of the machine the calibration ran on"));
  bandwidth_ = new QSlider(Qt::Horizontal, this);
  bandwidth_->setRange(0, 5 * kStepsPerDecade);
  latency_ = new QSlider(Qt::Horizontal, this);
  latency_->setRange(0, 4 * kStepsPerDecade);
  bandwidth_label_ = new QLabel(this);
  latency_label_ = new QLabel(this);
  auto* form = new QFormLayout;
  form->addRow(tr("Workers"), workers_);
  form->addRow(tr("Parameter servers"), ps_);
  form->addRow(QString(), sync_);
  form->addRow(tr("Cores per host"), cores_);
  form->addRow(tr("Host speed"), speed_);
  auto* bandwidth_row = new QHBoxLayout;
  bandwidth_row->addWidget(bandwidth_, 1);
  bandwidth_row->addWidget(bandwidth_label_);
  form->addRow(tr("Link bandwidth"), bandwidth_row);
  auto* latency_row = new QHBoxLayout;
  latency_row->addWidget(latency_, 1);
  latency_row->addWidget(latency_label_);
  form->addRow(tr("Link latency"), latency_row);
  calibration_label_ = new QLabel(tr("Uncalibrated: op costs from a FLOP-count model"), this);
  calibration_label_->setWordWrap(true);
  auto* calibrate = new QPushButton(tr("Load calibration..."), this);
  calibrate->setToolTip(tr("A file made by 'clab simulate --calibrate PROJECT -o FILE' on this machine"));
  connect(calibrate, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Calibration"), QString(), tr("Calibration (*.json)"));
    if (path.isEmpty()) return;
    StatusOr<sim::Calibration> loaded = sim::Calibration::Load(path.toStdString());
    if (!loaded.ok()) {
      calibration_label_->setText(Q(std::string(loaded.status().message())));
      return;
    }
    calibration_ = *loaded;
    calibration_path_ = path;
    calibration_label_->setText(tr("Calibrated by %1").arg(path));
    schedule();
  });
  form->addRow(calibrate, calibration_label_);

  curve_ = new QLineSeries;
  curve_->setName(tr("steps/s, all workers"));
  curve_->setPointsVisible(true);
  chosen_ = new QScatterSeries;
  chosen_->setName(tr("the chosen cluster"));
  chosen_->setMarkerSize(11);
  chart_ = new QChart;
  chart_->addSeries(curve_);
  chart_->addSeries(chosen_);
  chart_->setTitle(tr("Throughput against workers"));
  x_axis_ = new QLogValueAxis;
  x_axis_->setBase(2);
  x_axis_->setLabelFormat("%d");
  x_axis_->setTitleText(tr("workers"));
  y_axis_ = new QValueAxis;
  y_axis_->setTitleText(tr("steps/s"));
  chart_->addAxis(x_axis_, Qt::AlignBottom);
  chart_->addAxis(y_axis_, Qt::AlignLeft);
  for (QAbstractSeries* series : {static_cast<QAbstractSeries*>(curve_), static_cast<QAbstractSeries*>(chosen_)}) {
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
  }
  auto* chart_view = new QChartView(chart_, this);
  // The same texts again after a change of the studio's language.
  new Retranslate(this, [this, form, calibrate] {
    workers_->setToolTip(tr("The curve goes 1, 2, 4, ... up to this many workers"));
    sync_->setText(tr("Synchronous replicas"));
    speed_->setToolTip(tr("1.0 is one core of the machine the calibration ran on"));
    const QList<QPair<QWidget*, QString>> rows = {{workers_, tr("Workers")},
                                                  {ps_, tr("Parameter servers")},
                                                  {cores_, tr("Cores per host")},
                                                  {speed_, tr("Host speed")}};
    for (const auto& [field, text] : rows)
      if (auto* label = qobject_cast<QLabel*>(form->labelForField(field))) label->setText(text);
    for (int row = 0; row < form->rowCount(); ++row) {
      QLayoutItem* field = form->itemAt(row, QFormLayout::FieldRole);
      auto* label = form->itemAt(row, QFormLayout::LabelRole)
                        ? qobject_cast<QLabel*>(form->itemAt(row, QFormLayout::LabelRole)->widget())
                        : nullptr;
      if (!label || !field || !field->layout()) continue;
      if (field->layout()->indexOf(bandwidth_) >= 0) label->setText(tr("Link bandwidth"));
      if (field->layout()->indexOf(latency_) >= 0) label->setText(tr("Link latency"));
    }
    if (calibration_path_.isEmpty()) calibration_label_->setText(tr("Uncalibrated: op costs from a FLOP-count model"));
    else calibration_label_->setText(tr("Calibrated by %1").arg(calibration_path_));
    calibrate->setText(tr("Load calibration..."));
    calibrate->setToolTip(tr("A file made by 'clab simulate --calibrate PROJECT -o FILE' on this machine"));
    curve_->setName(tr("steps/s, all workers"));
    chosen_->setName(tr("the chosen cluster"));
    chart_->setTitle(tr("Throughput against workers"));
    x_axis_->setTitleText(tr("workers"));
    y_axis_->setTitleText(tr("steps/s"));
  });
  chart_view->setRenderHint(QPainter::Antialiasing);
  chart_view->setMinimumHeight(220);
  summary_ = new QLabel(this);
  bottleneck_ = new QLabel(this);
  loads_ = new QLabel(this);
  for (QLabel* label : {summary_, bottleneck_, loads_}) {
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  QFont bold = bottleneck_->font();
  bold.setBold(true);
  bottleneck_->setFont(bold);

  auto* left = new QVBoxLayout;
  left->addLayout(form);
  left->addStretch();
  auto* right = new QVBoxLayout;
  right->addWidget(chart_view, 1);
  right->addWidget(summary_);
  right->addWidget(bottleneck_);
  right->addWidget(loads_);
  auto* layout = new QHBoxLayout(this);
  layout->addLayout(left);
  layout->addLayout(right, 1);

  for (QSpinBox* box : {workers_, ps_}) connect(box, &QSpinBox::valueChanged, this, &SimulatePanel::schedule);
  connect(sync_, &QCheckBox::toggled, this, &SimulatePanel::schedule);
  connect(bandwidth_, &QSlider::valueChanged, this, [this](int position) {
    bandwidth_label_->setText(Q(sim::FormatBandwidth(FromPosition(position, kMinBandwidth))));
  });
  connect(latency_, &QSlider::valueChanged, this, [this](int position) {
    latency_label_->setText(Q(sim::FormatDuration(FromPosition(position, kMinLatency))));
  });
  // Host and link settings are the project's: an edit once the slider or box is let go.
  connect(bandwidth_, &QSlider::sliderReleased, this, &SimulatePanel::platformChanged);
  connect(latency_, &QSlider::sliderReleased, this, &SimulatePanel::platformChanged);
  connect(bandwidth_, &QSlider::actionTriggered, this, [this](int action) {
    if (action != QAbstractSlider::SliderMove) QTimer::singleShot(0, this, &SimulatePanel::platformChanged);
  });
  connect(latency_, &QSlider::actionTriggered, this, [this](int action) {
    if (action != QAbstractSlider::SliderMove) QTimer::singleShot(0, this, &SimulatePanel::platformChanged);
  });
  connect(cores_, &QSpinBox::editingFinished, this, &SimulatePanel::platformChanged);
  connect(speed_, &QDoubleSpinBox::editingFinished, this, &SimulatePanel::platformChanged);
}

void SimulatePanel::setProject(const Project& project) {
  project_ = project;
  showPlatform();
  schedule();
}

void SimulatePanel::setWhatIf(int workers, int ps, bool sync) {
  workers_->setValue(workers);
  ps_->setValue(ps);
  sync_->setChecked(sync);
  schedule();
}

void SimulatePanel::showPlatform() {
  StatusOr<sim::PlatformSpec> spec =
      project_.platform.isEmpty()
          ? StatusOr<sim::PlatformSpec>(sim::PlatformSpec::Default())
          : sim::PlatformSpec::FromJsonText(QJsonDocument(project_.platform).toJson().toStdString(), "platform");
  const sim::PlatformSpec platform = spec.ok() ? *spec : sim::PlatformSpec::Default();
  const QSignalBlocker b1(cores_), b2(speed_), b3(bandwidth_), b4(latency_);
  cores_->setValue(platform.host.cores);
  speed_->setValue(platform.host.speed);
  bandwidth_->setValue(ToPosition(platform.host.link.bandwidth, kMinBandwidth));
  latency_->setValue(ToPosition(platform.host.link.latency, kMinLatency));
  bandwidth_label_->setText(Q(sim::FormatBandwidth(platform.host.link.bandwidth)));
  latency_label_->setText(Q(sim::FormatDuration(platform.host.link.latency)));
}

QJsonObject SimulatePanel::editedPlatform() const {
  QJsonObject platform = project_.platform;
  QJsonObject host = platform.value("host").toObject();
  host["cores"] = cores_->value();
  host["speed"] = speed_->value();
  platform["host"] = host;
  QJsonObject link = platform.value("link").toObject();
  link["bandwidth"] = Q(sim::FormatBandwidth(FromPosition(bandwidth_->value(), kMinBandwidth)));
  link["latency"] = Q(sim::FormatDuration(FromPosition(latency_->value(), kMinLatency)));
  platform["link"] = link;
  return platform;
}

void SimulatePanel::platformChanged() {
  const QJsonObject platform = editedPlatform();
  if (platform == project_.platform) return;
  emit platformEdited(platform);  // the window makes it an undoable edit, then calls setProject
}

void SimulatePanel::schedule() {
  stale_ = true;
  if (isVisible()) debounce_->start();
}

void SimulatePanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) debounce_->start();
}

bool SimulatePanel::isSimulating() const { return watcher_->isRunning() || debounce_->isActive(); }

void SimulatePanel::start() {
  if (watcher_->isRunning()) {
    pending_ = true;
    return;
  }
  stale_ = false;
  const QByteArray project_text = QJsonDocument(project_.toJson()).toJson(QJsonDocument::Compact);
  const QByteArray platform_text = QJsonDocument(editedPlatform()).toJson(QJsonDocument::Compact);
  std::vector<sim::SimulationConfig> configs;
  for (int workers = 1;; workers *= 2) {
    sim::SimulationConfig config;
    config.workers = std::min(workers, workers_->value());
    config.ps = ps_->value();
    config.sync = sync_->isChecked();
    config.steps = 40;
    configs.push_back(config);
    if (config.workers == workers_->value()) break;
  }
  const sim::Calibration calibration = calibration_;
  summary_->setText(tr("Simulating..."));
  watcher_->setFuture(QtConcurrent::run([project_text, platform_text, calibration, configs]() {
    Outcome outcome;
    StatusOr<sim::SimProject> project = sim::SimProject::FromJsonText(project_text.toStdString(), "the project");
    StatusOr<sim::PlatformSpec> platform = sim::PlatformSpec::FromJsonText(platform_text.toStdString(), "platform");
    if (!project.ok() || !platform.ok()) {
      outcome.error = Q(std::string((project.ok() ? platform.status() : project.status()).message()));
      return outcome;
    }
    sim::Simulator simulator(*project, *platform, calibration);
    for (StatusOr<sim::SimulationResult>& result : simulator.RunAll(configs)) {
      if (!result.ok()) {
        outcome.error = Q(std::string(result.status().message()));
        return outcome;
      }
      outcome.results.push_back(std::move(*result));
    }
    return outcome;
  }));
}

void SimulatePanel::finished() {
  const Outcome outcome = watcher_->result();
  if (pending_) {
    pending_ = false;
    start();
  }
  if (!outcome.error.isEmpty()) {
    results_.clear();
    summary_->setText(tr("The simulation failed: %1").arg(outcome.error));
    bottleneck_->clear();
    loads_->clear();
    emit simulated();
    return;
  }
  results_ = outcome.results;
  curve_->clear();
  chosen_->clear();
  double top = 0;
  for (const sim::SimulationResult& r : results_) {
    curve_->append(r.config.workers, r.total_steps_per_second);
    top = std::max(top, r.total_steps_per_second);
  }
  x_axis_->setRange(1, std::max(2, results_.empty() ? 2 : results_.back().config.workers));
  y_axis_->setRange(0, top > 0 ? top * 1.1 : 1);
  if (!results_.empty()) chosen_->append(results_.back().config.workers, results_.back().total_steps_per_second);
  summary_->setText(summaryText());
  bottleneck_->setText(bottleneckText());
  QStringList busiest;
  if (!results_.empty()) {
    std::vector<sim::ResourceLoad> loads = results_.back().resources;
    std::sort(loads.begin(), loads.end(), [](const auto& a, const auto& b) { return a.mean > b.mean; });
    for (size_t i = 0; i < loads.size() && i < 4; ++i) busiest << Q(loads[i].name) + " " + Percent(loads[i].mean);
  }
  loads_->setText(busiest.isEmpty() ? QString() : tr("Busiest: %1").arg(busiest.join(", ")));
  emit simulated();
}

QString SimulatePanel::summaryText() const {
  if (results_.empty()) return QString();
  const sim::SimulationResult& r = results_.back();
  const double step = r.MeanStepSeconds();
  return tr("%1 workers, %2 ps: %3 steps/s in all, %4 per worker; a step of %5 ms is %6 compute, %7 transfer, "
            "%8 waiting.")
      .arg(r.config.workers)
      .arg(r.config.ps)
      .arg(r.total_steps_per_second, 0, 'f', 1)
      .arg(r.total_steps_per_second / r.config.workers, 0, 'f', 1)
      .arg(step * 1e3, 0, 'f', 2)
      .arg(Percent(step > 0 ? r.MeanCompute() / step : 0), Percent(step > 0 ? r.MeanTransfer() / step : 0),
           Percent(step > 0 ? r.MeanWaiting() / step : 0));
}

QString SimulatePanel::bottleneckText() const { return results_.empty() ? QString() : sayBottleneck(results_.back()); }

QString SimulatePanel::sayBottleneck(const sim::SimulationResult& r) const {
  using Kind = sim::Bottleneck::Kind;
  const QString owner = Q(r.bottleneck_owner);
  switch (static_cast<Kind>(r.bottleneck_kind)) {
    case Kind::kPsNic:
      return r.bottleneck_tensor.empty()
                 ? tr("%1's NIC is %2 busy and carries %3 of the step's bytes: add a ps.")
                       .arg(owner, Percent(r.bottleneck_utilisation), Percent(r.bottleneck_share))
                 : tr("%1's NIC is %2 busy and carries %3 of the step's bytes: add a ps or partition %4.")
                       .arg(owner, Percent(r.bottleneck_utilisation), Percent(r.bottleneck_share),
                            Q(r.bottleneck_tensor));
    case Kind::kPsCpu:
      return tr("%1's CPU is %2 busy serving the workers' calls: add a ps or give it more or faster cores.")
          .arg(owner, Percent(r.bottleneck_utilisation));
    case Kind::kSharedCpu:
      return tr("The cores %1 share are %2 busy: more cores or fewer tasks per host.")
          .arg(owner, Percent(r.bottleneck_utilisation));
    case Kind::kWorkerNic:
      return tr("The workers' NICs are %1 busy moving weights and gradients: faster worker links.")
          .arg(Percent(r.bottleneck_utilisation));
    case Kind::kSharedLink:
      return tr("%1 is %2 busy: every step's bytes cross it; a faster switch or uplink.")
          .arg(Q(r.bottleneck_resource), Percent(r.bottleneck_utilisation));
    case Kind::kSlowestWorker:
      return tr("Synchronous steps wait for the slowest worker: %1's compute takes %2x the others'.")
          .arg(owner)
          .arg(r.bottleneck_share, 0, 'f', 1);
    case Kind::kCompute:
      return tr("The workers' own compute is %1 of a step: more workers add throughput, faster ones shorten the "
                "step.")
          .arg(Percent(r.bottleneck_share));
    case Kind::kLatency:
      return tr("No part of the cluster is busy: a step waits on its %1 calls' round trips; fewer calls or "
                "shorter latency help.")
          .arg(r.calls_per_step);
  }
  return Q(r.bottleneck);
}

}  // namespace clab::ui
