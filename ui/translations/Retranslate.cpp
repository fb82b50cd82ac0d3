#include "translations/Retranslate.h"

#include <QEvent>
#include <QWidget>

namespace clab::ui {

Retranslate::Retranslate(QWidget* owner, std::function<void()> apply) : QObject(owner), apply_(std::move(apply)) {
  apply_();
}

bool Retranslate::event(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) {
    apply_();
    return true;
  }
  return QObject::event(event);
}

}  // namespace clab::ui
