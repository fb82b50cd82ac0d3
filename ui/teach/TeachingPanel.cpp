#include "teach/TeachingPanel.h"

#include "graph/GraphDocument.h"
#include "graph/GraphScene.h"
#include "teach/TeachingStage.h"
#include "teach/TimelineView.h"
#include "translations/StudioLanguage.h"
#include "window/ScreenFit.h"

#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QPushButton>
#include <QScrollBar>
#include <QSlider>
#include <QTextBrowser>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace clab::ui {
namespace {

constexpr TeachingPhase kPhases[] = {TeachingPhase::kPrune,    TeachingPhase::kPlace, TeachingPhase::kPartition,
                                     TeachingPhase::kRegister, TeachingPhase::kRun,   TeachingPhase::kDone};

QStringList Split(const QString& text) {
  QStringList out;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts))
    if (!part.trimmed().isEmpty()) out << part.trimmed();
  return out;
}

QMap<QString, QStringList> TasksOf(const Project& project) {
  QMap<QString, QStringList> tasks;
  for (const QString& job : project.jobs())
    for (const ProjectTask& task : project.tasksOf(job)) tasks[job] << task.address();
  return tasks;
}

}  // namespace

TeachingPanel::TeachingPanel(GraphDocument* document, GraphScene* scene, QWidget* parent)
    : QWidget(parent), document_(document), scene_(scene), stage_(new TeachingStage(scene, this)) {
  setObjectName("teaching-panel");
  title_ = new QLabel(this);
  fetch_label_ = new QLabel(this);
  fetches_ = new QLineEdit(this);
  fetches_->setObjectName("teach-fetches");
  init_label_ = new QLabel(this);
  init_ = new QLineEdit(this);
  init_->setObjectName("teach-init");
  prepare_ = new QPushButton(this);
  prepare_->setObjectName("teach-prepare");
  phases_ = new QListWidget(this);
  phases_->setObjectName("teach-phases");
  phases_->setMaximumHeight(6 * (fontMetrics().height() + 3) + 8);
  text_ = new QTextBrowser(this);
  text_->setObjectName("teach-text");
  text_->setOpenExternalLinks(false);
  back_ = new QPushButton(this);
  play_ = new QPushButton(this);
  play_->setObjectName("teach-play");
  step_ = new QPushButton(this);
  step_->setObjectName("teach-step");
  speed_label_ = new QLabel(this);
  speed_slider_ = new QSlider(Qt::Horizontal, this);
  speed_slider_->setRange(-2, 2);  // 2^n: 0.25x .. 4x
  speed_slider_->setValue(0);
  position_ = new QLabel(this);
  language_label_ = new QLabel(this);
  language_ = new QComboBox(this);
  language_->setObjectName("teach-language");
  language_->addItem("English", "en");
  language_->addItem(QString::fromUtf8("中文"), "zh_CN");
  timeline_ = new QPushButton(this);
  timeline_->setObjectName("teach-timeline");
  timeline_->setObjectName("teach-timeline");
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setStyleSheet("color: #b00000;");
  timer_ = new QTimer(this);

  auto* form = new QFormLayout;
  form->addRow(fetch_label_, fetches_);
  form->addRow(init_label_, init_);
  auto* controls = new QHBoxLayout;
  controls->addWidget(back_);
  controls->addWidget(play_);
  controls->addWidget(step_);
  auto* speed = new QHBoxLayout;
  speed->addWidget(speed_label_);
  speed->addWidget(speed_slider_, 1);
  speed->addWidget(position_);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(language_label_);
  bottom->addWidget(language_);
  bottom->addStretch(1);
  bottom->addWidget(timeline_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(title_);
  layout->addLayout(form);
  layout->addWidget(prepare_);
  layout->addWidget(phases_);
  layout->addWidget(text_, 1);
  layout->addLayout(controls);
  layout->addLayout(speed);
  layout->addLayout(bottom);
  layout->addWidget(status_);

  connect(prepare_, &QPushButton::clicked, this, &TeachingPanel::prepare);
  connect(step_, &QPushButton::clicked, this, [this] {
    pause();
    step();
  });
  connect(back_, &QPushButton::clicked, this, [this] {
    pause();
    back();
  });
  connect(play_, &QPushButton::clicked, this, [this] { isPlaying() ? pause() : play(); });
  connect(speed_slider_, &QSlider::valueChanged, this, [this](int value) { setSpeed(std::pow(2.0, value)); });
  connect(timer_, &QTimer::timeout, this, [this] {
    if (phase_ == TeachingPhase::kDone) {
      pause();
      return;
    }
    step();
  });
  connect(phases_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    if (!walk_) return;
    pause();
    goTo(kPhases[phases_->row(item)], -1);
  });
  connect(language_, &QComboBox::activated, this,
          [this](int index) { StudioLanguage::set(language_->itemData(index).toString()); });
  connect(timeline_, &QPushButton::clicked, this, &TeachingPanel::showTimeline);
  retranslate();
}

