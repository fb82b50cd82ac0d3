#include "formats/GraphFileReader.h"

#include "clab/graph/OpRegistry.h"
#include "clab/graph/TextProto.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace clab::tools {
namespace {

StatusOr<std::string> ReadBytes(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    return errors::InvalidArgument("cannot read '", path, "': it is a directory, not a GraphDef file");
  std::ifstream file(path, std::ios::binary);
  if (!file) return errors::NotFound("cannot read '", path, "': ", std::strerror(errno));
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (file.bad()) return errors::DataLoss("cannot read '", path, "': ", std::strerror(errno));
  return bytes.str();
}

}  // namespace

GraphFileReader::Format GraphFileReader::DetectFormat(absl::string_view bytes) {
  for (unsigned char c : bytes) {
    const bool whitespace = c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if ((c < 0x20 && !whitespace) || c == 0x7f) return Format::kBinary;
  }
  return Format::kText;
}

StatusOr<tensorflow::GraphDef> GraphFileReader::Read(const std::string& path) {
  CLAB_ASSIGN_OR_RETURN(const std::string bytes, ReadBytes(path));
  if (bytes.empty())
    return errors::InvalidArgument("'", path, "' is empty: expected a GraphDef (.pbtxt text or .pb binary)");

  tensorflow::GraphDef graph;
  if (DetectFormat(bytes) == Format::kText) {
    CLAB_RETURN_IF_ERROR(ParseTextProto(bytes, path, &graph));
    return graph;
  }
  if (!graph.ParseFromString(bytes))
    return errors::InvalidArgument(path, ": not a valid binary GraphDef (protobuf cannot parse its ", bytes.size(),
                                   " bytes)");
  return graph;
}

StatusOr<tensorflow::GraphDef> GraphFileReader::ReadSupported(const std::string& path) {
  CLAB_ASSIGN_OR_RETURN(tensorflow::GraphDef graph, Read(path));
  const std::vector<std::string> unsupported = UnregisteredOps(graph);
  if (!unsupported.empty())
    return errors::Unimplemented("'", path, "' uses ", unsupported.size() == 1 ? "an op" : "ops",
                                 " that ClusterLab does not support: ", absl::StrJoin(unsupported, ", "),
                                 " (see 'clab ops' for the supported ones)");
  return graph;
}

}  // namespace clab::tools
