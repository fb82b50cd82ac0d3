// The op registry: each op declares, in one place, its inputs, outputs and attrs (with
// TensorFlow's spec syntax), its shape function, its kernels per device type and its
// gradient. Each op family (engine/ops/*.cpp, and _Send/_Recv in engine/runtime) joins the
// built-in ops through an OpFamily object in its own file; the registry names none of them.
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "clab/core/TensorShape.h"
#include "tensorflow/attr_value.pb.h"
#include "tensorflow/graph.pb.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clab {

class OpKernel;
class OpKernelConstruction;
class ShapeContext;
class GradientContext;

struct ArgDef {
  std::string name;
  DataType fixed_type = DT_INVALID;  // set for "x: float"
  std::string type_attr;             // set for "x: T"
  std::string number_attr;           // set for "values: N * T" (a list of N inputs)
  std::string type_list_attr;        // set for "args: Tlist"
  bool is_ref = false;               // "ref: Ref(T)"
};

struct AttrDef {
  std::string name;
  // "type", "int", "float", "bool", "string", "shape", "tensor", or "list(...)" of those.
  std::string type;
  std::optional<tensorflow::AttrValue> default_value;
  std::vector<DataType> allowed_types;      // for "T: {float, double}"
  std::vector<std::string> allowed_values;  // for "padding: {'SAME', 'VALID'}"
  int64_t minimum = 0;                      // for "N: int >= 1"
  bool has_minimum = false;
};

using ShapeFn = std::function<Status(ShapeContext&)>;
using KernelFactory = std::function<StatusOr<std::unique_ptr<OpKernel>>(OpKernelConstruction&)>;
using GradientFn = std::function<Status(GradientContext&)>;

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  ShapeFn shape_fn;                              // unset: outputs of unknown shape
  std::map<std::string, KernelFactory> kernels;  // device type ("CPU", "GPU") -> factory
  GradientFn gradient;                           // unset: not differentiable
  bool is_stateful = false;                      // never pruned by constant folding, not cached
  std::string summary;                           // one line for palettes and `clab ops`
  std::string group;                             // "math", "array", "state", "nn", "random", ...

  const AttrDef* FindAttr(std::string_view attr_name) const;
  bool HasKernel(std::string_view device_type) const { return kernels.count(std::string(device_type)) > 0; }
};

// Builder used by Register*Ops functions:
//   registry.Register("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("T: {float, double, int32, int64}")
//       .SetShapeFn(MatMulShape).Kernel("CPU", MakeMatMulKernel).Gradient(MatMulGrad);
class OpDefBuilder {
 public:
  explicit OpDefBuilder(OpDef* def) : def_(def) {}
  OpDefBuilder& Input(std::string_view spec);
  OpDefBuilder& Output(std::string_view spec);
  OpDefBuilder& Attr(std::string_view spec);
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Kernel(std::string_view device_type, KernelFactory factory);
  OpDefBuilder& Gradient(GradientFn fn);
  OpDefBuilder& Stateful();
  OpDefBuilder& Summary(std::string_view text);
  OpDefBuilder& Group(std::string_view group);

 private:
  OpDef* def_;
};

class OpRegistry {
 public:
  // The registry with every built-in op: the first call runs every OpFamily's function,
  // in family name order, and checks each spec. A loaded device plugin adds kernels to it.
  static OpRegistry& Global();

  // Aborts the process on a malformed spec or a duplicate name: both are programming errors
  // caught by the first test that starts.
  OpDefBuilder Register(std::string_view op_name);
  // NOT_FOUND "Op type not registered 'Foo'" when absent.
  StatusOr<const OpDef*> LookUp(std::string_view op_name) const;
  const OpDef* Find(std::string_view op_name) const;
  // For plugins: adds a kernel to an op registered earlier.
  Status AddKernel(std::string_view op_name, std::string_view device_type, KernelFactory factory);
  std::vector<const OpDef*> ListOps() const;  // sorted by name

 private:
  std::map<std::string, std::unique_ptr<OpDef>, std::less<>> ops_;
};

// How a family of ops joins OpRegistry::Global(), from the file that defines them:
//   const OpFamily kArrayOpFamily("array", RegisterArrayOps);
// Families are collected while the engine loads and registered when Global() is first
// used, so neither the order in which files load nor the registry's code names a family.
// One that comes after Global() was built (a test's own ops) is registered at once.
class OpFamily {
 public:
  using RegisterFn = void (*)(OpRegistry& registry);
  OpFamily(std::string_view name, RegisterFn register_ops);
};

// The spec parsers behind OpDefBuilder, exposed so malformed specs can be tested without
// aborting: "x: T", "x: Ref(T)", "values: N * T", "y: float"; "N: int >= 1",
// "T: {float, double} = DT_FLOAT", "perm: list(int) = []", "shape: shape = { unknown_rank: true }".
StatusOr<ArgDef> ParseArgSpec(std::string_view spec);
StatusOr<AttrDef> ParseAttrSpec(std::string_view spec);
// Checks that every input and output refers to attrs the op declares, with the right kind
// ("type" for T, "int" for N, "list(type)" for a type list). OpRegistry::Global() aborts
// when a built-in op fails it.
Status ValidateOpDef(const OpDef& op);

// Fills in the attrs a NodeDef leaves out with their defaults and checks the rest against
// the op: unknown attr, missing attr without a default, wrong attr type, type not allowed.
// Errors name the node and the attr.
Status AddDefaultsAndValidate(const OpDef& op, tensorflow::NodeDef* node);

// The data types of a node's inputs and outputs, resolved from its attrs (ref types
// included, e.g. DT_FLOAT_REF for a VariableV2's output).
Status InOutTypesForNode(const tensorflow::NodeDef& node, const OpDef& op, std::vector<DataType>* inputs,
                         std::vector<DataType>* outputs);

// The ops of `graph` that are not registered, sorted and without repeats.
std::vector<std::string> UnregisteredOps(const tensorflow::GraphDef& graph);

}  // namespace clab