TeachingPanel::~TeachingPanel() {
  // The stage draws on the walkthrough: let it go first.
  stage_->setWalkthrough(nullptr);
}

void TeachingPanel::setProject(const Project& project, bool graph_replaced) {
  project_ = project;
  if (graph_replaced) {
    pause();
    stage_->setWalkthrough(nullptr);
    walk_.reset();
    seen_.clear();
    render();
  }
  if (graph_replaced || fetches_->text().isEmpty()) {
    fetches_->setText(StepWalkthrough::guessFetches(document_->graph()).join(", "));
    init_->setText(StepWalkthrough::guessInit(document_->graph()).join(", "));
  }
}

void TeachingPanel::prepare() {
  if (preparing_) return;
  pause();
  stage_->setWalkthrough(nullptr);
  walk_.reset();
  seen_.clear();
  status_->clear();
  if (fetches_->text().trimmed().isEmpty())
    fetches_->setText(StepWalkthrough::guessFetches(document_->graph()).join(", "));
  preparing_ = true;
  prepare_->setEnabled(false);
  text_->setHtml("<p>" + tr("Running one traced step on a private cluster…").toHtmlEscaped() + "</p>");
  const QStringList fetches = Split(fetches_->text());
  auto result = std::make_shared<StatusOr<StepWalkthrough>>(errors::Internal("not run"));
  QThread* thread = QThread::create(
      [result, graph = document_->graph(), tasks = TasksOf(project_), fetches, init = Split(init_->text())] {
        *result = StepWalkthrough::build(graph, tasks, fetches, {}, init);
      });
  QPointer<TeachingPanel> self(this);
  connect(thread, &QThread::finished, thread, &QObject::deleteLater);  // also when the panel is gone
  connect(thread, &QThread::finished, this, [self, result] {
    if (!self) return;
    self->preparing_ = false;
    self->prepare_->setEnabled(true);
    if (!result->ok()) {
      const QString message = QString::fromStdString(std::string(result->status().message()));
      self->status_->setText(tr("Cannot walk through the step: %1").arg(message));
      self->text_->clear();
      emit self->failed(message);
      return;
    }
    self->walk_ = std::make_unique<StepWalkthrough>(std::move(**result));
    self->stage_->setWalkthrough(self->walk_.get());
    self->goTo(TeachingPhase::kPrune, -1);
    emit self->ready();
  });
  thread->start();
}

int TeachingPanel::executionCount() const { return walk_ ? static_cast<int>(walk_->executionsOf().size()) : 0; }

void TeachingPanel::goTo(TeachingPhase phase, int execution) {
  if (!walk_) return;
  const bool changed = phase != phase_ || seen_.isEmpty();
  phase_ = phase;
  execution_ = execution;
  if (changed) {
    seen_ << phase;
    emit phaseChanged(phase);
  }
  if (phase == TeachingPhase::kRun && execution >= 0) {
    const int token_ms = static_cast<int>(650 / speed_);
    stage_->showExecution(execution, token_ms);
  } else {
    stage_->showPhase(phase);
  }
  render();
}

void TeachingPanel::step() {
  if (!walk_) return;
  if (phase_ == TeachingPhase::kRun && execution_ + 1 < executionCount()) {
    goTo(TeachingPhase::kRun, execution_ + 1);
    return;
  }
  if (phase_ == TeachingPhase::kDone) return;
  goTo(static_cast<TeachingPhase>(static_cast<int>(phase_) + 1), -1);
}

void TeachingPanel::back() {
  if (!walk_) return;
  if (phase_ == TeachingPhase::kRun && execution_ >= 0) {
    goTo(TeachingPhase::kRun, execution_ - 1);
    return;
  }
  if (phase_ == TeachingPhase::kPrune) return;
  const auto previous = static_cast<TeachingPhase>(static_cast<int>(phase_) - 1);
  goTo(previous, previous == TeachingPhase::kRun ? executionCount() - 1 : -1);
}

