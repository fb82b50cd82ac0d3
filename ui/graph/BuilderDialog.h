// The small forms behind the graph editor's Build menu: a dense layer (input, units,
// activation, name), a loss (kind, predictions, labels) or an optimizer (kind, learning
// rate, loss). Tensor fields complete node names; the selected node fills the first one.
#pragma once

#include "graph/GraphBuilders.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace clab::ui {

class BuilderDialog : public QDialog {
  Q_OBJECT

 public:
  enum class Kind { kDense, kLoss, kOptimizer };
  BuilderDialog(Kind kind, const QStringList& node_names, const QString& selected, QWidget* parent = nullptr);

  // What the form describes, applied to `graph`.
  StatusOr<BuildResult> build(const tensorflow::GraphDef& graph) const;

 private:
  QLineEdit* tensorField(const QStringList& names, const QString& text);
  void addChoices(const QStringList& keys);  // builder keys, shown translated

  Kind kind_;
  QLineEdit* first_ = nullptr;   // input, predictions or loss
  QLineEdit* second_ = nullptr;  // labels
  QLineEdit* name_ = nullptr;
  QSpinBox* units_ = nullptr;
  QComboBox* choice_ = nullptr;  // activation, loss kind or optimizer
  QDoubleSpinBox* rate_ = nullptr;
};

}  // namespace clab::ui
