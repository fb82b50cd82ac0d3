#include "graph/NodePropertiesView.h"

#include "translations/Retranslate.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/OpRegistry.h"
#include "graph/AttrText.h"
#include "graph/GraphDocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace clab::ui {
namespace {

QString Q(const std::string& s) { return QString::fromStdString(s); }

const std::vector<DataType>& CommonTypes() {
  static const std::vector<DataType> types = {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE, tensorflow::DT_INT32,
                                              tensorflow::DT_INT64, tensorflow::DT_BOOL,   tensorflow::DT_UINT8,
                                              tensorflow::DT_STRING};
  return types;
}

}  // namespace

NodePropertiesView::NodePropertiesView(GraphDocument* document, QWidget* parent)
    : QWidget(parent), document_(document) {
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  problem_ = new QLabel(this);
  problem_->setWordWrap(true);
  problem_->setStyleSheet("color: #b00000;");
  problem_->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(scroll_, 1);
  layout->addWidget(problem_);
  connect(document_, &GraphDocument::changed, this, [this] {
    if (!node_.isEmpty() && document_->node(node_) == nullptr) node_.clear();
    rebuild();
  });
  new Retranslate(this, [this] { rebuild(); });  // builds the page, in the studio's language
}

void NodePropertiesView::showNode(const QString& node) {
  node_ = document_->node(node) ? node : QString();
  problem_->hide();
  rebuild();
}

void NodePropertiesView::setDeviceChoices(const QStringList& devices) {
  device_choices_ = devices;
  rebuild();
}

void NodePropertiesView::setAssignedDevices(const QHash<QString, QString>& assigned) {
  assigned_ = assigned;
  rebuild();
}

QString NodePropertiesView::problem() const { return problem_->isHidden() ? QString() : problem_->text(); }

void NodePropertiesView::refuse(QWidget* field, const QString& why) {
  if (field) {
    field->setStyleSheet("background: #ffd6d6;");
    field->setToolTip(why);
  }
  problem_->setText(why);
  problem_->show();
}

void NodePropertiesView::accept(QWidget* field) {
  if (field) field->setStyleSheet({});
  problem_->hide();
}

