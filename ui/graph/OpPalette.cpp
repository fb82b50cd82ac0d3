#include "graph/OpPalette.h"

#include "translations/Retranslate.h"

#include "clab/graph/OpRegistry.h"
#include "graph/GraphView.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QMap>
#include <QMimeData>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace clab::ui {
namespace {

constexpr int kOpRole = Qt::UserRole + 1;

// A tree whose op items drag as the op's name.
class OpTree : public QTreeWidget {
 public:
  using QTreeWidget::QTreeWidget;

 protected:
  QStringList mimeTypes() const override { return {GraphView::kOpMimeType}; }
  QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override {
    if (items.isEmpty() || items.first()->data(0, kOpRole).toString().isEmpty()) return nullptr;
    auto* data = new QMimeData;
    data->setData(GraphView::kOpMimeType, items.first()->data(0, kOpRole).toString().toUtf8());
    data->setText(items.first()->data(0, kOpRole).toString());
    return data;
  }
};

// The op registry's groups, named in the studio's language (the registry's names are data).
const char* const kGroupNames[] = {
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "array"),        QT_TRANSLATE_NOOP("clab::ui::OpPalette", "control"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "data"),         QT_TRANSLATE_NOOP("clab::ui::OpPalette", "internal"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "logic"),        QT_TRANSLATE_NOOP("clab::ui::OpPalette", "math"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "nn"),           QT_TRANSLATE_NOOP("clab::ui::OpPalette", "queue"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "random"),       QT_TRANSLATE_NOOP("clab::ui::OpPalette", "runtime"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "saver"),        QT_TRANSLATE_NOOP("clab::ui::OpPalette", "state"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "string"),       QT_TRANSLATE_NOOP("clab::ui::OpPalette", "summary"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "train"),        QT_TRANSLATE_NOOP("clab::ui::OpPalette", "training"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "other"),        QT_TRANSLATE_NOOP("clab::ui::OpPalette", "declared"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "unknown"),      QT_TRANSLATE_NOOP("clab::ui::OpPalette", "io"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "tensor array"), QT_TRANSLATE_NOOP("clab::ui::OpPalette", "sparse"),
    QT_TRANSLATE_NOOP("clab::ui::OpPalette", "lookup")};
constexpr int kGroupRole = Qt::UserRole + 2;

}  // namespace

OpPalette::OpPalette(QWidget* parent) : QWidget(parent) {
  filter_ = new QLineEdit(this);
  filter_->setClearButtonEnabled(true);
  tree_ = new OpTree(this);
  tree_->setHeaderHidden(true);
  tree_->setDragEnabled(true);
  tree_->setDragDropMode(QAbstractItemView::DragOnly);
  tree_->setRootIsDecorated(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(filter_);
  layout->addWidget(tree_);

  QMap<QString, QTreeWidgetItem*> groups;
  for (const OpDef* op : OpRegistry::Global().ListOps()) {
    const QString group = op->group.empty() ? QString("other") : QString::fromStdString(op->group);
    QTreeWidgetItem*& parent_item = groups[group];
    if (parent_item == nullptr) {
      parent_item = new QTreeWidgetItem(QStringList{group});
      parent_item->setData(0, kGroupRole, group);
      parent_item->setFlags(Qt::ItemIsEnabled);
      QFont bold = parent_item->font(0);
      bold.setBold(true);
      parent_item->setFont(0, bold);
    }
    auto* item = new QTreeWidgetItem(parent_item, QStringList{QString::fromStdString(op->name)});
    item->setData(0, kOpRole, QString::fromStdString(op->name));
    item->setToolTip(0, QString::fromStdString(op->summary.empty() ? op->name : op->name + ": " + op->summary));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
  }
  for (QTreeWidgetItem* group : groups) tree_->addTopLevelItem(group);
  tree_->collapseAll();
  new Retranslate(this, [this] {
    filter_->setPlaceholderText(tr("Filter ops"));
    for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
      QTreeWidgetItem* group = tree_->topLevelItem(i);
      const QByteArray name = group->data(0, kGroupRole).toString().toUtf8();
      group->setText(0, tr(name.constData()));
    }
  });

  connect(filter_, &QLineEdit::textChanged, this, &OpPalette::setFilter);
  connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    const QString op = item->data(0, kOpRole).toString();
    if (!op.isEmpty()) emit opActivated(op);
  });
  connect(filter_, &QLineEdit::returnPressed, this, [this] {
    const QStringList shown = visibleOps();
    if (shown.size() == 1) emit opActivated(shown.first());
  });
}

int OpPalette::setFilter(const QString& text) {
  if (filter_->text() != text) filter_->setText(text);  // comes back here through textChanged
  int shown = 0;
  for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = tree_->topLevelItem(g);
    int in_group = 0;
    for (int i = 0; i < group->childCount(); ++i) {
      QTreeWidgetItem* item = group->child(i);
      const bool match = text.isEmpty() || item->text(0).contains(text, Qt::CaseInsensitive) ||
                         item->toolTip(0).contains(text, Qt::CaseInsensitive);
      item->setHidden(!match);
      in_group += match ? 1 : 0;
    }
    group->setHidden(in_group == 0);
    group->setExpanded(!text.isEmpty() && in_group > 0);
    shown += in_group;
  }
  return shown;
}

QStringList OpPalette::visibleOps() const {
  QStringList ops;
  for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = tree_->topLevelItem(g);
    if (group->isHidden()) continue;
    for (int i = 0; i < group->childCount(); ++i)
      if (!group->child(i)->isHidden()) ops << group->child(i)->text(0);
  }
  return ops;
}

}  // namespace clab::ui
