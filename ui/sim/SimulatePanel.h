// The studio's Simulate tab: the open project predicted on a cluster this machine cannot
// hold. A what-if panel (workers, ps, the hosts' cores and speed, the links' bandwidth and
// latency, synchronous or not) drives the simulator (sim/) in the background; the curve of
// steps/s against workers, the chosen configuration's breakdown and busiest parts, and its
// bottleneck in plain words come back. Host and link settings are the project's platform:
// editing them is an undoable edit of the project (platformEdited), saved with it.
#pragma once

#include "calibration/Calibration.h"
#include "project/Project.h"
#include "run/SimulationResult.h"

#include <QFutureWatcher>
#include <QJsonObject>
#include <QWidget>

#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineSeries;
class QSlider;
class QSpinBox;
class QTimer;
class QChart;
class QScatterSeries;
class QValueAxis;
class QLogValueAxis;

namespace clab::ui {

class SimulatePanel : public QWidget {
  Q_OBJECT

 public:
  explicit SimulatePanel(QWidget* parent = nullptr);
  ~SimulatePanel() override;

  void setProject(const Project& project);
  // The what-if settings that are not the project's (a lesson sets them).
  void setWhatIf(int workers, int ps, bool sync);
  bool isSimulating() const;
  // The curve's configurations, 1, 2, 4, ... workers; the last is the chosen one.
  const std::vector<sim::SimulationResult>& results() const { return results_; }
  QString summaryText() const;
  QString bottleneckText() const;

 protected:
  // The simulations run only while the tab shows: edits elsewhere cost nothing.
  void showEvent(QShowEvent* event) override;

 signals:
  void platformEdited(const QJsonObject& platform);
  void simulated();

 private:
  struct Outcome {
    std::vector<sim::SimulationResult> results;
    QString error;
  };
  void buildLayout();
  void showPlatform();
  void platformChanged();
  void schedule();
  void start();
  void finished();
  QJsonObject editedPlatform() const;
  QString sayBottleneck(const sim::SimulationResult& result) const;

  Project project_;
  sim::Calibration calibration_ = sim::Calibration::Uncalibrated();
  QString calibration_path_;
  std::vector<sim::SimulationResult> results_;
  bool pending_ = false;  // settings changed while a simulation ran
  bool stale_ = true;     // the results are not those of the current settings

  QSpinBox* workers_ = nullptr;
  QSpinBox* ps_ = nullptr;
  QCheckBox* sync_ = nullptr;
  QSpinBox* cores_ = nullptr;
  QDoubleSpinBox* speed_ = nullptr;
  QSlider* bandwidth_ = nullptr;
  QSlider* latency_ = nullptr;
  QLabel* bandwidth_label_ = nullptr;
  QLabel* latency_label_ = nullptr;
  QLabel* calibration_label_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* bottleneck_ = nullptr;
  QLabel* loads_ = nullptr;
  QChart* chart_ = nullptr;
  QLineSeries* curve_ = nullptr;
  QScatterSeries* chosen_ = nullptr;
  QLogValueAxis* x_axis_ = nullptr;
  QValueAxis* y_axis_ = nullptr;
  QTimer* debounce_ = nullptr;
  QFutureWatcher<Outcome>* watcher_ = nullptr;
};

}  // namespace clab::ui
