// Typed access to NodeDef attrs, shared by kernels, shape functions and the graph builder.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorShape.h"
#include "tensorflow/graph.pb.h"

#include <string>
#include <vector>

namespace clab {

// Each returns NOT_FOUND "Node 'n' has no attr 'a'" or INVALID_ARGUMENT naming the node,
// the attr and the type it has when it has another type.
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, int64_t* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, int32_t* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, float* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, bool* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::string* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, DataType* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, PartialShape* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, Tensor* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<int64_t>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<float>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<std::string>* value);
Status GetNodeAttr(const tensorflow::NodeDef& node, std::string_view name, std::vector<DataType>* value);

bool HasNodeAttr(const tensorflow::NodeDef& node, std::string_view name);

// AttrValue constructors for building nodes.
tensorflow::AttrValue AttrOf(int64_t v);
tensorflow::AttrValue AttrOf(int v);
tensorflow::AttrValue AttrOf(float v);
tensorflow::AttrValue AttrOf(bool v);
tensorflow::AttrValue AttrOf(std::string_view v);
tensorflow::AttrValue AttrOf(const char* v);
tensorflow::AttrValue AttrOf(DataType v);
tensorflow::AttrValue AttrOf(const PartialShape& v);
tensorflow::AttrValue AttrOf(const TensorShape& v);
tensorflow::AttrValue AttrOf(const Tensor& v);
tensorflow::AttrValue AttrOf(const std::vector<int64_t>& v);
tensorflow::AttrValue AttrOf(const std::vector<std::string>& v);
tensorflow::AttrValue AttrOf(const std::vector<DataType>& v);

// The attr type name TensorFlow's op specs use for what `value` holds ("int", "list",
// "no value"), so that messages read like the spec.
std::string_view AttrCaseName(const tensorflow::AttrValue& value);

// A short human-readable form: "float", "[2,3]", "true", "\"s\"", "[1, 2]".
std::string AttrValueSummary(const tensorflow::AttrValue& value);

}  // namespace clab
