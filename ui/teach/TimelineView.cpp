#include "teach/TimelineView.h"

#include "clab/train/ChromeTrace.h"

#include <QFileDialog>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <limits>

namespace clab::ui {
namespace {

constexpr qreal kLaneHeight = 26;
constexpr qreal kLabelWidth = 250;

bool IsTransfer(const std::string& label) {
  for (const char* op : {"= _Send(", "= _Recv(", "= _PackTensors(", "= _UnpackTensors("})
    if (label.find(op) != std::string::npos) return true;
  return false;
}

QString Short(const std::string& device) {
  QString s = QString::fromStdString(device);
  return s.replace("/replica:0", "").replace("/device:", " ");
}

}  // namespace

TimelineView::TimelineView(QList<tensorflow::StepStats> steps, QWidget* parent)
    : QWidget(parent), steps_(std::move(steps)), scene_(new QGraphicsScene(this)), view_(new QGraphicsView(scene_, this)) {
  setObjectName("timeline");
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  view_->viewport()->installEventFilter(this);
  summary_ = new QLabel(this);
  auto* zoom_in = new QPushButton(tr("Zoom in"), this);
  auto* zoom_out = new QPushButton(tr("Zoom out"), this);
  auto* export_button = new QPushButton(tr("Export Chrome trace…"), this);
  connect(zoom_in, &QPushButton::clicked, this, [this] { zoom(1.5); });
  connect(zoom_out, &QPushButton::clicked, this, [this] { zoom(1 / 1.5); });
  connect(export_button, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chrome trace"), "timeline.json",
                                                      tr("Chrome trace (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportChromeTrace(path, &error)) QMessageBox::warning(this, tr("Export"), error);
  });
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(summary_, 1);
  buttons->addWidget(zoom_in);
  buttons->addWidget(zoom_out);
  buttons->addWidget(export_button);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addWidget(view_, 1);
  // Start with the whole run about 600 pixels wide.
  int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
  for (const auto& step : steps_)
    for (const auto& device : step.dev_stats())
      for (const auto& node : device.node_stats()) {
        first = std::min<int64_t>(first, node.all_start_micros());
        last = std::max<int64_t>(last, node.all_start_micros() + node.all_end_rel_micros());
      }
  if (last > first) scale_ = 600.0 / static_cast<double>(last - first);
  draw();
}

tensorflow::StepStats TimelineView::merged() const {
  tensorflow::StepStats all;
  for (const auto& step : steps_)
    for (const auto& device : step.dev_stats()) {
      tensorflow::DeviceStepStats* into = nullptr;
      for (auto& existing : *all.mutable_dev_stats())
        if (existing.device() == device.device()) into = &existing;
      if (!into) {
        into = all.add_dev_stats();
        into->set_device(device.device());
      }
      for (const auto& node : device.node_stats()) *into->add_node_stats() = node;
    }
  return all;
}

bool TimelineView::exportChromeTrace(const QString& path, QString* error) const {
  QSaveFile file(path);
  const std::string json = StepStatsToChromeTrace(merged());
  if (!file.open(QIODevice::WriteOnly) || file.write(json.data(), static_cast<qint64>(json.size())) < 0 ||
      !file.commit()) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

void TimelineView::zoom(double factor) {
  scale_ = std::clamp(scale_ * factor, 1e-4, 200.0);
  draw();
}

bool TimelineView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Wheel) {
    zoom(static_cast<QWheelEvent*>(event)->angleDelta().y() > 0 ? 1.25 : 0.8);
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

void TimelineView::draw() {
  scene_->clear();
  lanes_.clear();
  compute_bars_ = transfer_bars_ = 0;
  const tensorflow::StepStats all = merged();
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const auto& device : all.dev_stats())
    for (const auto& node : device.node_stats()) origin = std::min<int64_t>(origin, node.all_start_micros());
  int64_t span = 0;
  for (int lane = 0; lane < all.dev_stats_size(); ++lane) {
    const auto& device = all.dev_stats(lane);
    lanes_ << Short(device.device());
    const qreal y = lane * kLaneHeight;
    auto* name = scene_->addSimpleText(lanes_.last());
    name->setPos(0, y + 5);
    scene_->addLine(kLabelWidth, y + kLaneHeight, kLabelWidth + 10000, y + kLaneHeight, QPen(QColor(225, 225, 225)));
    for (const auto& node : device.node_stats()) {
      const int64_t start = node.all_start_micros() - origin;
      const int64_t length = std::max<int64_t>(node.all_end_rel_micros(), 1);
      span = std::max(span, start + length);
      const bool transfer = IsTransfer(node.timeline_label());
      auto* bar = scene_->addRect(kLabelWidth + start * scale_, y + 4, std::max(length * scale_, 2.0), kLaneHeight - 8,
                                  QPen(Qt::NoPen), transfer ? QColor(240, 140, 30) : QColor(60, 120, 210));
      bar->setToolTip(QStringLiteral("%1\n%2\n%3 us")
                          .arg(QString::fromStdString(node.node_name()), QString::fromStdString(node.timeline_label()))
                          .arg(length));
      (transfer ? transfer_bars_ : compute_bars_)++;
    }
  }
  summary_->setText(tr("%1 step(s), %2 device(s), %3 us; blue: compute, orange: transfer")
                        .arg(steps_.size())
                        .arg(all.dev_stats_size())
                        .arg(span));
  scene_->setSceneRect(0, -4, kLabelWidth + span * scale_ + 20, all.dev_stats_size() * kLaneHeight + 8);
}

}  // namespace clab::ui
