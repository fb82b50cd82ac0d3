// Texts that follow the studio's language. Retranslate(owner, apply) calls `apply` at once
// and again after every language change, for as long as `owner` lives: `apply` sets the
// texts with tr(), so a window shows its labels, menus, tooltips and headers in the new
// language without being built again.
#pragma once

#include <QObject>

#include <functional>

class QWidget;

namespace clab::ui {

class Retranslate : public QObject {
  Q_OBJECT

 public:
  // `owner` must be a widget: Qt hands its LanguageChange event on to its children, of
  // which this binding is one.
  Retranslate(QWidget* owner, std::function<void()> apply);

 protected:
  bool event(QEvent* event) override;

 private:
  std::function<void()> apply_;
};

}  // namespace clab::ui
