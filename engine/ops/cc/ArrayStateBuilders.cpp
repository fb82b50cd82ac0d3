// clab::ops wrappers for the array and state ops: each adds one node with TensorFlow's op
// name and attrs, taking type attrs from the inputs as the Python API does.
#include "clab/graph/AttrValues.h"
#include "clab/ops/Ops.h"

namespace clab::ops {
namespace {

// A ref output (VariableV2) feeds ops whose type attr names the value type.
DataType ValueTypeOf(GraphBuilder& g, const Output& x) { return BaseType(g.TypeOf(x)); }

Output Unary(GraphBuilder& g, std::string_view op, const Output& x, std::string_view name) {
  return g.AddNode(op, {x}, {{"T", AttrOf(ValueTypeOf(g, x))}}, name);
}

Output Update(GraphBuilder& g, std::string_view op, const Output& ref, const Output& value, std::string_view name) {
  // As in Python, T is the variable's type; a value of another type is then an edge type
  // error that names the value.
  DataType dtype = ValueTypeOf(g, ref);
  if (dtype == DT_INVALID) dtype = ValueTypeOf(g, value);
  return g.AddNode(op, {ref, value}, {{"T", AttrOf(dtype)}}, name);
}

}  // namespace

Output Const(GraphBuilder& g, const Tensor& value, std::string_view name) {
  return g.AddNode("Const", {}, {{"value", AttrOf(value)}, {"dtype", AttrOf(value.dtype())}}, name);
}

Output Placeholder(GraphBuilder& g, DataType dtype, const PartialShape& shape, std::string_view name) {
  return g.AddNode("Placeholder", {}, {{"dtype", AttrOf(dtype)}, {"shape", AttrOf(shape)}}, name);
}

Output Identity(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "Identity", x, name); }

Output NoOp(GraphBuilder& g, const std::vector<Output>& control_inputs, std::string_view name) {
  std::vector<Output> controls;
  controls.reserve(control_inputs.size());
  for (const auto& input : control_inputs) controls.push_back(input.control());
  return g.AddNode("NoOp", controls, {}, name);
}

Output Reshape(GraphBuilder& g, const Output& x, const Output& shape, std::string_view name) {
  return g.AddNode("Reshape", {x, shape}, {{"T", AttrOf(ValueTypeOf(g, x))}, {"Tshape", AttrOf(ValueTypeOf(g, shape))}},
                   name);
}

Output Transpose(GraphBuilder& g, const Output& x, const Output& perm, std::string_view name) {
  return g.AddNode("Transpose", {x, perm}, {{"T", AttrOf(ValueTypeOf(g, x))}, {"Tperm", AttrOf(ValueTypeOf(g, perm))}},
                   name);
}

Output Shape(GraphBuilder& g, const Output& x, DataType out_type, std::string_view name) {
  return g.AddNode("Shape", {x}, {{"T", AttrOf(ValueTypeOf(g, x))}, {"out_type", AttrOf(out_type)}}, name);
}

Output Cast(GraphBuilder& g, const Output& x, DataType dtype, std::string_view name) {
  return g.AddNode("Cast", {x}, {{"SrcT", AttrOf(ValueTypeOf(g, x))}, {"DstT", AttrOf(dtype)}}, name);
}

Output Fill(GraphBuilder& g, const Output& dims, const Output& value, std::string_view name) {
  return g.AddNode("Fill", {dims, value},
                   {{"T", AttrOf(ValueTypeOf(g, value))}, {"index_type", AttrOf(ValueTypeOf(g, dims))}}, name);
}

Output ZerosLike(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "ZerosLike", x, name); }

Output OnesLike(GraphBuilder& g, const Output& x, std::string_view name) { return Unary(g, "OnesLike", x, name); }

Output VariableV2(GraphBuilder& g, const PartialShape& shape, DataType dtype, std::string_view name) {
  return g.AddNode("VariableV2", {}, {{"shape", AttrOf(shape)}, {"dtype", AttrOf(BaseType(dtype))}}, name);
}

Output Assign(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name) {
  return Update(g, "Assign", ref, value, name);
}

Output AssignAdd(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name) {
  return Update(g, "AssignAdd", ref, value, name);
}

Output AssignSub(GraphBuilder& g, const Output& ref, const Output& value, std::string_view name) {
  return Update(g, "AssignSub", ref, value, name);
}

}  // namespace clab::ops
