#include "views/ConsolePane.h"

#include "translations/Retranslate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace clab::ui {

ConsolePane::ConsolePane(bool show_task, QWidget* parent) : QWidget(parent), show_task_(show_task) {
  level_ = new QComboBox(this);
  level_->addItem(tr("All levels"), 0);
  level_->addItem(tr("Warnings and errors"), 30);
  level_->addItem(tr("Errors"), 40);
  source_ = new QComboBox(this);
  source_->setObjectName("source");
  source_->addItem(tr("All sources"), QString());
  source_->setToolTip(tr("Show the lines of one source only: the log, a hook, the process's output"));
  search_ = new QLineEdit(this);
  search_->setPlaceholderText(show_task ? tr("Search (task, hook or text)") : tr("Search (hook or text)"));
  search_->setClearButtonEnabled(true);
  collapse_ = new QCheckBox(tr("Collapse step counters"), this);
  collapse_->setObjectName("collapse");
  collapse_->setChecked(true);
  collapse_->setToolTip(
      tr("Show each task's latest step-counter line once, at the bottom, with how many "
         "there were"));
  follow_ = new QToolButton(this);
  follow_->setObjectName("follow");
  follow_->setCheckable(true);
  follow_->setChecked(true);
  follow_->setToolTipDuration(-1);
  follow_->setToolTip(
      tr("Keep the newest line in view. Scrolling up pauses; new lines wait until you follow "
         "again."));
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setMaximumBlockCount(kMaxLines);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  text_->setFont(mono);
  text_->installEventFilter(this);
  updateFollowText();

  auto* bar = new QHBoxLayout;
  auto* show = new QLabel(this);
  bar->addWidget(show);
  new Retranslate(this, [this, show] {
    level_->setItemText(0, tr("All levels"));
    level_->setItemText(1, tr("Warnings and errors"));
    level_->setItemText(2, tr("Errors"));
    source_->setItemText(0, tr("All sources"));
    source_->setToolTip(tr("Show the lines of one source only: the log, a hook, the process's output"));
    search_->setPlaceholderText(show_task_ ? tr("Search (task, hook or text)") : tr("Search (hook or text)"));
    collapse_->setText(tr("Collapse step counters"));
    collapse_->setToolTip(
        tr("Show each task's latest step-counter line once, at the bottom, with how many "
           "there were"));
    follow_->setToolTip(
        tr("Keep the newest line in view. Scrolling up pauses; new lines wait until you follow "
           "again."));
    updateFollowText();
    show->setText(tr("Show:"));
  });
  bar->addWidget(level_);
  bar->addWidget(source_);
  bar->addWidget(search_, 1);
  bar->addWidget(collapse_);
  bar->addWidget(follow_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(text_, 1);
  auto filter_changed = [this] {
    pending_.clear();
    redraw_ = true;
    if (isVisible()) refilter();
  };
  connect(level_, &QComboBox::currentIndexChanged, this, filter_changed);
  connect(source_, &QComboBox::currentIndexChanged, this, filter_changed);
  connect(search_, &QLineEdit::textChanged, this, filter_changed);
  connect(collapse_, &QCheckBox::toggled, this, filter_changed);
  connect(follow_, &QToolButton::toggled, this, &ConsolePane::setFollowing);
  // The user moved the scroll bar (dragged, clicked, turned the wheel): away from the tail pauses.
  connect(text_->verticalScrollBar(), &QScrollBar::actionTriggered, this,
          [this] { QTimer::singleShot(0, this, &ConsolePane::checkScrolledAway); });
}

bool ConsolePane::collapsible(const ConsoleLine& line) { return line.level < 30 && line.source == "StepCounterHook"; }

QString ConsolePane::format(const ConsoleLine& line) const {
  const QString time =
      QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(line.wall_time * 1000)).toString("HH:mm:ss.zzz");
  const QString level = line.level >= 40 ? "E" : line.level >= 30 ? "W" : "I";
  if (!show_task_) return QStringLiteral("%1 %2 [%3] %4").arg(time, level, line.source, line.text);
  return QStringLiteral("%1 %2 %3 [%4] %5").arg(time, level, line.task, line.source, line.text);
}

bool ConsolePane::accepts(const ConsoleLine& line) const {
  if (line.level < level_->currentData().toInt()) return false;
  const QString source = source_->currentData().toString();
  if (!source.isEmpty() && line.source != source) return false;
  const QString needle = search_->text();
  if (needle.isEmpty()) return true;
  return line.text.contains(needle, Qt::CaseInsensitive) || line.task.contains(needle, Qt::CaseInsensitive) ||
         line.source.contains(needle, Qt::CaseInsensitive);
}

void ConsolePane::append(const QList<ConsoleLine>& lines) {
  for (const ConsoleLine& line : lines) {
    if (sources_.contains(line.source)) continue;
    sources_.insert(line.source);
    source_->addItem(line.source, line.source);
  }
  kept_ += lines;
  if (kept_.size() > kMaxLines) kept_.remove(0, kept_.size() - kMaxLines);
  if (!redraw_) {
    pending_ += lines;
    if (pending_.size() > kMaxLines) {
      pending_.clear();
      redraw_ = true;  // everything is drawn from kept_ when the page is next drawn
    }
  }
  if (isVisible()) flush();
  if (!following_) updateFollowText();
}

