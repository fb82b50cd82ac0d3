#include "translations/StudioLanguage.h"

#include <QCoreApplication>
#include <QTranslator>

namespace clab::ui {
namespace {

struct State {
  QString code = "en";
  QTranslator* translator = nullptr;
};

State& Current() {
  static State state;
  return state;
}

}  // namespace

bool StudioLanguage::set(const QString& code) {
  State& state = Current();
  if (code == state.code) return true;
  QTranslator* next = nullptr;
  if (code != "en") {
    next = new QTranslator(QCoreApplication::instance());
    if (!next->load(":/i18n/clusterlab_" + code + ".qm")) {
      delete next;
      return false;
    }
  }
  if (state.translator) {
    QCoreApplication::removeTranslator(state.translator);
    delete state.translator;
  }
  state.translator = next;
  if (next) QCoreApplication::installTranslator(next);
  state.code = code;  // installing and removing both post LanguageChange to every widget
  return true;
}

QString StudioLanguage::current() { return Current().code; }

}  // namespace clab::ui
