#include "teach/TimelineView.h"

#include <QFontMetricsF>
#include <QShortcut>

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
#include <cmath>
#include <limits>
#include <vector>

namespace clab::ui {
namespace {

constexpr qreal kLaneHeight = 26;
constexpr qreal kLabelWidth = 250;
// A bar narrower than this shows no name (its tooltip has it).
constexpr qreal kMinLabelPixels = 24;

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
    : QWidget(parent), steps_(std::move(steps)), scene_(new QGraphicsScene(this)),
      view_(new QGraphicsView(scene_, this)) {
  setObjectName("timeline");
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  view_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  view_->viewport()->installEventFilter(this);
  summary_ = new QLabel(this);
  auto* zoom_in = new QPushButton(tr("Zoom in"), this);
  auto* zoom_out = new QPushButton(tr("Zoom out"), this);
  auto* export_button = new QPushButton(tr("Export Chrome trace…"), this);
  connect(zoom_in, &QPushButton::clicked, this, [this] { zoom(1.5); });
  connect(zoom_out, &QPushButton::clicked, this, [this] { zoom(1 / 1.5); });
  connect(export_button, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Chrome trace"), "timeline.json", tr("Chrome trace (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportChromeTrace(path, &error)) QMessageBox::warning(this, tr("Export"), error);
  });
  // Escape closes the timeline, as it closes a dialog.
  auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
  escape->setContext(Qt::WindowShortcut);
  connect(escape, &QShortcut::activated, this, &QWidget::close);
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
  compute_bars_ = transfer_bars_ = labelled_bars_ = 0;
  QFont bar_font = font();
  bar_font.setPointSizeF(bar_font.pointSizeF() * 0.85);
  const QFontMetricsF metrics(bar_font);
  const tensorflow::StepStats all = merged();
  int64_t origin = std::numeric_limits<int64_t>::max();
  int64_t span = 0;
  for (const auto& device : all.dev_stats())
    for (const auto& node : device.node_stats()) origin = std::min<int64_t>(origin, node.all_start_micros());
  for (const auto& device : all.dev_stats())
    for (const auto& node : device.node_stats())
      span =
          std::max<int64_t>(span, node.all_start_micros() - origin + std::max<int64_t>(node.all_end_rel_micros(), 1));
  const double width = static_cast<double>(span) * scale_;

  // A time axis with round ticks (1, 2 or 5 times a power of ten microseconds).
  const double wanted = 90.0 / std::max(scale_, 1e-9);  // about 90 pixels apart
  double tick = std::pow(10.0, std::floor(std::log10(std::max(wanted, 1.0))));
  for (double factor : {2.0, 5.0, 10.0})
    if (tick < wanted) tick = std::pow(10.0, std::floor(std::log10(std::max(wanted, 1.0)))) * factor;
  for (double t = 0; t <= static_cast<double>(span); t += tick) {
    scene_->addLine(kLabelWidth + t * scale_, -4, kLabelWidth + t * scale_, 2, QPen(QColor(120, 120, 120)));
    auto* label = scene_->addSimpleText(QStringLiteral("%1 us").arg(t, 0, 'f', 0));
    label->setPos(kLabelWidth + t * scale_ + 2, -20);
    label->setBrush(QColor(100, 100, 100));
  }

  // One band per device, split into rows so that bars in a row never overlap (a _Recv waits
  // while other ops run).
  qreal y = 8;
  for (const auto& device : all.dev_stats()) {
    lanes_ << Short(device.device());
    std::vector<const tensorflow::NodeExecStats*> nodes;
    for (const auto& node : device.node_stats()) nodes.push_back(&node);
    std::sort(nodes.begin(), nodes.end(),
              [](const auto* a, const auto* b) { return a->all_start_micros() < b->all_start_micros(); });
    std::vector<int64_t> row_end;
    const qreal top = y;
    for (const tensorflow::NodeExecStats* node : nodes) {
      const int64_t start = node->all_start_micros() - origin;
      const int64_t length = std::max<int64_t>(node->all_end_rel_micros(), 1);
      size_t row = 0;
      while (row < row_end.size() && row_end[row] > start) ++row;
      if (row == row_end.size()) row_end.push_back(0);
      row_end[row] = start + length;
      const bool transfer = IsTransfer(node->timeline_label());
      auto* bar = scene_->addRect(kLabelWidth + static_cast<double>(start) * scale_,
                                  top + static_cast<qreal>(row) * kLaneHeight + 4,
                                  std::max(static_cast<double>(length) * scale_, 2.0), kLaneHeight - 8, QPen(Qt::NoPen),
                                  transfer ? QColor(240, 140, 30) : QColor(60, 120, 210));
      bar->setToolTip(
          QStringLiteral("%1\n%2\n%3 us")
              .arg(QString::fromStdString(node->node_name()), QString::fromStdString(node->timeline_label()))
              .arg(length));
      (transfer ? transfer_bars_ : compute_bars_)++;
      // The node's name on the bar, as much of it as fits; a bar too short for a few letters
      // keeps its name in the tooltip until zoomed in.
      const QRectF room = bar->rect().adjusted(3, 0, -3, 0);
      const QString name = QString::fromStdString(node->node_name());
      const QString text = metrics.elidedText(name, Qt::ElideMiddle, static_cast<int>(room.width()));
      if (room.width() >= kMinLabelPixels && !text.isEmpty() && text != QStringLiteral("…")) {
        auto* label = new QGraphicsSimpleTextItem(text, bar);
        label->setFont(bar_font);
        label->setBrush(Qt::white);
        label->setData(0, name);
        label->setPos(room.left(), room.top() + (room.height() - metrics.height()) / 2);
        label->setToolTip(bar->toolTip());
        ++labelled_bars_;
      }
    }
    const qreal height = std::max<qreal>(1, static_cast<qreal>(row_end.size())) * kLaneHeight;
    auto* name = scene_->addSimpleText(lanes_.last());
    name->setPos(0, top + 5);
    scene_->addRect(kLabelWidth, top, width, height, QPen(QColor(225, 225, 225)), Qt::NoBrush)->setZValue(-1);
    y = top + height + 6;
  }
  summary_->setText(tr("%1 step(s), %2 device(s), %3 us; blue: compute, orange: transfer")
                        .arg(steps_.size())
                        .arg(all.dev_stats_size())
                        .arg(span));
  scene_->setSceneRect(0, -24, kLabelWidth + width + 20, y + 28);
}

}  // namespace clab::ui
