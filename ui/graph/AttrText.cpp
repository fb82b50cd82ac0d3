#include "graph/AttrText.h"

#include "formats/JsonTensorParser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QRegularExpression>
#include <QStringList>

namespace clab::ui {
namespace {

template <typename T>
QString ElementText(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    QString text = QString::number(static_cast<double>(value), 'g', std::is_same_v<T, float> ? 9 : 17);
    return text;
  } else {
    return QString::number(static_cast<qint64>(value));
  }
}

// Writes dims [dim, rank) of the values starting at *index as nested lists.
template <typename T>
void AppendNested(const T* values, const TensorShape& shape, int dim, int64_t* index, QString* out) {
  if (dim == shape.rank()) {
    if constexpr (std::is_same_v<T, std::string>) {
      *out += QString::fromUtf8(
                  QJsonDocument(QJsonArray{QString::fromStdString(values[*index])}).toJson(QJsonDocument::Compact))
                  .mid(1)
                  .chopped(1);
    } else {
      *out += ElementText(values[*index]);
    }
    ++*index;
    return;
  }
  *out += '[';
  for (int64_t i = 0; i < shape.dim(dim); ++i) {
    if (i > 0) *out += ", ";
    AppendNested(values, shape, dim + 1, index, out);
  }
  *out += ']';
}

QString ElementType(const QString& list_type) {
  static const QRegularExpression pattern("^list\\((\\w+)\\)$");
  const auto match = pattern.match(list_type);
  return match.hasMatch() ? match.captured(1) : QString();
}

}  // namespace

QString AttrText::shapeText(const PartialShape& shape) {
  if (!shape.known_rank()) return "<unknown>";
  QStringList dims;
  for (int64_t dim : shape.dims()) dims << QString::number(dim);
  return "[" + dims.join(',') + "]";
}

StatusOr<PartialShape> AttrText::parseShape(const QString& text) {
  const QString trimmed = text.trimmed();
  if (trimmed == "<unknown>" || trimmed == "*" || trimmed == "?") return PartialShape::Unknown();
  if (!trimmed.startsWith('[') || !trimmed.endsWith(']'))
    return errors::InvalidArgument("'", trimmed.toStdString(), "' is not a shape: write it as [2,3], [] or [-1,4]");
  const QString inner = trimmed.mid(1, trimmed.size() - 2).trimmed();
  std::vector<int64_t> dims;
  if (inner.isEmpty()) return PartialShape(dims);
  for (const QString& part : inner.split(',')) {
    const QString dim = part.trimmed();
    if (dim == "?" || dim == "None") {
      dims.push_back(-1);
      continue;
    }
    bool ok = false;
    const qint64 value = dim.toLongLong(&ok);
    if (!ok || value < -1)
      return errors::InvalidArgument("'", dim.toStdString(), "' is not a dimension: a size >= 0, or -1 for unknown");
    dims.push_back(value);
  }
  return PartialShape(dims);
}

QString AttrText::tensorText(const Tensor& tensor) {
  if (!tensor.IsInitialized()) return {};
  QString out;
  int64_t index = 0;
  if (tensor.dtype() == DT_STRING) {
    AppendNested(tensor.data<std::string>(), tensor.shape(), 0, &index, &out);
    return out;
  }
  CLAB_SWITCH_POD_TYPES(tensor.dtype(), T, AppendNested(tensor.data<T>(), tensor.shape(), 0, &index, &out),
                        return QString::fromStdString(tensor.DebugString()));
  return out;
}

StatusOr<Tensor> AttrText::parseTensor(const QString& text, DataType dtype) {
  const std::string bytes = text.toStdString();
  return tools::JsonTensorParser::Parse(absl::string_view(bytes.data(), bytes.size()), dtype);
}

QString AttrText::listText(const tensorflow::AttrValue& value, const QString& list_type) {
  const QString element = ElementType(list_type);
  const auto& list = value.list();
  QStringList items;
  if (element == "int") {
    for (int64_t v : list.i()) items << QString::number(v);
  } else if (element == "float") {
    for (float v : list.f()) items << ElementText(v);
  } else if (element == "bool") {
    for (bool v : list.b()) items << ElementText(v);
  } else if (element == "type") {
    for (int v : list.type()) items << "\"" + QString::fromStdString(DataTypeName(static_cast<DataType>(v))) + "\"";
  } else if (element == "shape") {
    for (const auto& shape : list.shape()) items << "\"" + shapeText(PartialShape::FromProto(shape)) + "\"";
  } else {
    for (const std::string& v : list.s()) {
      const QByteArray json = QJsonDocument(QJsonArray{QString::fromStdString(v)}).toJson(QJsonDocument::Compact);
      items << QString::fromUtf8(json.mid(1, json.size() - 2));
    }
  }
  return "[" + items.join(", ") + "]";
}

StatusOr<tensorflow::AttrValue> AttrText::parseList(const QString& text, const QString& list_type) {
  const QString element = ElementType(list_type);
  QJsonParseError error;
  const QJsonDocument document = QJsonDocument::fromJson(text.trimmed().toUtf8(), &error);
  if (error.error != QJsonParseError::NoError || !document.isArray())
    return errors::InvalidArgument("'", text.toStdString(), "' is not a list: write a JSON array such as [1, 2]");
  tensorflow::AttrValue value;
  auto* list = value.mutable_list();
  const QJsonArray array = document.array();
  for (int i = 0; i < array.size(); ++i) {
    const QJsonValue item = array[i];
    auto bad = [&](const char* want) { return errors::InvalidArgument("item ", i, " of the list: wants ", want); };
    if (element == "int") {
      if (!item.isDouble() || item.toDouble() != static_cast<double>(item.toInteger())) return bad("a whole number");
      list->add_i(item.toInteger());
    } else if (element == "float") {
      if (!item.isDouble()) return bad("a number");
      list->add_f(static_cast<float>(item.toDouble()));
    } else if (element == "bool") {
      if (!item.isBool()) return bad("true or false");
      list->add_b(item.toBool());
    } else if (element == "type") {
      if (!item.isString()) return bad("a type name such as \"float\"");
      CLAB_ASSIGN_OR_RETURN(const DataType dtype, DataTypeFromName(item.toString().toStdString()));
      list->add_type(dtype);
    } else if (element == "shape") {
      if (!item.isString()) return bad("a shape such as \"[2,3]\"");
      CLAB_ASSIGN_OR_RETURN(const PartialShape shape, parseShape(item.toString()));
      shape.AsProto(list->add_shape());
    } else {
      if (!item.isString()) return bad("a string");
      list->add_s(item.toString().toStdString());
    }
  }
  return value;
}

tensorflow::AttrValue AttrText::placeholderValue(const QString& attr_type, DataType first_allowed_type) {
  tensorflow::AttrValue value;
  if (attr_type.startsWith("list(")) {
    value.mutable_list();
  } else if (attr_type == "type") {
    value.set_type(first_allowed_type == DT_INVALID ? DT_FLOAT : first_allowed_type);
  } else if (attr_type == "int") {
    value.set_i(0);
  } else if (attr_type == "float") {
    value.set_f(0.0f);
  } else if (attr_type == "bool") {
    value.set_b(false);
  } else if (attr_type == "shape") {
    value.mutable_shape()->set_unknown_rank(true);
  } else if (attr_type == "tensor") {
    Tensor::Scalar(0.0f).AsProto(value.mutable_tensor(), /*use_typed_fields=*/true);
  } else {
    value.set_s("");
  }
  return value;
}

}  // namespace clab::ui
