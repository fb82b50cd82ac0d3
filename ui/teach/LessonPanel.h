// The guided lessons' panel: choose a lesson, read its pages one by one, and let the studio
// do what a page shows (the button emits actionRequested; the window performs it and says
// whether it worked with showOutcome).
#pragma once

#include "teach/Lessons.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace clab::ui {

class LessonPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LessonPanel(QWidget* parent = nullptr);

  const QList<Lesson>& lessons() const { return lessons_; }
  int lessonIndex() const { return lesson_; }
  int pageIndex() const { return page_; }
  const LessonPage& currentPage() const;
  void setLesson(int index);
  void setPage(int index);
  void next();
  void previous();
  // Performs the current page's action (emits actionRequested).
  void doAction();
  // The outcome of the last action: empty for success, else the reason it failed.
  void showOutcome(const QString& error);
  QString pageText() const;
  // What showOutcome last said ("Done." or the reason).
  QString outcome() const;

 signals:
  void actionRequested(const clab::ui::LessonPage& page);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void render();

  QList<Lesson> lessons_;
  int lesson_ = 0;
  int page_ = 0;
  QComboBox* chooser_;
  QLabel* title_;
  QTextBrowser* text_;
  QPushButton* action_;
  QPushButton* previous_;
  QPushButton* next_;
  QLabel* position_;
  QLabel* outcome_;
};

}  // namespace clab::ui