void NodePropertiesView::rebuild() {
  auto* page = new QWidget;
  auto* form = new QFormLayout(page);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  // A narrow panel puts a field under its label rather than running off the right.
  form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  if (QWidget* old = scroll_->takeWidget()) old->deleteLater();  // its editors may be mid-signal
  scroll_->setWidget(page);
  const tensorflow::NodeDef* def = document_->node(node_);
  if (def == nullptr) {
    auto* hint =
        new QLabel(tr("Select a node to see and edit its attrs and device.\n\n"
                      "Add nodes from the palette (double-click or drag), connect an output port "
                      "to an input port by dragging."));
    hint->setWordWrap(true);
    hint->setStyleSheet("color: #666;");
    form->addRow(hint);
    return;
  }
  const QString node = node_;
  const OpDef* op = OpRegistry::Global().Find(def->op());

  auto* name = new QLineEdit(node);
  name->setObjectName("name");
  connect(name, &QLineEdit::editingFinished, this, [this, name, node] {
    QString error;
    if (name->text() == node) return;
    if (document_->renameNode(node, name->text(), &error)) {
      node_ = name->text();
      accept(nullptr);
      rebuild();
    } else {
      refuse(name, error);
    }
  });
  form->addRow(tr("Name"), name);
  auto* op_label = new QLabel(QStringLiteral("<b>%1</b>").arg(Q(def->op()).toHtmlEscaped()));
  if (op) op_label->setToolTip(Q(op->summary));
  form->addRow(tr("Op"), op_label);

  auto* device = new QComboBox;
  device->setObjectName("device");
  device->setEditable(true);
  device->addItem(QString());
  for (const QString& choice : device_choices_) device->addItem(choice);
  device->setCurrentText(Q(def->device()));
  device->setToolTip(tr("The device the node asks for: /job:ps/task:0, /job:worker/task:1/cpu:0, or empty"));
  auto apply_device = [this, device, node] {
    QString error;
    const QString text = device->currentText();
    const tensorflow::NodeDef* current = document_->node(node);
    if (current == nullptr || Q(current->device()) == text.trimmed()) return;
    if (document_->setDevice(node, text, &error)) accept(device->lineEdit());
    else refuse(device->lineEdit(), error);
  };
  connect(device->lineEdit(), &QLineEdit::editingFinished, this, apply_device);
  connect(device, &QComboBox::activated, this, apply_device);
  form->addRow(tr("Device"), device);
  if (assigned_.contains(node)) {
    auto* placed = new QLabel(assigned_.value(node));
    placed->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("Placed on"), placed);
  }
  const QString error = document_->error(node);
  if (!error.isEmpty()) {
    auto* label = new QLabel(error);
    label->setObjectName("error");
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet("color: #c00000; font-weight: bold;");
    form->addRow(tr("Error"), label);
  }

  auto set = [this, node](QWidget* field, const QString& attr, const tensorflow::AttrValue& value) {
    QString problem;
    if (document_->setAttr(node, attr, value, &problem) || problem.isEmpty()) accept(field);
    else refuse(field, problem);
  };

  // The op's attrs (defaults filled in), then any private ones the node carries (_class...).
  std::vector<std::pair<std::string, std::string>> attrs;  // name, type
  if (op)
    for (const AttrDef& attr : op->attrs) attrs.emplace_back(attr.name, attr.type);
  for (const auto& [key, value] : def->attr())
    if (!op || op->FindAttr(key) == nullptr) attrs.emplace_back(key, value.has_list() ? "list(string)" : "");
  for (const auto& [attr_name, attr_type] : attrs) {
    const QString attr = Q(attr_name);
    const QString type = Q(attr_type);
    const AttrDef* attr_def = op ? op->FindAttr(attr_name) : nullptr;
    tensorflow::AttrValue value;
    if (def->attr().count(attr_name)) value = def->attr().at(attr_name);
    else if (attr_def && attr_def->default_value) value = *attr_def->default_value;
    QWidget* field = nullptr;
    if (type == "type") {
      auto* combo = new QComboBox;
      const auto& allowed = attr_def && !attr_def->allowed_types.empty() ? attr_def->allowed_types : CommonTypes();
      for (DataType t : allowed) combo->addItem(Q(DataTypeName(t)), static_cast<int>(t));
      const int at = combo->findData(static_cast<int>(value.type()));
      if (at < 0 && value.type() != DT_INVALID)
        combo->addItem(Q(DataTypeName(value.type())), static_cast<int>(value.type()));
      combo->setCurrentIndex(combo->findData(static_cast<int>(value.type())));
      connect(combo, &QComboBox::activated, this,
              [set, combo, attr] { set(combo, attr, AttrOf(static_cast<DataType>(combo->currentData().toInt()))); });
      field = combo;
    } else if (type == "int") {
      auto* spin = new QSpinBox;
      spin->setRange(attr_def && attr_def->has_minimum ? static_cast<int>(attr_def->minimum)
                                                       : std::numeric_limits<int>::min(),
                     std::numeric_limits<int>::max());
      spin->setValue(static_cast<int>(value.i()));
      connect(spin, &QSpinBox::editingFinished, this,
              [set, spin, attr] { set(spin, attr, AttrOf(int64_t{spin->value()})); });
      field = spin;
    } else if (type == "float") {
      auto* edit = new QLineEdit(QString::number(static_cast<double>(value.f()), 'g', 9));
      edit->setValidator(new QDoubleValidator(edit));
      connect(edit, &QLineEdit::editingFinished, this, [this, set, edit, attr] {
        bool ok = false;
        const double number = edit->text().toDouble(&ok);
        if (ok) set(edit, attr, AttrOf(static_cast<float>(number)));
        else refuse(edit, tr("'%1' is not a number").arg(edit->text()));
      });
      field = edit;
    } else if (type == "bool") {
      auto* check = new QCheckBox;
      check->setChecked(value.b());
      connect(check, &QCheckBox::toggled, this, [set, check, attr](bool on) { set(check, attr, AttrOf(on)); });
      field = check;
    } else if (type == "string" && attr_def && !attr_def->allowed_values.empty()) {
      auto* combo = new QComboBox;
      for (const std::string& choice : attr_def->allowed_values) combo->addItem(Q(choice));
      combo->setCurrentText(Q(value.s()));
      connect(combo, &QComboBox::activated, this,
              [set, combo, attr] { set(combo, attr, AttrOf(combo->currentText().toStdString())); });
      field = combo;
    } else if (type == "string") {
      auto* edit = new QLineEdit(Q(value.s()));
      connect(edit, &QLineEdit::editingFinished, this,
              [set, edit, attr] { set(edit, attr, AttrOf(edit->text().toStdString())); });
      field = edit;
    } else if (type == "shape") {
      auto* edit = new QLineEdit(AttrText::shapeText(PartialShape::FromProto(value.shape())));
      edit->setPlaceholderText("[2,-1]");
      connect(edit, &QLineEdit::editingFinished, this, [this, set, edit, attr] {
        auto shape = AttrText::parseShape(edit->text());
        if (!shape.ok()) return refuse(edit, Q(std::string(shape.status().message())));
        set(edit, attr, AttrOf(*shape));
      });
      field = edit;
    } else if (type == "tensor") {
      Tensor tensor;
      auto parsed = Tensor::FromProto(value.tensor());
      auto* edit = new QLineEdit(parsed.ok() ? AttrText::tensorText(*parsed) : QString());
      edit->setPlaceholderText("[[1, 2], [3, 4]]");
      edit->setToolTip(tr("The value as JSON: a number, or nested lists of numbers"));
      connect(edit, &QLineEdit::editingFinished, this, [this, set, edit, attr, node] {
        const tensorflow::NodeDef* current = document_->node(node);
        DataType dtype = DT_INVALID;
        if (current) GetNodeAttr(*current, "dtype", &dtype).IgnoreError();
        auto tensor = AttrText::parseTensor(edit->text(), dtype);
        if (!tensor.ok()) return refuse(edit, Q(std::string(tensor.status().message())));
        set(edit, attr, AttrOf(*tensor));
      });
      field = edit;
    } else if (type.startsWith("list(")) {
      auto* edit = new QLineEdit(AttrText::listText(value, type));
      connect(edit, &QLineEdit::editingFinished, this, [this, set, edit, attr, type] {
        auto list = AttrText::parseList(edit->text(), type);
        if (!list.ok()) return refuse(edit, Q(std::string(list.status().message())));
        set(edit, attr, *list);
      });
      field = edit;
    } else {
      auto* label = new QLabel(Q(AttrValueSummary(value)));
      label->setWordWrap(true);
      field = label;
    }
    field->setObjectName("attr:" + attr);
    form->addRow(attr, field);
  }
  // Fields are as narrow as the panel: a combo box as wide as its longest device name or a
  // spin box as wide as its range would make the panel scroll sideways.
  for (auto* combo : page->findChildren<QComboBox*>()) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(6);
  }
  for (auto* spin : page->findChildren<QSpinBox*>()) spin->setMinimumWidth(60);
}

}  // namespace clab::ui
