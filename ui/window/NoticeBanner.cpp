#include "window/NoticeBanner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStringList>
#include <QStyle>

namespace clab::ui {

NoticeBanner::NoticeBanner(QWidget* parent) : QFrame(parent) {
  setObjectName("notice-banner");
  setStyleSheet(
      "#notice-banner { background: #fdecea; border: 1px solid #d9534f; border-radius: 4px; }"
      "#notice-banner QLabel { color: #7a1f1b; }");
  auto* icon = new QLabel(this);
  icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(20, 20));
  text_ = new QLabel(this);
  text_->setObjectName("notice-text");
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  action_ = new QPushButton(this);
  action_->setObjectName("notice-action");
  close_ = new QPushButton(this);
  close_->setObjectName("notice-close");
  close_->setFlat(true);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 4, 4, 4);
  layout->addWidget(icon, 0, Qt::AlignTop);
  layout->addWidget(text_, 1);
  layout->addWidget(action_, 0, Qt::AlignTop);
  layout->addWidget(close_, 0, Qt::AlignTop);
  connect(action_, &QPushButton::clicked, this, &NoticeBanner::triggerAction);
  connect(close_, &QPushButton::clicked, this, &NoticeBanner::dismiss);
  close_->setText(QStringLiteral("×"));
  close_->setAccessibleName(tr("Close"));
  hide();
}

void NoticeBanner::showNotice(const QString& text, const QString& action_label, std::function<void()> action) {
  showNotice([text] { return text; }, action_label.isEmpty() ? Text() : Text([action_label] { return action_label; }),
             std::move(action));
}

void NoticeBanner::showNotice(Text text, Text action_label, std::function<void()> action) {
  text_fn_ = std::move(text);
  action_fn_ = std::move(action_label);
  callback_ = std::move(action);
  showing_task_problems_ = false;
  showTexts();
  action_->setVisible(action_fn_ && callback_);
  show();
}

void NoticeBanner::setTaskProblem(const QString& task, Text line) {
  if (!line) task_problems_.remove(task);
  else task_problems_.insert(task, std::move(line));
  if (task_problems_.isEmpty()) {
    if (showing_task_problems_) dismiss();
    return;
  }
  showNotice([this] {
    QStringList lines{tr("Tasks that cannot be watched:")};
    for (const Text& problem : std::as_const(task_problems_)) lines << problem();
    return lines.join("\n");
  });
  showing_task_problems_ = true;
}

void NoticeBanner::clearAll() {
  task_problems_.clear();
  dismiss();
}

void NoticeBanner::showTexts() {
  text_->setText(text_fn_ ? text_fn_() : QString());
  action_->setText(action_fn_ ? action_fn_() : QString());
}

void NoticeBanner::dismiss() {
  callback_ = {};
  text_fn_ = {};
  action_fn_ = {};
  showing_task_problems_ = false;
  text_->clear();
  hide();
}

QString NoticeBanner::text() const { return isHidden() ? QString() : text_->text(); }

QString NoticeBanner::actionText() const { return action_->isHidden() ? QString() : action_->text(); }

void NoticeBanner::triggerAction() {
  const std::function<void()> callback = std::move(callback_);
  dismiss();
  if (callback) callback();
}

void NoticeBanner::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) {
    close_->setAccessibleName(tr("Close"));
    showTexts();
  }
  QFrame::changeEvent(event);
}

}  // namespace clab::ui
