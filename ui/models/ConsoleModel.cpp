#include "models/ConsoleModel.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>

#include <algorithm>
#include <utility>

namespace clab::ui {
namespace {

// How long lines gather before they are shown: one insertion per tick, however fast they come.
constexpr int kTickMs = 40;

QString KeyOf(const ConsoleLine& line) { return line.task + '|' + line.source; }

}  // namespace

ConsoleModel::ConsoleModel(bool show_task, QObject* parent) : QAbstractListModel(parent), show_task_(show_task) {
  tick_.setSingleShot(true);
  tick_.setInterval(kTickMs);
  connect(&tick_, &QTimer::timeout, this, &ConsoleModel::flush);
}

bool ConsoleModel::collapsible(const ConsoleLine& line) { return line.level < 30 && line.source == "StepCounterHook"; }

bool ConsoleModel::accepts(const ConsoleLine& line) const {
  if (line.level < filter_.min_level) return false;
  if (!filter_.source.isEmpty() && line.source != filter_.source) return false;
  if (filter_.search.isEmpty()) return true;
  return line.text.contains(filter_.search, Qt::CaseInsensitive) ||
         line.task.contains(filter_.search, Qt::CaseInsensitive) ||
         line.source.contains(filter_.search, Qt::CaseInsensitive);
}

QString ConsoleModel::format(const Row& row) const {
  const ConsoleLine& line = row.line;
  const QString time =
      QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(line.wall_time * 1000)).toString("HH:mm:ss.zzz");
  const QString level = line.level >= 40 ? "E" : line.level >= 30 ? "W" : "I";
  QString text = show_task_ ? QStringLiteral("%1 %2 %3 [%4] %5").arg(time, level, line.task, line.source, line.text)
                            : QStringLiteral("%1 %2 [%3] %4").arg(time, level, line.source, line.text);
  if (row.repeats > 1) text += QStringLiteral("  [\u00d7%1]").arg(row.repeats);
  return text;
}

void ConsoleModel::append(const QList<ConsoleLine>& lines) {
  if (lines.isEmpty()) return;
  kept_ += lines;
  if (kept_.size() > kMaxLines) kept_.remove(0, kept_.size() - kMaxLines);
  if (!redraw_) {
    pending_ += lines;
    if (pending_.size() > kMaxLines) {
      pending_.clear();
      redraw_ = true;  // everything is shown from kept_ at the next flush
    }
  }
  if (auto_flush_ && !paused_ && !tick_.isActive()) tick_.start();
  emit waitingChanged();
}

qsizetype ConsoleModel::waiting() const { return redraw_ ? kept_.size() : pending_.size(); }

void ConsoleModel::setFilter(const Filter& filter) {
  filter_ = filter;
  pending_.clear();
  redraw_ = true;
  if (!paused_) flush();
}

void ConsoleModel::setPaused(bool paused) {
  paused_ = paused;
  if (!paused_) flush();
}

void ConsoleModel::setAutoFlush(bool on) {
  auto_flush_ = on;
  if (on && !paused_ && waiting() > 0 && !tick_.isActive()) tick_.start();
}

void ConsoleModel::flush() {
  tick_.stop();
  if (paused_) return;
  if (redraw_) {
    redraw_ = false;
    pending_.clear();
    show(kept_, true);
  } else if (!pending_.isEmpty()) {
    show(std::exchange(pending_, {}), false);
  } else {
    return;
  }
  emit waitingChanged();
}

int ConsoleModel::rowOfSerial(qint64 serial) const {
  const auto it =
      std::lower_bound(rows_.begin(), rows_.end(), serial, [](const Row& row, qint64 s) { return row.serial < s; });
  return it != rows_.end() && it->serial == serial ? static_cast<int>(it - rows_.begin()) : -1;
}

void ConsoleModel::show(const QList<ConsoleLine>& lines, bool anew) {
  if (anew) {
    collapsed_.clear();
    repeats_.clear();
  }
  // The batch's rows, a collapsed line replacing its earlier one (in the batch or shown).
  QList<Row> batch;
  QHash<QString, qsizetype> in_batch;  // key -> its row in `batch`
  QList<int> replaced;                 // rows shown before that a collapsed line replaces
  for (const ConsoleLine& line : lines) {
    if (!accepts(line)) continue;
    if (!filter_.collapse || !collapsible(line)) {
      batch.append({line, 1, 0});
      continue;
    }
    const QString key = KeyOf(line);
    const int count = ++repeats_[key];
    if (auto earlier = in_batch.find(key); earlier != in_batch.end()) {
      batch[*earlier].repeats = 0;  // replaced by this one
    } else if (!anew) {
      if (auto shown = collapsed_.find(key); shown != collapsed_.end()) {
        const int row = rowOfSerial(*shown);
        if (row >= 0) replaced.append(row);
      }
    }
    in_batch.insert(key, batch.size());
    batch.append({line, count, 0});
  }
  batch.removeIf([](const Row& row) { return row.repeats == 0; });
  if (batch.size() > kMaxLines) batch.remove(0, batch.size() - kMaxLines);
  for (Row& row : batch) {
    row.serial = next_serial_++;
    row.text = format(row);
    if (filter_.collapse && collapsible(row.line)) collapsed_.insert(KeyOf(row.line), row.serial);
  }
  if (anew) {
    beginResetModel();
    rows_ = std::move(batch);
    endResetModel();
    return;
  }
  // The replaced collapsed lines go, bottom up (a handful: one per task and hook).
  std::sort(replaced.begin(), replaced.end(), std::greater<>());
  for (int row : replaced) {
    beginRemoveRows({}, row, row);
    rows_.remove(row);
    endRemoveRows();
  }
  if (batch.isEmpty()) return;
  // The oldest go when the page would keep more than kMaxLines.
  const qsizetype over = rows_.size() + batch.size() - kMaxLines;
  if (over > 0) {
    beginRemoveRows({}, 0, static_cast<int>(over) - 1);
    rows_.remove(0, over);
    endRemoveRows();
  }
  const int first = static_cast<int>(rows_.size());
  beginInsertRows({}, first, first + static_cast<int>(batch.size()) - 1);
  rows_ += batch;
  endInsertRows();
}

void ConsoleModel::clear() {
  tick_.stop();
  beginResetModel();
  kept_.clear();
  pending_.clear();
  redraw_ = false;
  rows_.clear();
  collapsed_.clear();
  repeats_.clear();
  endResetModel();
  emit waitingChanged();
}

QString ConsoleModel::text() {
  flush();
  QStringList lines;
  lines.reserve(rows_.size());
  for (const Row& row : std::as_const(rows_)) lines << row.text;
  return lines.join('\n');
}

int ConsoleModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant ConsoleModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const Row& row = rows_[index.row()];
  switch (role) {
    case Qt::DisplayRole: return row.text;
    case LevelRole: return row.line.level;
    case TaskRole: return row.line.task;
    case SourceRole: return row.line.source;
    case RepeatsRole: return row.repeats;
    default: return {};
  }
}

}  // namespace clab::ui
