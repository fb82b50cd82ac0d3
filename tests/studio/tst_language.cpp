// The studio in Chinese: the main window with the built-in example project switches to
// zh_CN through View > Language, as a user does, and every text a user reads in it (labels,
// buttons, menus and their actions, tabs, dock titles, table headers, placeholders,
// tooltips, chart titles, list entries, the status bar, the cards on the cluster canvas) is
// then Chinese: the test lists each text that still holds an English word. Back in English,
// no Chinese text is left. The dialogs opened from the menus and the Graph tab, made in
// Chinese, hold no English word either.
#include "cluster/ClusterScene.h"
#include "cluster/TaskItem.h"
#include "graph/BuilderDialog.h"
#include "graph/DeviceFunctionDialog.h"
#include "launch/LaunchSettingsDialog.h"
#include "project/Project.h"
#include "translations/StudioLanguage.h"
#include "window/MainWindow.h"
#include "window/NoticeBanner.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QGraphicsSimpleTextItem>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTextDocument>
#include <QTextEdit>
#include <QTreeWidget>
#include <QValueAxis>
#include <QtTest>

using namespace clab::ui;

namespace {

// Words that are names or data in any language: the product, libraries, protocols, the
// project's jobs and program, units, signals, formats, commands, TensorFlow's terms and the
// names of its functions and classes (Placer, logits, relu, Adam, server, fetch), Kubernetes'
// pods.
const QSet<QString> kAllowed = {
    "ClusterLab", "Studio",      "TensorFlow", "gRPC",   "Qt",       "protobuf", "ps",      "worker",  "chief",
    "ms",         "KiB",         "MiB",        "GiB",    "MB",       "kB",       "SIGKILL", "TLS",     "CA",
    "JSON",       "ClusterSpec", "TF_CONFIG",  "Python", "dict",     "SLURM",    "ssh",     "scp",     "kubectl",
    "Kubernetes", "Pod",         "GraphDef",   "clab",   "cert",     "MLP",      "Shift",   "English", "CPU",
    "GPU",        "Dtype",       "tf",         "train",  "job",      "task",     "cpu",     "gpu",     "pbtxt",
    "pb",         "txt",         "ckpt",       "Send",   "Recv",     "Op",       "TF",      "seed",    "Placer",
    "logits",     "relu",        "sigmoid",    "tanh",   "Momentum", "Adagrad",  "Adam",    "RMSProp", "softmax",
    "server",     "fetch"};

// A text's words that read as English: runs of letters between spaces and punctuation,
// leaving out quoted command lines and identifiers (with _ . / : digits or inner capitals,
// such as MatMul, /job:ps/task:0, model.ckpt-N, --save_checkpoint_steps) and the allowed names.
QStringList EnglishWords(QString text) {
  if (Qt::mightBeRichText(text)) {
    QTextDocument document;
    document.setHtml(text);
    text = document.toPlainText();
  }
  text.remove('&');  // mnemonics
  static const QRegularExpression quoted(QStringLiteral("'[^']*'|`[^`]*`"));
  text.remove(quoted);  // command lines quoted in a text: 'clab simulate --calibrate ...'
  QStringList words;
  static const QRegularExpression separators(QStringLiteral("[\\s,;()\\[\\]{}\"'`=+*<>|!?…，。：；（）、]+"));
  static const QRegularExpression letters(QStringLiteral("^[A-Za-z]+[.:]?$"));
  static const QRegularExpression inner_capital(QStringLiteral("^[A-Za-z][a-z]+[A-Z]"));
  for (QString token : text.split(separators, Qt::SkipEmptyParts)) {
    if (!letters.match(token).hasMatch()) continue;
    while (token.endsWith('.') || token.endsWith(':')) token.chop(1);
    if (token.size() < 2 || kAllowed.contains(token) || inner_capital.match(token).hasMatch()) continue;
    if (token == token.toUpper() && token.size() <= 4) continue;  // abbreviations: ID, OK, CA
    words << token;
  }
  return words;
}

bool HasChinese(const QString& text) {
  for (QChar c : text)
    if (c.unicode() >= 0x4E00 && c.unicode() <= 0x9FFF) return true;
  return false;
}

// Every text of `root` and its widgets a user reads, each with where it is.
QList<QPair<QString, QString>> WidgetTexts(QWidget& root) {
  QList<QPair<QString, QString>> texts;
  auto add = [&texts](const QString& where, const QString& text) {
    if (!text.trimmed().isEmpty()) texts.append({where, text});
  };
  auto name = [](const QObject* object) {
    return QString::fromLatin1(object->metaObject()->className()) +
           (object->objectName().isEmpty() ? QString() : "#" + object->objectName());
  };
  add("window title", root.windowTitle());
  QList<QWidget*> widgets = root.findChildren<QWidget*>();
  widgets.prepend(&root);
  for (QWidget* widget : widgets) {
    const QString where = name(widget);
    add(where + " tooltip", widget->toolTip());
    if (auto* label = qobject_cast<QLabel*>(widget)) add(where, label->text());
    if (auto* button = qobject_cast<QAbstractButton*>(widget)) add(where, button->text());
    if (auto* edit = qobject_cast<QLineEdit*>(widget)) add(where + " placeholder", edit->placeholderText());
    if (auto* box = qobject_cast<QGroupBox*>(widget)) add(where, box->title());
    // Read-only rich text: the lessons, the teaching panel's explanations (the console's
    // QPlainTextEdit holds the tasks' own output, which is data).
    if (auto* page = qobject_cast<QTextEdit*>(widget); page && page->isReadOnly()) add(where, page->toPlainText());
    if (auto* dock = qobject_cast<QDockWidget*>(widget)) add(where, dock->windowTitle());
    if (auto* menu = qobject_cast<QMenu*>(widget)) add(where, menu->title());
    if (auto* spin = qobject_cast<QSpinBox*>(widget)) {
      add(where + " prefix", spin->prefix());
      add(where + " suffix", spin->suffix());
      add(where + " special", spin->specialValueText());
    }
    if (auto* combo = qobject_cast<QComboBox*>(widget))
      for (int i = 0; i < combo->count(); ++i) add(where + " item", combo->itemText(i));
    if (auto* bar = qobject_cast<QTabBar*>(widget))
      for (int i = 0; i < bar->count(); ++i) {
        add(where + " tab", bar->tabText(i));
        add(where + " tab tooltip", bar->tabToolTip(i));
      }
    if (auto* header = qobject_cast<QHeaderView*>(widget); header && header->model() && !header->isHidden())
      for (int i = 0; i < header->count(); ++i)
        add(where + " header", header->model()->headerData(i, header->orientation()).toString());
    if (auto* list = qobject_cast<QListWidget*>(widget))
      for (int i = 0; i < list->count(); ++i) add(where + " item", list->item(i)->text());
    if (auto* tree = qobject_cast<QTreeWidget*>(widget))  // the palette's groups (the ops inside are data)
      for (int i = 0; i < tree->topLevelItemCount(); ++i) add(where + " group", tree->topLevelItem(i)->text(0));
    if (auto* chart_view = qobject_cast<QChartView*>(widget)) {
      QChart* chart = chart_view->chart();
      add(where + " title", chart->title());
      for (QAbstractAxis* axis : chart->axes()) add(where + " axis", axis->titleText());
      for (QLegendMarker* marker : chart->legend()->markers())
        if (marker->isVisible()) add(where + " legend", marker->label());
    }
    for (QAction* action : widget->actions()) {
      if (action->isSeparator() || action->objectName().startsWith("_q_")) continue;
      add(where + " action", action->text());
      if (action->toolTip() != QString(action->text()).remove('&')) add(where + " action tooltip", action->toolTip());
      if (QMenu* submenu = action->menu()) add(where + " submenu", submenu->title());
    }
  }
  return texts;
}

// Every text of the main window: its widgets, the status bar and the cluster canvas. The
// project's name (in the title) is the document's, not the studio's.
QList<QPair<QString, QString>> Texts(MainWindow& window) {
  QList<QPair<QString, QString>> texts = WidgetTexts(window);
  for (auto& [where, text] : texts) text.replace(window.project().name, "·");
  auto add = [&texts](const QString& where, const QString& text) {
    if (!text.trimmed().isEmpty()) texts.append({where, text});
  };
  add("status bar", window.statusBar()->currentMessage());
  // The cluster canvas: each task's card (state and tooltip) and the labels on the links.
  for (QGraphicsItem* item : window.scene()->items()) {
    add("canvas tooltip", item->toolTip());
    if (auto* card = dynamic_cast<TaskItem*>(item)) add("canvas card " + card->task(), card->statusText());
    if (auto* label = dynamic_cast<QGraphicsSimpleTextItem*>(item)) add("canvas label", label->text());
  }
  return texts;
}

// The language change reaches the widgets as posted events.
void Settle() {
  for (int i = 0; i < 3; ++i) QCoreApplication::sendPostedEvents();
  QCoreApplication::processEvents();
}

QStringList EnglishTexts(const QList<QPair<QString, QString>>& texts) {
  QStringList english;
  for (const auto& [where, text] : texts) {
    const QStringList words = EnglishWords(text);
    if (!words.isEmpty()) english << QStringLiteral("%1: \"%2\" (%3)").arg(where, text, words.join(' '));
  }
  english.removeDuplicates();
  for (const QString& line : english) qInfo("still English: %s", qPrintable(line));
  return english;
}

void SwitchTo(MainWindow& window, const QString& code) {
  auto* menu = window.findChild<QMenu*>("language-menu");
  QVERIFY(menu);
  QAction* choice = nullptr;
  for (QAction* action : menu->actions())
    if (action->data().toString() == code) choice = action;
  QVERIFY2(choice, qPrintable("no language " + code + " in View > Language"));
  choice->trigger();
  QCOMPARE(StudioLanguage::current(), code);
  Settle();
}

}  // namespace

