#include "teach/LessonPanel.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace clab::ui {

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent), lessons_(Lessons::all()) {
  setObjectName("lesson-panel");
  chooser_ = new QComboBox(this);
  chooser_->setObjectName("lesson-chooser");
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  text_ = new QTextBrowser(this);
  text_->setObjectName("lesson-text");
  action_ = new QPushButton(this);
  action_->setObjectName("lesson-action");
  previous_ = new QPushButton(this);
  next_ = new QPushButton(this);
  previous_->setObjectName("lesson-previous");
  next_->setObjectName("lesson-next");
  position_ = new QLabel(this);
  outcome_ = new QLabel(this);
  outcome_->setObjectName("lesson-outcome");
  outcome_->setWordWrap(true);
  auto* navigation = new QHBoxLayout;
  navigation->addWidget(previous_);
  navigation->addWidget(position_, 1, Qt::AlignCenter);
  navigation->addWidget(next_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(chooser_);
  layout->addWidget(title_);
  layout->addWidget(text_, 1);
  layout->addWidget(action_);
  layout->addWidget(outcome_);
  layout->addLayout(navigation);
  connect(chooser_, &QComboBox::activated, this, &LessonPanel::setLesson);
  connect(previous_, &QPushButton::clicked, this, &LessonPanel::previous);
  connect(next_, &QPushButton::clicked, this, &LessonPanel::next);
  connect(action_, &QPushButton::clicked, this, &LessonPanel::doAction);
  render();
}

const LessonPage& LessonPanel::currentPage() const { return lessons_[lesson_].pages[page_]; }

void LessonPanel::setLesson(int index) {
  if (index < 0 || index >= lessons_.size()) return;
  lesson_ = index;
  page_ = 0;
  outcome_->clear();
  render();
}

void LessonPanel::setPage(int index) {
  if (index < 0 || index >= lessons_[lesson_].pages.size()) return;
  page_ = index;
  outcome_->clear();
  render();
}

void LessonPanel::next() { setPage(page_ + 1); }

void LessonPanel::previous() { setPage(page_ - 1); }

void LessonPanel::doAction() {
  if (currentPage().action == LessonPage::Action::kNone) return;
  emit actionRequested(currentPage());
}

void LessonPanel::showOutcome(const QString& error) {
  outcome_->setStyleSheet(error.isEmpty() ? "color: #2a7a2a;" : "color: #b00000;");
  outcome_->setText(error.isEmpty() ? tr("Done.") : error);
}

QString LessonPanel::pageText() const { return text_->toPlainText(); }

QString LessonPanel::outcome() const { return outcome_->text(); }

void LessonPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) {
    lessons_ = Lessons::all();
    render();
  }
  QWidget::changeEvent(event);
}

void LessonPanel::render() {
  chooser_->clear();
  for (const Lesson& lesson : lessons_) chooser_->addItem(lesson.title, lesson.id);
  chooser_->setCurrentIndex(lesson_);
  const LessonPage& page = currentPage();
  title_->setText("<b>" + page.title.toHtmlEscaped() + "</b>");
  text_->setHtml(page.text);
  action_->setVisible(page.action != LessonPage::Action::kNone);
  action_->setText(page.action_label);
  previous_->setText(tr("Previous"));
  next_->setText(tr("Next"));
  previous_->setEnabled(page_ > 0);
  next_->setEnabled(page_ + 1 < lessons_[lesson_].pages.size());
  position_->setText(tr("page %1 of %2").arg(page_ + 1).arg(lessons_[lesson_].pages.size()));
}

}  // namespace clab::ui
