// The teaching mode's side panel on the Graph tab: prepares one distributed step of the
// shown graph (StepWalkthrough, on a private in-process cluster), then walks through it:
// the master's phases (prune, place, partition, register, run) with an explanation of each
// and, in the run phase, the nodes one at a time as the trace recorded them, with tokens
// on the canvas. Play, pause, step, back and a speed control; the language of the
// explanations (English or Chinese); the timeline of the traced steps.
#pragma once

#include "project/Project.h"
#include "teach/StepWalkthrough.h"
#include "teach/TeachingText.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;
class QTextBrowser;
class QTimer;

namespace clab::ui {

class GraphDocument;
class GraphScene;
class TeachingStage;

class TeachingPanel : public QWidget {
  Q_OBJECT

 public:
  TeachingPanel(GraphDocument* document, GraphScene* scene, QWidget* parent = nullptr);
  ~TeachingPanel() override;

  // The cluster to run on; `graph_replaced` (another graph was loaded) forgets the
  // walkthrough and guesses what a step runs again.
  void setProject(const Project& project, bool graph_replaced);
  // Builds the walkthrough in the background; ready() or failed() follows.
  void prepare();
  bool isReady() const { return walk_ != nullptr; }
  const StepWalkthrough* walkthrough() const { return walk_.get(); }
  TeachingStage* stage() const { return stage_; }

  // Moves one phase forward, or one node forward in the run phase.
  void step();
  void back();
  void play();
  void pause();
  bool isPlaying() const;
  // 0.25 to 4 (times the normal pace).
  void setSpeed(double speed);
  TeachingPhase phase() const { return phase_; }
  // In the run phase: the execution shown, -1 before the first.
  int executionIndex() const { return execution_; }
  int executionCount() const;
  // The phases reported so far in this walkthrough, in order (for tests and the lesson log).
  const QList<TeachingPhase>& phasesSeen() const { return seen_; }
  QString explanationHtml() const;
  QString phaseTitle() const;

  // Opens the timeline of the traced steps.
  void showTimeline();

 signals:
  void ready();
  void failed(const QString& message);
  void phaseChanged(clab::ui::TeachingPhase phase);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslate();
  void goTo(TeachingPhase phase, int execution);
  void render();

  GraphDocument* document_;
  GraphScene* scene_;
  TeachingStage* stage_;
  Project project_;
  std::unique_ptr<StepWalkthrough> walk_;
  TeachingPhase phase_ = TeachingPhase::kPrune;
  int execution_ = -1;
  QList<TeachingPhase> seen_;
  double speed_ = 1.0;
  bool preparing_ = false;

  QLabel* title_;
  QLabel* fetch_label_;
  QLineEdit* fetches_;
  QLabel* init_label_;
  QLineEdit* init_;
  QPushButton* prepare_;
  QListWidget* phases_;
  QTextBrowser* text_;
  QPushButton* back_;
  QPushButton* play_;
  QPushButton* step_;
  QLabel* speed_label_;
  QSlider* speed_slider_;
  QLabel* position_;
  QLabel* language_label_;
  QComboBox* language_;
  QPushButton* timeline_;
  QLabel* status_;
  QTimer* timer_;
};

}  // namespace clab::ui
