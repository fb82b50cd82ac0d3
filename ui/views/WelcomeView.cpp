#include "views/WelcomeView.h"

#include <QCommandLinkButton>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QVBoxLayout>

namespace clab::ui {

WelcomeView::WelcomeView(QWidget* parent) : QWidget(parent) {
  auto* intro = new QLabel(
      "<h2>ClusterLab Studio</h2>"
      "<p>Design a cluster of parameter servers and workers, run it on this machine (every task its own "
      "process, talking gRPC) or attach to one running on real hosts, and watch training live: each task's "
      "state, the global step and its rate, the loss, where every op runs, the bytes on every link, "
      "checkpoints. Right-click a task to kill or restart it and watch the workers recover.</p>"
      "<p>Start from an example, then press <b>F5</b> to run it.</p>",
      this);
  intro->setWordWrap(true);
  auto example = [this](const QString& title, const QString& text, const QString& id) {
    auto* button = new QCommandLinkButton(title, text, this);
    connect(button, &QCommandLinkButton::clicked, this, [this, id] { emit exampleChosen(id); });
    return button;
  };
  recent_ = new QListWidget(this);
  recent_->setMaximumHeight(140);
  connect(recent_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { emit recentChosen(item->text()); });
  // Scrolled when the tab is shorter than its text (a small or high-DPI screen).
  auto* content = new QWidget(this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(16, 12, 16, 12);
  layout->addWidget(intro);
  layout->addWidget(
      example("The seed tutorial", "x . w on a ps and a worker, 200 steps: the placement log and [[20]]", "seed"));
  layout->addWidget(
      example("The seed on two workers", "20,000 steps on a ps and two workers sharing w", "seed-two-workers"));
  layout->addWidget(example("Real training: handwritten digits",
                            "a 64-128-10 MLP trained by two workers against a ps; the loss falls", "digits-mlp"));
  layout->addWidget(new QLabel("<b>Recent projects</b> (double-click to open)", this));
  layout->addWidget(recent_);
  layout->addStretch(1);
  scroll->setWidget(content);
}

void WelcomeView::setRecent(const QStringList& paths) {
  recent_->clear();
  recent_->addItems(paths);
  if (paths.isEmpty()) recent_->addItem("(none yet: File > Save As writes a .clab project)");
}

}  // namespace clab::ui
