#include "graph/BuilderDialog.h"

#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

namespace clab::ui {

BuilderDialog::BuilderDialog(Kind kind, const QStringList& node_names, const QString& selected, QWidget* parent)
    : QDialog(parent), kind_(kind) {
  auto* form = new QFormLayout;
  choice_ = new QComboBox(this);
  switch (kind) {
    case Kind::kDense:
      setWindowTitle(tr("Add a dense layer"));
      first_ = tensorField(node_names, selected);
      units_ = new QSpinBox(this);
      units_->setRange(1, 1 << 20);
      units_->setValue(32);
      addChoices(GraphBuilders::activations());
      choice_->setCurrentIndex(choice_->findData(QStringLiteral("relu")));
      name_ = new QLineEdit("dense", this);
      form->addRow(tr("Input"), first_);
      form->addRow(tr("Units"), units_);
      form->addRow(tr("Activation"), choice_);
      form->addRow(tr("Name scope"), name_);
      break;
    case Kind::kLoss:
      setWindowTitle(tr("Add a loss"));
      addChoices(GraphBuilders::losses());
      first_ = tensorField(node_names, selected);
      second_ = tensorField(node_names, node_names.contains("labels") ? "labels" : QString());
      form->addRow(tr("Loss"), choice_);
      form->addRow(tr("Logits / predictions"), first_);
      form->addRow(tr("Labels"), second_);
      break;
    case Kind::kOptimizer:
      setWindowTitle(tr("Add an optimizer"));
      addChoices(GraphBuilders::optimizers());
      rate_ = new QDoubleSpinBox(this);
      rate_->setDecimals(6);
      rate_->setRange(0.000001, 100);
      rate_->setValue(0.1);
      first_ = tensorField(node_names, node_names.contains("loss") ? "loss" : selected);
      form->addRow(tr("Optimizer"), choice_);
      form->addRow(tr("Learning rate"), rate_);
      form->addRow(tr("Loss"), first_);
      break;
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
  setLayout(form);
}

void BuilderDialog::addChoices(const QStringList& keys) {
  // Shown in the studio's language; names of TensorFlow functions and classes (relu, Adam)
  // have no translation and stay as they are. The builders take the key.
  [[maybe_unused]] static const char* const kTexts[] = {QT_TR_NOOP("none"), QT_TR_NOOP("sparse softmax cross-entropy"),
                                                        QT_TR_NOOP("mean squared error")};
  for (const QString& key : keys) choice_->addItem(tr(key.toUtf8().constData()), key);
}

QLineEdit* BuilderDialog::tensorField(const QStringList& names, const QString& text) {
  auto* field = new QLineEdit(text, this);
  auto* completer = new QCompleter(names, field);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  field->setCompleter(completer);
  return field;
}

StatusOr<BuildResult> BuilderDialog::build(const tensorflow::GraphDef& graph) const {
  switch (kind_) {
    case Kind::kDense:
      return GraphBuilders::addDense(graph, first_->text(), units_->value(), choice_->currentData().toString(),
                                     name_->text());
    case Kind::kLoss:
      return GraphBuilders::addLoss(graph, choice_->currentData().toString(), first_->text(), second_->text());
    case Kind::kOptimizer:
      return GraphBuilders::addOptimizer(graph, choice_->currentData().toString(), rate_->value(), first_->text());
  }
  return errors::Internal("unknown builder");
}

}  // namespace clab::ui
