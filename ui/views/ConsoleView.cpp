#include "views/ConsoleView.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace clab::ui {
namespace {

constexpr int kMaxLines = 20000;

}  // namespace

ConsoleView::ConsoleView(QWidget* parent) : QWidget(parent) {
  level_ = new QComboBox(this);
  level_->addItem("All levels", 0);
  level_->addItem("Warnings and errors", 30);
  level_->addItem("Errors", 40);
  search_ = new QLineEdit(this);
  search_->setPlaceholderText("Search (task, hook or text)");
  search_->setClearButtonEnabled(true);
  text_ = new QPlainTextEdit(this);
  text_->setReadOnly(true);
  text_->setMaximumBlockCount(kMaxLines);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  text_->setFont(mono);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("Show:", this));
  bar->addWidget(level_);
  bar->addWidget(search_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(text_, 1);
  connect(level_, &QComboBox::currentIndexChanged, this, &ConsoleView::refilter);
  connect(search_, &QLineEdit::textChanged, this, &ConsoleView::refilter);
}

QString ConsoleView::format(const ConsoleLine& line) {
  const QString time = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(line.wall_time * 1000)).toString("HH:mm:ss.zzz");
  const QString level = line.level >= 40 ? "E" : line.level >= 30 ? "W" : "I";
  return QStringLiteral("%1 %2 %3 [%4] %5").arg(time, level, line.task, line.source, line.text);
}

bool ConsoleView::accepts(const ConsoleLine& line) const {
  if (line.level < level_->currentData().toInt()) return false;
  const QString needle = search_->text();
  if (needle.isEmpty()) return true;
  return line.text.contains(needle, Qt::CaseInsensitive) || line.task.contains(needle, Qt::CaseInsensitive) ||
         line.source.contains(needle, Qt::CaseInsensitive);
}

void ConsoleView::append(const QList<ConsoleLine>& lines) {
  kept_ += lines;
  if (kept_.size() > kMaxLines) kept_ = kept_.mid(kept_.size() - kMaxLines);
  QStringList shown;
  for (const ConsoleLine& line : lines)
    if (accepts(line)) shown << format(line);
  if (!shown.isEmpty()) text_->appendPlainText(shown.join('\n'));
}

void ConsoleView::appendRaw(const QString& task, const QStringList& lines) {
  QList<ConsoleLine> converted;
  const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
  for (const QString& line : lines) converted.append({task, now, 20, "stdout", line});
  append(converted);
}

void ConsoleView::clear() {
  kept_.clear();
  text_->clear();
}

QString ConsoleView::text() const { return text_->toPlainText(); }

void ConsoleView::refilter() {
  QStringList shown;
  for (const ConsoleLine& line : kept_)
    if (accepts(line)) shown << format(line);
  text_->setPlainText(shown.join('\n'));
  text_->moveCursor(QTextCursor::End);
}

}  // namespace clab::ui
