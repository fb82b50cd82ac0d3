// Reads the graph of a file that TensorFlow (or ClusterLab) wrote: a GraphDef
// (tf.train.write_graph, frozen graphs), a MetaGraphDef (a Saver's `.meta`) or a SavedModel
// (`saved_model.pb`/`.pbtxt`), text or binary. The encoding is told from the bytes rather
// than the name (users often save text graphs as ".pb" and the reverse); the message type
// from the name (".meta", "saved_model") and, failing that, from the contents. Errors name
// the file; text parse errors add TensorFlow-tool-style "file:line:column".
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"
#include "tensorflow/meta_graph.pb.h"

#include <string>

namespace clab::tools {

class GraphFileReader {
 public:
  enum class Format { kText, kBinary };
  enum class Kind { kGraphDef, kMetaGraphDef, kSavedModel };

  // The file as a MetaGraphDef: a GraphDef comes back as one holding only its graph_def; of
  // a SavedModel's meta graphs, the one tagged "train" if any, else the first.
  static StatusOr<tensorflow::MetaGraphDef> ReadMetaGraph(const std::string& path, Kind* kind = nullptr);
  // The graph_def of ReadMetaGraph.
  static StatusOr<tensorflow::GraphDef> Read(const std::string& path);
  // Read, then refuse a graph that uses ops the engine does not have, naming all of them in
  // one line (rather than failing on the first one, which makes users iterate).
  static StatusOr<tensorflow::GraphDef> ReadSupported(const std::string& path);
  // Text when the bytes contain no control characters other than whitespace: a binary
  // GraphDef always has them (every NodeDef's op field starts with the byte 0x12).
  static Format DetectFormat(absl::string_view bytes);
  static const char* KindName(Kind kind);
};

}  // namespace clab::tools
