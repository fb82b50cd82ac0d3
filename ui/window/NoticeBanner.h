// A strip across the top of the window's canvas and dashboard that says what went wrong
// (a Run that was refused, tasks that cannot be watched) without stopping the class as a
// modal box would: the text, at most one action button ("Run here on 127.0.0.1") and a
// close button. Hidden until something is said; a new notice replaces the last.
#pragma once

#include <QFrame>
#include <QMap>

#include <functional>

class QLabel;
class QPushButton;

namespace clab::ui {

class NoticeBanner : public QFrame {
  Q_OBJECT

 public:
  explicit NoticeBanner(QWidget* parent = nullptr);

  // Text made in the current language: called when shown and again after a language change.
  using Text = std::function<QString()>;

  // Shows `text` (plain text); with `action_label`, a button that runs `action` and closes
  // the banner.
  void showNotice(const QString& text, const QString& action_label = {}, std::function<void()> action = {});
  void showNotice(Text text, Text action_label = {}, std::function<void()> action = {});
  void dismiss();
  QString text() const;
  // The action button's text ("" when the notice has none).
  QString actionText() const;
  void triggerAction();
  // The list of tasks that cannot be watched, one line per task: sets the line for `task`,
  // or removes it when `line` is empty. The banner shows the list while it has lines and no
  // other notice has replaced it, and hides it when the last line goes.
  void setTaskProblem(const QString& task, Text line);
  // Forgets the list and any notice (a new run, a new project).
  void clearAll();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void showTexts();

  QLabel* text_;
  QPushButton* action_;
  QPushButton* close_;
  std::function<void()> callback_;
  Text text_fn_;
  Text action_fn_;
  QMap<QString, Text> task_problems_;
  bool showing_task_problems_ = false;
};

}  // namespace clab::ui
