#include "views/ConsolePane.h"

#include "translations/Retranslate.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace clab::ui {

ConsolePane::ConsolePane(bool show_task, QWidget* parent) : QWidget(parent), show_task_(show_task) {
  level_ = new QComboBox(this);
  level_->addItem(QString(), 0);
  level_->addItem(QString(), 30);
  level_->addItem(QString(), 40);
  search_ = new QLineEdit(this);
  search_->setClearButtonEnabled(true);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setMaximumBlockCount(kMaxLines);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  text_->setFont(mono);

  auto* bar = new QHBoxLayout;
  auto* show = new QLabel(this);
  bar->addWidget(show);
  new Retranslate(this, [this, show] {
    level_->setItemText(0, tr("All levels"));
    level_->setItemText(1, tr("Warnings and errors"));
    level_->setItemText(2, tr("Errors"));
    search_->setPlaceholderText(show_task_ ? tr("Search (task, hook or text)") : tr("Search (hook or text)"));
    show->setText(tr("Show:"));
  });
  bar->addWidget(level_);
  bar->addWidget(search_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(text_, 1);
  auto filter_changed = [this] {
    pending_.clear();
    redraw_ = true;
    if (isVisible()) flush();
  };
  connect(level_, &QComboBox::currentIndexChanged, this, filter_changed);
  connect(search_, &QLineEdit::textChanged, this, filter_changed);
}

QString ConsolePane::format(const ConsoleLine& line) const {
  const QString time =
      QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(line.wall_time * 1000)).toString("HH:mm:ss.zzz");
  const QString level = line.level >= 40 ? "E" : line.level >= 30 ? "W" : "I";
  if (!show_task_) return QStringLiteral("%1 %2 [%3] %4").arg(time, level, line.source, line.text);
  return QStringLiteral("%1 %2 %3 [%4] %5").arg(time, level, line.task, line.source, line.text);
}

bool ConsolePane::accepts(const ConsoleLine& line) const {
  if (line.level < level_->currentData().toInt()) return false;
  const QString needle = search_->text();
  if (needle.isEmpty()) return true;
  return line.text.contains(needle, Qt::CaseInsensitive) || line.task.contains(needle, Qt::CaseInsensitive) ||
         line.source.contains(needle, Qt::CaseInsensitive);
}

void ConsolePane::append(const QList<ConsoleLine>& lines) {
  kept_ += lines;
  if (kept_.size() > kMaxLines) kept_.remove(0, kept_.size() - kMaxLines);
  if (redraw_) return;  // everything is drawn from kept_ when the page is next shown
  pending_ += lines;
  if (pending_.size() > kMaxLines) {
    pending_.clear();
    redraw_ = true;
  }
  if (isVisible()) flush();
}

void ConsolePane::flush() {
  if (redraw_) {
    refilter();
    return;
  }
  if (pending_.isEmpty()) return;
  QStringList shown;
  for (const ConsoleLine& line : pending_)
    if (accepts(line)) shown << format(line);
  pending_.clear();
  if (!shown.isEmpty()) text_->appendPlainText(shown.join('\n'));
}

void ConsolePane::refilter() {
  QStringList shown;
  for (const ConsoleLine& line : kept_)
    if (accepts(line)) shown << format(line);
  pending_.clear();
  redraw_ = false;
  text_->setPlainText(shown.join('\n'));
  text_->moveCursor(QTextCursor::End);
}

void ConsolePane::clear() {
  kept_.clear();
  pending_.clear();
  redraw_ = false;
  text_->clear();
}

QString ConsolePane::text() {
  flush();
  return text_->toPlainText();
}

void ConsolePane::setFilter(int min_level, const QString& search) {
  const int index = level_->findData(min_level);
  if (index >= 0) level_->setCurrentIndex(index);
  search_->setText(search);
}

void ConsolePane::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  flush();
}

}  // namespace clab::ui
