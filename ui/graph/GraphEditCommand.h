// One undoable edit of the graph document: the whole GraphDef before and after, so undo and
// redo restore exactly what was there (as ProjectEditCommand does for the project). A
// GraphDef of a thousand nodes is a few hundred kilobytes: snapshots stay cheap.
#pragma once

#include "tensorflow/graph.pb.h"

#include <QUndoCommand>

namespace clab::ui {

class GraphDocument;

class GraphEditCommand : public QUndoCommand {
 public:
  GraphEditCommand(const QString& text, GraphDocument* document, tensorflow::GraphDef before,
                   tensorflow::GraphDef after);

  void undo() override;
  void redo() override;

 private:
  GraphDocument* const document_;
  const tensorflow::GraphDef before_;
  const tensorflow::GraphDef after_;
};

}  // namespace clab::ui
