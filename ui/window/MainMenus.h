// The main window's menu bar and toolbar: File (examples, recent projects), Edit (undo,
// tasks, import and copy of the cluster), Run (local, on hosts, attach, protect), View
// (fit, Language) and Help (lessons, about). Their texts are set through Retranslate, so the
// menus follow the studio's language.
#pragma once

namespace clab::ui {

class MainWindow;

class MainMenus {
 public:
  static void build(MainWindow& w);
};

}  // namespace clab::ui
