#include "formats/GraphFileReader.h"

#include "clab/graph/OpRegistry.h"
#include "clab/graph/TextProto.h"

#include <absl/strings/match.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

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

std::string Basename(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The first field name of a text message, skipping comments: "meta_graphs" starts a
// SavedModel, "meta_info_def" or "graph_def" a MetaGraphDef.
std::string FirstTextField(absl::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      break;
    }
  }
  size_t end = i;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
  return std::string(text.substr(i, end - i));
}

std::vector<GraphFileReader::Kind> KindsToTry(const std::string& path, absl::string_view bytes,
                                              GraphFileReader::Format format) {
  using Kind = GraphFileReader::Kind;
  const std::string name = Basename(path);
  Kind first = Kind::kGraphDef;
  if (format == GraphFileReader::Format::kText) {
    const std::string field = FirstTextField(bytes);
    if (field == "meta_graphs" || field == "saved_model_schema_version") first = Kind::kSavedModel;
    if (field == "meta_info_def" || field == "graph_def" || field == "saver_def" || field == "collection_def" ||
        field == "signature_def")
      first = Kind::kMetaGraphDef;
  } else if (absl::EndsWith(name, ".meta")) {
    first = Kind::kMetaGraphDef;
  } else if (absl::StrContains(name, "saved_model")) {
    first = Kind::kSavedModel;
  }
  std::vector<Kind> order = {first};
  // A text file names its first field: the type is known, and its errors are the ones to show.
  if (format == GraphFileReader::Format::kText) return order;
  for (Kind kind : {Kind::kGraphDef, Kind::kMetaGraphDef, Kind::kSavedModel})
    if (kind != first) order.push_back(kind);
  return order;
}

Status Parse(const std::string& path, const std::string& bytes, GraphFileReader::Format format,
             GraphFileReader::Kind kind, google::protobuf::Message* message) {
  const char* type = GraphFileReader::KindName(kind);
  if (format == GraphFileReader::Format::kText) {
    // A MetaGraphDef's or SavedModel's signatures, assets and object graph are not read.
    const Status strict = ParseTextProto(bytes, path, message, kind != GraphFileReader::Kind::kGraphDef);
    if (strict.ok()) return OkStatus();
    // The bodies of a graph's function library and its nodes' debug info are TensorFlow's
    // additions that ClusterLab does not model: a text graph holding them is read without
    // them (a binary one keeps them as unknown fields). Other unknown fields stay errors.
    const bool has_additions =
        absl::StrContains(bytes, "\nlibrary {") || absl::StrContains(bytes, "experimental_debug_info {");
    if (kind == GraphFileReader::Kind::kGraphDef && has_additions) {
      message->Clear();
      if (ParseTextProto(bytes, path, message, /*allow_unknown_fields=*/true).ok()) return OkStatus();
    }
    return strict;
  }
  // Parsing as the wrong message type makes protobuf log complaints about its strings.
  google::protobuf::LogSilencer silence;
  if (message->ParseFromString(bytes)) return OkStatus();
  return errors::InvalidArgument(path, ": not a valid binary ", type, " (protobuf cannot parse its ", bytes.size(),
                                 " bytes)");
}

tensorflow::MetaGraphDef PickMetaGraph(const tensorflow::SavedModel& saved) {
  for (const auto& meta : saved.meta_graphs())
    for (const std::string& tag : meta.meta_info_def().tags())
      if (tag == "train") return meta;
  return saved.meta_graphs(0);
}

}  // namespace

GraphFileReader::Format GraphFileReader::DetectFormat(absl::string_view bytes) {
  for (unsigned char c : bytes) {
    const bool whitespace = c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if ((c < 0x20 && !whitespace) || c == 0x7f) return Format::kBinary;
  }
  return Format::kText;
}

StatusOr<tensorflow::MetaGraphDef> GraphFileReader::ReadMetaGraph(const std::string& path, Kind* kind_out) {
  CLAB_ASSIGN_OR_RETURN(const std::string bytes, ReadBytes(path));
  if (bytes.empty())
    return errors::InvalidArgument("'", path,
                                   "' is empty: expected a GraphDef (.pbtxt or .pb), a MetaGraphDef (.meta) or a "
                                   "SavedModel (saved_model.pb)");
  const Format format = DetectFormat(bytes);
  const std::vector<Kind> order = KindsToTry(path, bytes, format);
  Status first_error;
  std::optional<tensorflow::MetaGraphDef> empty_graph;
  for (Kind kind : order) {
    tensorflow::SavedModel saved;
    tensorflow::MetaGraphDef meta;
    google::protobuf::Message* message = kind == Kind::kSavedModel     ? static_cast<google::protobuf::Message*>(&saved)
                                         : kind == Kind::kMetaGraphDef ? static_cast<google::protobuf::Message*>(&meta)
                                                                       : meta.mutable_graph_def();
    Status parsed = Parse(path, bytes, format, kind, message);
    if (!parsed.ok()) {
      if (first_error.ok()) first_error = parsed;
      continue;
    }
    if (kind == Kind::kSavedModel) {
      if (saved.meta_graphs_size() == 0) continue;
      meta = PickMetaGraph(saved);
    }
    // A message of the wrong type may parse without error but hold no graph: try the next.
    if (meta.graph_def().node_size() == 0) {
      if (!empty_graph) {
        empty_graph = std::move(meta);
        if (kind_out != nullptr) *kind_out = kind;
      }
      continue;
    }
    if (kind_out != nullptr) *kind_out = kind;
    return meta;
  }
  if (empty_graph) return *std::move(empty_graph);  // a graph with no nodes, as written
  return first_error;
}

StatusOr<tensorflow::GraphDef> GraphFileReader::Read(const std::string& path) {
  CLAB_ASSIGN_OR_RETURN(tensorflow::MetaGraphDef meta, ReadMetaGraph(path));
  return std::move(*meta.mutable_graph_def());
}

const char* GraphFileReader::KindName(Kind kind) {
  switch (kind) {
    case Kind::kGraphDef: return "GraphDef";
    case Kind::kMetaGraphDef: return "MetaGraphDef";
    case Kind::kSavedModel: return "SavedModel";
  }
  return "?";
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
