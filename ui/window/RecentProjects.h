// The projects opened or saved lately (the newest first, at most eight), kept in QSettings
// and offered in a menu ("Open Recent") that is filled each time it opens.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace clab::ui {

class RecentProjects : public QObject {
  Q_OBJECT

 public:
  // Fills `menu` whenever it is about to show.
  explicit RecentProjects(QMenu* menu, QObject* parent = nullptr);

  QStringList paths() const;
  // Puts `path` first.
  void remember(const QString& path);

 signals:
  void chosen(const QString& path);
  void changed(const QStringList& paths);

 private:
  void fillMenu();

  QMenu* menu_;
};

}  // namespace clab::ui
