// A strip across the top of the window's canvas and dashboard that says what went wrong
// (a Run that was refused, tasks that cannot be watched) without stopping the class as a
// modal box would: the text, at most one action button ("Run here on 127.0.0.1") and a
// close button. Hidden until something is said; a new notice replaces the last.
#pragma once

#include <QFrame>

#include <functional>

class QLabel;
class QPushButton;

namespace clab::ui {

class NoticeBanner : public QFrame {
  Q_OBJECT

 public:
  explicit NoticeBanner(QWidget* parent = nullptr);

  // Shows `text` (plain text); with `action_label`, a button that runs `action` and closes
  // the banner.
  void showNotice(const QString& text, const QString& action_label = {}, std::function<void()> action = {});
  void dismiss();
  QString text() const;
  // The action button's text ("" when the notice has none).
  QString actionText() const;
  void triggerAction();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  QLabel* text_;
  QPushButton* action_;
  QPushButton* close_;
  std::function<void()> callback_;
};

}  // namespace clab::ui
