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
  text_->setText(text);
  callback_ = std::move(action);
  action_->setText(action_label);
  action_->setVisible(!action_label.isEmpty() && callback_);
  showing_task_problems_ = false;
  show();
}

void NoticeBanner::setTaskProblem(const QString& task, const QString& line) {
  if (line.isEmpty()) task_problems_.remove(task);
  else task_problems_.insert(task, line);
  if (task_problems_.isEmpty()) {
    if (showing_task_problems_) dismiss();
    return;
  }
  showNotice(tr("Tasks that cannot be watched:") + "\n" + QStringList(task_problems_.values()).join("\n"));
  showing_task_problems_ = true;
}

void NoticeBanner::clearAll() {
  task_problems_.clear();
  dismiss();
}

void NoticeBanner::dismiss() {
  callback_ = {};
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
  if (event->type() == QEvent::LanguageChange) close_->setAccessibleName(tr("Close"));
  QFrame::changeEvent(event);
}

}  // namespace clab::ui