class LanguageTest : public QObject {
  Q_OBJECT

 private slots:
  void englishWordsAreFound() {
    QCOMPARE(EnglishWords("Run settings"), QStringList({"Run", "settings"}));
    QCOMPARE(EnglishWords("运行设置 MatMul /job:ps/task:0 model.ckpt-10 --save_checkpoint_steps ps:0"), QStringList());
    QCOMPARE(EnglishWords("<b>全局步数</b> 12 steps"), QStringList({"steps"}));
  }

  void mainWindowInChineseAndBack() {
    MainWindow window(QStringLiteral("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SwitchTo(window, "zh_CN");
    const QStringList english = EnglishTexts(Texts(window));
    QVERIFY2(english.isEmpty(),
             qPrintable(QStringLiteral("%1 texts still in English:\n").arg(english.size()) + english.join('\n')));

    SwitchTo(window, "en");
    QStringList chinese;
    for (const auto& [where, text] : Texts(window))
      if (HasChinese(text) && !text.startsWith("中文")) chinese << where + ": " + text;
    chinese.removeDuplicates();
    for (const QString& line : chinese) qInfo("still Chinese: %s", qPrintable(line));
    QVERIFY2(chinese.isEmpty(), qPrintable("Chinese left after switching back:\n" + chinese.join('\n')));
    QCOMPARE(window.menuBar()->actions().first()->text(), QString("&File"));
  }

  // A refused Run's banner, shown in English, is in Chinese after the switch (its text and
  // its button), and in English again after switching back.
  void bannerFollowsTheLanguage() {
    MainWindow window(QStringLiteral("clab"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    Project project = Project::seed();
    // 192.0.2.0/24 is for documentation: never this machine, so Run is refused.
    project.tasks = {{"ps", 0, "127.0.0.1", 2222}, {"worker", 0, "192.0.2.7", 2222}};
    window.setProject(project);
    QVERIFY(!window.runProject(nullptr));
    QVERIFY2(window.banner()->text().startsWith("Cannot run: "), qPrintable(window.banner()->text()));
    SwitchTo(window, "zh_CN");
    QVERIFY(window.banner()->isVisible());
    QVERIFY2(EnglishWords(window.banner()->text()).isEmpty(), qPrintable(window.banner()->text()));
    QVERIFY2(window.banner()->text().contains("192.0.2.7"), qPrintable(window.banner()->text()));
    QVERIFY2(HasChinese(window.banner()->actionText()), qPrintable(window.banner()->actionText()));
    SwitchTo(window, "en");
    QVERIFY2(window.banner()->text().startsWith("Cannot run: "), qPrintable(window.banner()->text()));
    QCOMPARE(window.banner()->actionText(), QString("Run here on 127.0.0.1"));
  }

  // The dialogs a user opens from the menus and the Graph tab, made in Chinese (with
  // CLAB_SCREENSHOT_DIR set, each is saved there as a picture).
  void dialogsInChinese() {
    MainWindow window(QStringLiteral("clab"));
    QVERIFY(StudioLanguage::set("zh_CN"));
    Settle();
    QStringList hosts;
    for (const ProjectTask& task : window.project().tasks) hosts << task.host;
    QList<QPair<QString, QDialog*>> dialogs = {
        {"dialog-launch-zh", new LaunchSettingsDialog(window.project().launch, hosts, &window)},
        {"dialog-dense-zh", new BuilderDialog(BuilderDialog::Kind::kDense, {"x", "w"}, "x", &window)},
        {"dialog-loss-zh", new BuilderDialog(BuilderDialog::Kind::kLoss, {"logits", "labels"}, {}, &window)},
        {"dialog-optimizer-zh", new BuilderDialog(BuilderDialog::Kind::kOptimizer, {"loss"}, {}, &window)},
        {"dialog-device-function-zh", new DeviceFunctionDialog(1, {"/job:worker/task:0"}, &window)}};
    QStringList english;
    const QString shots = qEnvironmentVariable("CLAB_SCREENSHOT_DIR");
    for (const auto& [name, dialog] : dialogs) {
      dialog->show();
      QVERIFY(QTest::qWaitForWindowExposed(dialog));
      english << EnglishTexts(WidgetTexts(*dialog));
      if (!shots.isEmpty()) QVERIFY(dialog->grab().save(QDir(shots).filePath(name + ".png")));
      delete dialog;
    }
    QVERIFY(StudioLanguage::set("en"));
    Settle();
    QVERIFY2(english.isEmpty(),
             qPrintable(QStringLiteral("%1 texts still in English:\n").arg(english.size()) + english.join('\n')));
  }
};

QTEST_MAIN(LanguageTest)
#include "tst_language.moc"