void ConsolePane::flush() {
  if (!following_) return;  // paused: the view stays as it is
  if (redraw_) {
    refilter();
    return;
  }
  if (pending_.isEmpty()) return;
  const QList<ConsoleLine> lines = std::exchange(pending_, {});
  draw(lines);
}

void ConsolePane::removeShownBlock(const QString& key) {
  auto it = collapsed_.find(key);
  if (it == collapsed_.end()) return;
  const QTextBlock block = it->at.block();
  const bool same = block.isValid() && block.text() == it->text;
  collapsed_.erase(it);
  if (!same) return;  // trimmed off the top with the oldest lines
  QTextCursor cursor(block);
  if (block.next().isValid()) {
    cursor.movePosition(QTextCursor::NextBlock, QTextCursor::KeepAnchor);
  } else if (block.previous().isValid()) {
    cursor.setPosition(block.position() - 1);
    cursor.setPosition(block.position() + block.length() - 1, QTextCursor::KeepAnchor);
  } else {
    cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
  }
  cursor.removeSelectedText();
}

void ConsolePane::draw(const QList<ConsoleLine>& lines) {
  const bool collapse = collapse_->isChecked();
  QList<Shown> shown;
  QHash<QString, qsizetype> in_batch;  // key -> its line in `shown`
  for (const ConsoleLine& line : lines) {
    if (!accepts(line)) continue;
    if (!collapse || !collapsible(line)) {
      shown.append({QString(), format(line)});
      continue;
    }
    const QString key = line.task + '|' + line.source;
    const int count = ++repeats_[key];
    const QString text = count > 1 ? format(line) + QStringLiteral("  [\u00d7%1]").arg(count) : format(line);
    if (auto earlier = in_batch.find(key); earlier != in_batch.end())
      shown[*earlier].key = QStringLiteral("-");  // replaced by this one
    else removeShownBlock(key);
    in_batch.insert(key, shown.size());
    shown.append({key, text});
  }
  shown.removeIf([](const Shown& s) { return s.key == QStringLiteral("-"); });
  if (shown.isEmpty()) return;
  QStringList texts;
  for (const Shown& s : shown) texts << s.text;
  if (text_->document()->isEmpty()) text_->setPlainText(texts.join('\n'));
  else text_->appendPlainText(texts.join('\n'));
  // Where the collapsed lines now are: among the last blocks of the document.
  QTextBlock block = text_->document()->lastBlock();
  for (qsizetype i = shown.size() - 1; i >= 0 && block.isValid(); --i, block = block.previous()) {
    if (shown[i].key.isEmpty()) continue;
    collapsed_.insert(shown[i].key, {QTextCursor(block), shown[i].text});
  }
  if (following_) text_->verticalScrollBar()->setValue(text_->verticalScrollBar()->maximum());
}

void ConsolePane::refilter() {
  pending_.clear();
  redraw_ = false;
  collapsed_.clear();
  repeats_.clear();
  text_->clear();
  draw(kept_);
  text_->moveCursor(QTextCursor::End);
}

void ConsolePane::clear() {
  kept_.clear();
  pending_.clear();
  redraw_ = false;
  collapsed_.clear();
  repeats_.clear();
  text_->clear();
  setFollowing(true);
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

void ConsolePane::setFollowing(bool following) {
  if (following_ == following && follow_->isChecked() == following) return;
  following_ = following;
  follow_->setChecked(following);
  if (following) {
    if (isVisible() || redraw_ || !pending_.isEmpty()) flush();
    text_->verticalScrollBar()->setValue(text_->verticalScrollBar()->maximum());
  }
  updateFollowText();
}

void ConsolePane::updateFollowText() {
  const qsizetype waiting = redraw_ ? kept_.size() : pending_.size();
  follow_->setText(following_ || waiting == 0 ? tr("Follow") : tr("Follow (%1 new)").arg(waiting));
}

void ConsolePane::checkScrolledAway() {
  const QScrollBar* bar = text_->verticalScrollBar();
  if (bar->value() < bar->maximum()) setFollowing(false);
}

bool ConsolePane::eventFilter(QObject* watched, QEvent* event) {
  // Keys that move up the text (Page Up, Up, Ctrl+Home) pause like the scroll bar does.
  if (watched == text_ && event->type() == QEvent::KeyPress) {
    const int key = static_cast<QKeyEvent*>(event)->key();
    if (key == Qt::Key_PageUp || key == Qt::Key_Up || key == Qt::Key_Home)
      QTimer::singleShot(0, this, &ConsolePane::checkScrolledAway);
  }
  return QWidget::eventFilter(watched, event);
}

void ConsolePane::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  flush();
}

}  // namespace clab::ui
