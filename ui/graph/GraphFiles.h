// Graph files for the graph editor: GraphDefs read as the `clab` command line reads them
// (text or binary, decided by the bytes) and written as TensorFlow writes them
// (tf.train.write_graph: protobuf text format for .pbtxt/.txt, binary otherwise); and the
// text form a project keeps its graph in.
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <QString>

namespace clab::ui {

class GraphFiles {
 public:
  static StatusOr<tensorflow::GraphDef> read(const QString& path);
  // Text when the name ends in .pbtxt or .txt, binary otherwise.
  static Status write(const QString& path, const tensorflow::GraphDef& graph);
  static bool isTextPath(const QString& path);

  static QString toText(const tensorflow::GraphDef& graph);
  static StatusOr<tensorflow::GraphDef> fromText(const QString& text);
};

}  // namespace clab::ui
