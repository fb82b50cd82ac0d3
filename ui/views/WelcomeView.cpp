#include "views/WelcomeView.h"

#include "translations/Retranslate.h"

#include <QCommandLinkButton>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QVBoxLayout>

namespace clab::ui {

WelcomeView::WelcomeView(QWidget* parent) : QWidget(parent) {
  auto* intro = new QLabel(this);
  intro->setWordWrap(true);
  auto example = [this](const QString& id) {
    auto* button = new QCommandLinkButton(this);
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
  QCommandLinkButton* seed = example("seed");
  QCommandLinkButton* seed_two = example("seed-two-workers");
  QCommandLinkButton* digits = example("digits-mlp");
  auto* recent_title = new QLabel(this);
  layout->addWidget(seed);
  layout->addWidget(seed_two);
  layout->addWidget(digits);
  layout->addWidget(recent_title);
  layout->addWidget(recent_);
  layout->addStretch(1);
  new Retranslate(this, [=, this] {
    intro->setText(
        tr("<h2>ClusterLab Studio</h2>"
           "<p>Design a cluster of parameter servers and workers, run it on this machine (every task its own "
           "process, talking gRPC) or attach to one running on real hosts, and watch training live: each task's "
           "state, the global step and its rate, the loss, where every op runs, the bytes on every link, "
           "checkpoints. Right-click a task to kill or restart it and watch the workers recover.</p>"
           "<p>Start from an example, then press <b>F5</b> to run it.</p>"));
    seed->setText(tr("The seed tutorial"));
    seed->setDescription(tr("x . w on a ps and a worker, 200 steps: the placement log and [[20]]"));
    seed_two->setText(tr("The seed on two workers"));
    seed_two->setDescription(tr("20,000 steps on a ps and two workers sharing w"));
    digits->setText(tr("Real training: handwritten digits"));
    digits->setDescription(tr("a 64-128-10 MLP trained by two workers against a ps; the loss falls"));
    recent_title->setText(tr("<b>Recent projects</b> (double-click to open)"));
    setRecent(recent_paths_);
  });
  scroll->setWidget(content);
}

void WelcomeView::setRecent(const QStringList& paths) {
  recent_paths_ = paths;
  recent_->clear();
  recent_->addItems(paths);
  if (paths.isEmpty()) recent_->addItem(tr("(none yet: File > Save As writes a .clab project)"));
}

}  // namespace clab::ui
