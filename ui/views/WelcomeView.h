// The studio's first page: what ClusterLab does in three sentences, the example projects
// (each opens with one click), and the recently opened projects.
#pragma once

#include <QStringList>
#include <QWidget>

class QListWidget;

namespace clab::ui {

class WelcomeView : public QWidget {
  Q_OBJECT

 public:
  explicit WelcomeView(QWidget* parent = nullptr);
  void setRecent(const QStringList& paths);

 signals:
  void exampleChosen(const QString& example);  // "seed", "seed-two-workers", "digits-mlp"
  void recentChosen(const QString& path);

 private:
  QListWidget* recent_ = nullptr;
  QStringList recent_paths_;
};

}  // namespace clab::ui
