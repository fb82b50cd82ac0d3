#include "views/ConsolePane.h"

#include "models/ConsoleModel.h"
#include "translations/Retranslate.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace clab::ui {

ConsolePane::ConsolePane(bool show_task, QWidget* parent) : QWidget(parent), show_task_(show_task) {
  model_ = new ConsoleModel(show_task, this);
  level_ = new QComboBox(this);
  level_->setObjectName("level");
  level_->addItem(tr("All levels"), 0);
  level_->addItem(tr("Warnings and errors"), 30);
  level_->addItem(tr("Errors"), 40);
  source_ = new QComboBox(this);
  source_->setObjectName("source");
  source_->addItem(tr("All sources"), QString());
  source_->setToolTip(tr("Show the lines of one source only: the log, a hook, the process's output"));
  search_ = new QLineEdit(this);
  search_->setObjectName("search");
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
  lines_ = new QTreeView(this);
  lines_->setObjectName("lines");
  lines_->setModel(model_);
  lines_->setHeaderHidden(true);
  lines_->setRootIsDecorated(false);
  lines_->setItemsExpandable(false);
  lines_->setUniformRowHeights(true);
  lines_->setTextElideMode(Qt::ElideNone);
  lines_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  lines_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  lines_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  lines_->header()->setStretchLastSection(false);
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  lines_->setFont(mono);
  lines_->installEventFilter(this);
  auto* copy = new QAction(lines_);
  copy->setShortcut(QKeySequence::Copy);
  copy->setShortcutContext(Qt::WidgetShortcut);
  lines_->addAction(copy);
  connect(copy, &QAction::triggered, this, &ConsolePane::copySelection);
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
  layout->addWidget(lines_, 1);
  auto filter_changed = [this] { applyFilter(); };
  connect(level_, &QComboBox::currentIndexChanged, this, filter_changed);
  connect(source_, &QComboBox::currentIndexChanged, this, filter_changed);
  connect(search_, &QLineEdit::textChanged, this, filter_changed);
  connect(collapse_, &QCheckBox::toggled, this, filter_changed);
  connect(follow_, &QToolButton::toggled, this, &ConsolePane::setFollowing);
  connect(model_, &ConsoleModel::waitingChanged, this, &ConsolePane::updateFollowText);
  connect(model_, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex&, int first, int last) {
    fitWidth(first, last);
    if (following_) lines_->scrollToBottom();
  });
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    widest_ = 0;
    fitWidth(0, model_->rowCount() - 1);
    if (following_) lines_->scrollToBottom();
  });
  // The user moved the scroll bar (dragged, clicked, turned the wheel): away from the tail pauses.
  connect(lines_->verticalScrollBar(), &QScrollBar::actionTriggered, this,
          [this] { QTimer::singleShot(0, this, &ConsolePane::checkScrolledAway); });
}

void ConsolePane::fitWidth(int first, int last) {
  // Measuring every line would cost more than showing it: the font is monospaced, so the
  // line with the most characters is the widest one, and only that one is measured.
  qsizetype longest = 0;
  QString widest;
  for (int row = first; row <= last; ++row) {
    const QString text = model_->index(row, 0).data().toString();
    if (text.size() > longest) {
      longest = text.size();
      widest = text;
    }
  }
  const QFontMetrics metrics(lines_->font());
  if (longest > 0) widest_ = std::max(widest_, metrics.horizontalAdvance(widest));
  lines_->header()->resizeSection(0, widest_ + 3 * metrics.averageCharWidth());
}

void ConsolePane::applyFilter() {
  ConsoleModel::Filter filter;
  filter.min_level = level_->currentData().toInt();
  filter.source = source_->currentData().toString();
  filter.search = search_->text();
  filter.collapse = collapse_->isChecked();
  model_->setFilter(filter);
}

void ConsolePane::append(const QList<ConsoleLine>& lines) {
  for (const ConsoleLine& line : lines) {
    if (sources_.contains(line.source)) continue;
    sources_.insert(line.source);
    source_->addItem(line.source, line.source);
  }
  model_->append(lines);
}

void ConsolePane::clear() {
  model_->clear();
  setFollowing(true);
}

void ConsolePane::copySelection() {
  QModelIndexList rows = lines_->selectionModel()->selectedRows();
  std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  QStringList text;
  for (const QModelIndex& row : rows) text << row.data().toString();
  QGuiApplication::clipboard()->setText(text.join('\n'));
}

void ConsolePane::setFollowing(bool following) {
  if (following_ == following && follow_->isChecked() == following) return;
  following_ = following;
  follow_->setChecked(following);
  model_->setPaused(!following);
  if (following) lines_->scrollToBottom();
  updateFollowText();
}

void ConsolePane::updateFollowText() {
  const qsizetype waiting = model_->waiting();
  follow_->setText(following_ || waiting == 0 ? tr("Follow") : tr("Follow (%1 new)").arg(waiting));
}

void ConsolePane::checkScrolledAway() {
  const QScrollBar* bar = lines_->verticalScrollBar();
  if (bar->value() < bar->maximum()) setFollowing(false);
}

bool ConsolePane::eventFilter(QObject* watched, QEvent* event) {
  // Keys scroll the lines as in a text (Shift with them selects): moving up pauses like the
  // scroll bar does, End returns to the tail and follows it.
  if (watched == lines_ && event->type() == QEvent::KeyPress) {
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->modifiers() & Qt::ShiftModifier) return QWidget::eventFilter(watched, event);
    QScrollBar* bar = lines_->verticalScrollBar();
    switch (key->key()) {
      case Qt::Key_Up: bar->triggerAction(QAbstractSlider::SliderSingleStepSub); return true;
      case Qt::Key_Down: bar->triggerAction(QAbstractSlider::SliderSingleStepAdd); return true;
      case Qt::Key_PageUp: bar->triggerAction(QAbstractSlider::SliderPageStepSub); return true;
      case Qt::Key_PageDown: bar->triggerAction(QAbstractSlider::SliderPageStepAdd); return true;
      case Qt::Key_Home: bar->triggerAction(QAbstractSlider::SliderToMinimum); return true;
      case Qt::Key_End: setFollowing(true); return true;
      default: break;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void ConsolePane::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  model_->setAutoFlush(true);
  model_->flush();
}

void ConsolePane::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  model_->setAutoFlush(false);
}

}  // namespace clab::ui
