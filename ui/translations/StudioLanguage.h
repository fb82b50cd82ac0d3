// The studio's language: English (the source texts) or Chinese, from the translations
// compiled into the library (":/i18n/clusterlab_zh_CN.qm", made from
// ui/translations/clusterlab_zh_CN.ts). Switching posts a LanguageChange event to every
// widget, which then sets its texts again.
#pragma once

#include <QString>

namespace clab::ui {

class StudioLanguage {
 public:
  // "en" or "zh_CN"; false (and nothing changes) for a language without translations.
  static bool set(const QString& code);
  static QString current();
};

}  // namespace clab::ui
