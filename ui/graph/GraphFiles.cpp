#include "graph/GraphFiles.h"

#include "clab/graph/GraphVersions.h"
#include "clab/graph/TextProto.h"
#include "formats/GraphFileReader.h"

#include <google/protobuf/text_format.h>

#include <QSaveFile>

namespace clab::ui {

StatusOr<tensorflow::GraphDef> GraphFiles::read(const QString& path) {
  return tools::GraphFileReader::Read(path.toStdString());
}

bool GraphFiles::isTextPath(const QString& path) {
  return path.endsWith(".pbtxt", Qt::CaseInsensitive) || path.endsWith(".txt", Qt::CaseInsensitive);
}

Status GraphFiles::write(const QString& path, const tensorflow::GraphDef& given) {
  // A graph whose producer is unset (drawn in the studio, or a frozen graph written without
  // versions) gets ClusterLab's, which TensorFlow checks on import; others keep theirs.
  tensorflow::GraphDef graph = given;
  if (graph.versions().producer() == 0) graph.mutable_versions()->set_producer(kGraphDefProducer);
  std::string bytes;
  if (isTextPath(path)) {
    if (!google::protobuf::TextFormat::PrintToString(graph, &bytes))
      return errors::Internal("cannot print the graph as text");
  } else if (!graph.SerializeToString(&bytes)) {
    return errors::Internal("cannot serialise the graph");
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return errors::PermissionDenied(path.toStdString(), ": ", file.errorString().toStdString());
  file.write(bytes.data(), static_cast<qint64>(bytes.size()));
  if (!file.commit()) return errors::DataLoss(path.toStdString(), ": ", file.errorString().toStdString());
  return OkStatus();
}

QString GraphFiles::toText(const tensorflow::GraphDef& graph) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(graph, &text);
  return QString::fromStdString(text);
}

StatusOr<tensorflow::GraphDef> GraphFiles::fromText(const QString& text) {
  tensorflow::GraphDef graph;
  CLAB_RETURN_IF_ERROR(ParseTextProto(text.toStdString(), "the graph", &graph));
  return graph;
}

}  // namespace clab::ui
