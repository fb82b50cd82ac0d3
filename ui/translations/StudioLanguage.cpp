#include "translations/StudioLanguage.h"

#include <QCoreApplication>
#include <QTranslator>

namespace clab::ui {
namespace {

// The texts of Qt's standard buttons (dialogs, message boxes): Qt looks them up under
// "QPlatformTheme", so the studio's own translations carry them too (Qt's translation files
// are not always installed).
[[maybe_unused]] const char* const kStandardButtons[] = {
    QT_TRANSLATE_NOOP("QPlatformTheme", "OK"),       QT_TRANSLATE_NOOP("QPlatformTheme", "Cancel"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Save"),     QT_TRANSLATE_NOOP("QPlatformTheme", "Discard"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Yes"),      QT_TRANSLATE_NOOP("QPlatformTheme", "No"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Close"),    QT_TRANSLATE_NOOP("QPlatformTheme", "Apply"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Open"),     QT_TRANSLATE_NOOP("QPlatformTheme", "Help"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Reset"),    QT_TRANSLATE_NOOP("QPlatformTheme", "Don't Save"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Save All"), QT_TRANSLATE_NOOP("QPlatformTheme", "Abort"),
    QT_TRANSLATE_NOOP("QPlatformTheme", "Retry"),    QT_TRANSLATE_NOOP("QPlatformTheme", "Ignore")};

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
