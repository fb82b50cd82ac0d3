// Attr values as the text a user types in the graph editor's properties panel, and back:
// shapes "[2,-1]" ("?" is accepted for an unknown dimension, "<unknown>" or "*" for an
// unknown rank), tensors as nested JSON lists "[[1, 2, 3, 4]]", lists as JSON arrays
// ("[1, 2]", "[\"a\", \"b\"]", "[\"float\", \"int32\"]").
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorShape.h"
#include "tensorflow/attr_value.pb.h"

#include <QString>

namespace clab::ui {

class AttrText {
 public:
  static QString shapeText(const PartialShape& shape);
  static StatusOr<PartialShape> parseShape(const QString& text);

  // Nested JSON lists of the tensor's values; strings quoted.
  static QString tensorText(const Tensor& tensor);
  // `dtype` decides the element type (integers for int32, fractions allowed for float).
  static StatusOr<Tensor> parseTensor(const QString& text, DataType dtype);

  // `list_type` is the attr type, e.g. "list(int)". A JSON array of that element type.
  static QString listText(const tensorflow::AttrValue& value, const QString& list_type);
  static StatusOr<tensorflow::AttrValue> parseList(const QString& text, const QString& list_type);

  // The initial value of an attr without a default when a node is added from the palette:
  // the first allowed type (or float), the minimum int, 0.0, false, "", an unknown shape,
  // a float scalar 0, an empty list.
  static tensorflow::AttrValue placeholderValue(const QString& attr_type, DataType first_allowed_type);
};

}  // namespace clab::ui
