// The selected node's properties: its name, op, requested device (with the project's tasks
// offered), the device the Placer chose, its error, and one widget per attr fitting the
// attr's type: a type combo, an int spin box, a number field, a check box, a text field or
// a choice of the allowed values, a shape "[2,-1]", a tensor as JSON "[[1, 2]]" (a Const's
// value), a list as a JSON array. Each change is one undoable edit of the document; text
// that does not parse turns the field red with the reason, and changes nothing.
//
// Widgets are named for tests: "name", "device", "attr:<attr name>".
#pragma once

#include <QHash>
#include <QWidget>

class QLabel;
class QScrollArea;

namespace clab::ui {

class GraphDocument;

class NodePropertiesView : public QWidget {
  Q_OBJECT

 public:
  explicit NodePropertiesView(GraphDocument* document, QWidget* parent = nullptr);

  // "" shows nothing.
  void showNode(const QString& node);
  const QString& node() const { return node_; }
  void setDeviceChoices(const QStringList& devices);
  void setAssignedDevices(const QHash<QString, QString>& assigned);
  // The last refusal ("[2,x" is not a shape...), empty after a good edit.
  QString problem() const;

 private:
  void rebuild();
  void refuse(QWidget* field, const QString& why);
  void accept(QWidget* field);

  GraphDocument* document_;
  QString node_;
  QStringList device_choices_;
  QHash<QString, QString> assigned_;
  QScrollArea* scroll_;
  QLabel* problem_;
};

}  // namespace clab::ui