void TeachingPanel::play() {
  if (!walk_) return;
  if (phase_ == TeachingPhase::kDone) goTo(TeachingPhase::kPrune, -1);
  timer_->start(static_cast<int>(900 / speed_));
  render();
}

void TeachingPanel::pause() {
  timer_->stop();
  render();
}

bool TeachingPanel::isPlaying() const { return timer_->isActive(); }

void TeachingPanel::setSpeed(double speed) {
  speed_ = std::clamp(speed, 0.25, 4.0);
  if (timer_->isActive()) timer_->start(static_cast<int>(900 / speed_));
  render();
}

QString TeachingPanel::explanationHtml() const { return text_->toHtml(); }

QString TeachingPanel::phaseTitle() const { return TeachingText::phaseName(phase_); }

void TeachingPanel::render() {
  phases_->clear();
  for (TeachingPhase phase : kPhases) {
    auto* item = new QListWidgetItem(TeachingText::phaseName(phase), phases_);
    QFont font = item->font();
    font.setBold(walk_ && phase == phase_);
    item->setFont(font);
    if (!walk_) item->setFlags(Qt::NoItemFlags);
  }
  if (walk_) phases_->setCurrentRow(static_cast<int>(phase_));
  play_->setText(isPlaying() ? tr("Pause") : tr("Play"));
  speed_label_->setText(tr("Speed %1x").arg(speed_));
  for (QWidget* w : {static_cast<QWidget*>(back_), static_cast<QWidget*>(play_), static_cast<QWidget*>(step_),
                     static_cast<QWidget*>(timeline_)})
    w->setEnabled(walk_ != nullptr);
  if (!walk_) {
    position_->clear();
    if (!preparing_ && status_->text().isEmpty())
      text_->setHtml("<p>" +
                     tr("Walk through one distributed step of this graph: choose what the step fetches, then "
                        "press \"Walk through one step\".")
                         .toHtmlEscaped() +
                     "</p>");
    return;
  }
  QString html = TeachingText::explainPhase(phase_, *walk_);
  if (phase_ == TeachingPhase::kRun) {
    const QList<WalkExecution> run = walk_->executionsOf();
    position_->setText(tr("node %1 of %2").arg(execution_ + 1).arg(run.size()));
    QStringList lines;
    for (int i = 0; i <= execution_ && i < run.size(); ++i) {
      const QString line = TeachingText::explainExecution(run[i], *walk_);
      lines << (i == execution_ ? "<div style='background:#fff3c0'>" + line + "</div>" : line);
    }
    html += "<p>" + lines.join("<br>") + "</p>";
  } else {
    position_->clear();
  }
  text_->setHtml(html);
  // Keep the node being run in sight.
  if (phase_ == TeachingPhase::kRun) text_->verticalScrollBar()->setValue(text_->verticalScrollBar()->maximum());
}

void TeachingPanel::showTimeline() {
  if (!walk_) return;
  // A window of its own that belongs to the studio's: on the studio's screen, closed with
  // it or with Escape.
  auto* view = new TimelineView(walk_->step_stats, this);
  view->setWindowFlag(Qt::Window);
  view->setAttribute(Qt::WA_DeleteOnClose);
  view->setWindowTitle(tr("Timeline of the traced steps"));
  if (window()->screen()) view->setScreen(window()->screen());
  FitToScreen(view, {900, 420});
  view->show();
  view->raise();
  view->activateWindow();
}

void TeachingPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslate();
  QWidget::changeEvent(event);
}

void TeachingPanel::retranslate() {
  title_->setText("<b>" + tr("Teaching mode: one distributed step").toHtmlEscaped() + "</b>");
  fetch_label_->setText(tr("Step runs:"));
  fetches_->setToolTip(tr("Tensors to fetch and nodes to run in the step, separated by commas"));
  init_label_->setText(tr("Run once first:"));
  prepare_->setText(tr("Walk through one step"));
  back_->setText(tr("Back"));
  step_->setText(tr("Step"));
  language_label_->setText(tr("Language:"));
  language_->setCurrentIndex(language_->findData(StudioLanguage::current()));
  timeline_->setText(tr("Timeline…"));
  render();
}

}  // namespace clab::ui
