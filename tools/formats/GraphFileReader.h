// Reads a GraphDef from a file, text (.pbtxt) or binary (.pb), deciding by the bytes rather
// than the name: TensorFlow users often save text graphs as ".pb" and the reverse.
// Errors name the file; text parse errors add TensorFlow-tool-style "file:line:column".
#pragma once

#include "clab/core/Status.h"
#include "tensorflow/graph.pb.h"

#include <string>

namespace clab::tools {

class GraphFileReader {
 public:
  enum class Format { kText, kBinary };

  static StatusOr<tensorflow::GraphDef> Read(const std::string& path);
  // Read, then refuse a graph that uses ops the engine does not have, naming all of them in
  // one line (rather than failing on the first one, which makes users iterate).
  static StatusOr<tensorflow::GraphDef> ReadSupported(const std::string& path);
  // Text when the bytes contain no control characters other than whitespace: a binary
  // GraphDef always has them (every NodeDef's op field starts with the byte 0x12).
  static Format DetectFormat(absl::string_view bytes);
};

}  // namespace clab::tools
