#include "window/RecentProjects.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace clab::ui {
namespace {

constexpr int kMaxRecent = 8;
constexpr char kKey[] = "recentProjects";

}  // namespace

RecentProjects::RecentProjects(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
  connect(menu_, &QMenu::aboutToShow, this, &RecentProjects::fillMenu);
}

QStringList RecentProjects::paths() const { return QSettings().value(kKey).toStringList(); }

void RecentProjects::remember(const QString& path) {
  QStringList recent = paths();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxRecent) recent.removeLast();
  QSettings().setValue(kKey, recent);
  emit changed(recent);
}

void RecentProjects::fillMenu() {
  menu_->clear();
  const QStringList recent = paths();
  if (recent.isEmpty()) menu_->addAction(tr("(no recent projects)"))->setEnabled(false);
  for (const QString& path : recent) menu_->addAction(path, this, [this, path] { emit chosen(path); });
}

}  // namespace clab::ui
