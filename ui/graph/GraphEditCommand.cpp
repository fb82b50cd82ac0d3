#include "graph/GraphEditCommand.h"

#include "graph/GraphDocument.h"

namespace clab::ui {

GraphEditCommand::GraphEditCommand(const QString& text, GraphDocument* document, tensorflow::GraphDef before,
                                   tensorflow::GraphDef after)
    : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)) {}

void GraphEditCommand::undo() { document_->restore(before_); }

void GraphEditCommand::redo() { document_->restore(after_); }

}  // namespace clab::ui
