// One op of the registry, run by a session on attrs and inputs read from the bytes, as a
// client's graph would hand them to a task: the first two bytes choose the op (among those
// with a CPU kernel that touch no file, queue or other task), the rest its attr values
// (within or past their declared ranges), how many inputs a list takes, and each input's
// dtype, shape and values, as Const nodes. Every output is fetched. Whatever the kernel is
// given must end in a status; the step has a timeout, so an op that waits ends too.
#include "clab/core/Tensor.h"
#include "clab/graph/OpRegistry.h"
#include "clab/runtime/Session.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/graph.pb.h"

#include <absl/strings/str_cat.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace clab;  // NOLINT(google-build-using-namespace)

// Reads the input from the front; past its end every read gives zero.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() << 8 | U8()); }
  bool Bit() { return (U8() & 1) != 0; }
  // Mostly small, sometimes an edge: what shapes, axes and counts are made of.
  int64_t SmallInt() {
    const uint8_t b = U8();
    if (b < 200) return static_cast<int64_t>(b % 12) - 2;  // -2 .. 9
    static constexpr int64_t kEdges[] = {-1000000,
                                         1000000,
                                         std::numeric_limits<int32_t>::max(),
                                         std::numeric_limits<int32_t>::min(),
                                         std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min(),
                                         1 << 20,
                                         63,
                                         64,
                                         31,
                                         32};
    return kEdges[b % (sizeof(kEdges) / sizeof(kEdges[0]))];
  }
  double Float() {
    const uint8_t b = U8();
    static constexpr double kValues[] = {0.0, 1.0, -1.0, 0.5, 2.0, -3.5, 1e30, -1e30, 1e-30, 100.0};
    if (b < 240) return kValues[b % 10];
    if (b < 248) return std::numeric_limits<double>::infinity() * ((b & 1) ? 1 : -1);
    return std::nan("");
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Ops that read or write files, wait on queues, readers or iterators fed from elsewhere,
// or talk to other tasks: their own targets and suites cover them.
bool Excluded(const OpDef& op) {
  static const std::set<std::string> kGroups = {"queue", "runtime", "saver", "data", "train"};
  static const std::set<std::string> kIo = {"DecodeCSV", "DecodeRaw", "ParseExample", "ParseSingleExample"};
  if (kGroups.count(op.group)) return true;
  if (op.group == "io") return !kIo.count(op.name);
  for (const ArgDef& in : op.inputs)
    if (in.is_ref) return true;  // needs a variable
  return !op.HasKernel("CPU");
}

const std::vector<const OpDef*>& Ops() {
  static const std::vector<const OpDef*> ops = [] {
    std::vector<const OpDef*> out;
    for (const OpDef* op : OpRegistry::Global().ListOps())
      if (!Excluded(*op)) out.push_back(op);
    return out;
  }();
  return ops;
}

constexpr DataType kTypes[] = {tensorflow::DT_FLOAT,  tensorflow::DT_INT32,   tensorflow::DT_INT64,
                               tensorflow::DT_DOUBLE, tensorflow::DT_BOOL,    tensorflow::DT_STRING,
                               tensorflow::DT_UINT8,  tensorflow::DT_INT8,    tensorflow::DT_INT16,
                               tensorflow::DT_HALF,   tensorflow::DT_VARIANT, tensorflow::DT_RESOURCE};

DataType PickType(Bytes& in, const AttrDef* attr) {
  if (attr && !attr->allowed_types.empty() && in.U8() < 240)
    return attr->allowed_types[in.U8() % attr->allowed_types.size()];
  return kTypes[in.U8() % (sizeof(kTypes) / sizeof(kTypes[0]))];
}

void FillShape(Bytes& in, tensorflow::TensorShapeProto* shape) {
  if (in.U8() < 8) {
    shape->set_unknown_rank(true);
    return;
  }
  const int rank = in.U8() % 5;
  for (int i = 0; i < rank; ++i) shape->add_dim()->set_size(std::max<int64_t>(-1, in.SmallInt() % 6));
}

// A small tensor of `dtype`: rank 0 to 4, each dimension 0 to 5.
void FillTensor(Bytes& in, DataType dtype, tensorflow::TensorProto* proto) {
  proto->set_dtype(dtype);
  const int rank = in.U8() % 5;
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = in.U8() % 6;
    proto->mutable_tensor_shape()->add_dim()->set_size(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) {
    switch (dtype) {
      case tensorflow::DT_FLOAT: proto->add_float_val(static_cast<float>(in.Float())); break;
      case tensorflow::DT_DOUBLE: proto->add_double_val(in.Float()); break;
      case tensorflow::DT_INT32:
      case tensorflow::DT_UINT8:
      case tensorflow::DT_INT8:
      case tensorflow::DT_INT16: proto->add_int_val(static_cast<int32_t>(in.SmallInt())); break;
      case tensorflow::DT_INT64: proto->add_int64_val(in.SmallInt()); break;
      case tensorflow::DT_BOOL: proto->add_bool_val(in.Bit()); break;
      case tensorflow::DT_STRING: proto->add_string_val(std::string(in.U8() % 5, static_cast<char>(in.U8()))); break;
      case tensorflow::DT_HALF: proto->add_half_val(in.U16()); break;
      default: return;  // no values: the tensor is refused as too short
    }
  }
}

void FillAttr(Bytes& in, const AttrDef& def, tensorflow::AttrValue* value) {
  const bool list = def.type.rfind("list(", 0) == 0;
  const std::string type = list ? def.type.substr(5, def.type.size() - 6) : def.type;
  const int count = list ? in.U8() % 5 : 1;
  for (int i = 0; i < count; ++i) {
    if (type == "type") {
      const DataType t = PickType(in, &def);
      list ? value->mutable_list()->add_type(t) : value->set_type(t);
    } else if (type == "int") {
      int64_t v = in.SmallInt();
      if (def.has_minimum && in.U8() < 200) v = std::max(v, def.minimum);
      list ? value->mutable_list()->add_i(v) : value->set_i(v);
    } else if (type == "float") {
      const float v = static_cast<float>(in.Float());
      list ? value->mutable_list()->add_f(v) : value->set_f(v);
    } else if (type == "bool") {
      const bool v = in.Bit();
      list ? value->mutable_list()->add_b(v) : value->set_b(v);
    } else if (type == "string") {
      static const char* kStrings[] = {"", "SAME", "VALID", "NHWC", "NCHW", "x", "train"};
      std::string v = def.allowed_values.empty() || in.U8() >= 240
                          ? kStrings[in.U8() % 7]
                          : def.allowed_values[in.U8() % def.allowed_values.size()];
      list ? value->mutable_list()->add_s(v) : value->set_s(v);
    } else if (type == "shape") {
      FillShape(in, list ? value->mutable_list()->add_shape() : value->mutable_shape());
    } else if (type == "tensor") {
      FillTensor(in, PickType(in, nullptr), list ? value->mutable_list()->add_tensor() : value->mutable_tensor());
    } else if (type == "func") {
      value->mutable_func()->set_name("f");  // the graph's library is empty
    }
  }
  if (list && count == 0) value->mutable_list();
}

// The graph: one node of `op` and a Const per input; returns the node's name.
std::string BuildGraph(Bytes& in, const OpDef& op, tensorflow::GraphDef* graph) {
  tensorflow::NodeDef node;
  node.set_name("op");
  node.set_op(op.name);
  auto& attrs = *node.mutable_attr();
  for (const AttrDef& def : op.attrs) {
    if (def.default_value && in.U8() < 96) {
      attrs[def.name] = *def.default_value;
    } else {
      FillAttr(in, def, &attrs[def.name]);
    }
  }
  int consts = 0;
  auto add_input = [&](DataType dtype) {
    tensorflow::NodeDef* c = graph->add_node();
    c->set_name(absl::StrCat("in", consts++));
    c->set_op("Const");
    (*c->mutable_attr())["dtype"].set_type(dtype);
    FillTensor(in, dtype, (*c->mutable_attr())["value"].mutable_tensor());
    node.add_input(c->name());
  };
  for (const ArgDef& arg : op.inputs) {
    if (!arg.type_list_attr.empty()) {
      const auto& types = attrs[arg.type_list_attr].list().type();
      for (int i = 0; i < std::min(types.size(), 6); ++i) add_input(static_cast<DataType>(types[i]));
      continue;
    }
    DataType dtype = arg.fixed_type;
    if (!arg.type_attr.empty()) dtype = attrs[arg.type_attr].type();
    int64_t n = 1;
    if (!arg.number_attr.empty()) n = std::clamp<int64_t>(attrs[arg.number_attr].i(), 0, 6);
    for (int64_t i = 0; i < n; ++i) add_input(dtype);
  }
  *graph->add_node() = node;
  return node.name();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const std::vector<const OpDef*>& ops = Ops();
  const OpDef& op = *ops[in.U16() % ops.size()];
  tensorflow::GraphDef graph;
  const std::string name = BuildGraph(in, op, &graph);

  auto session = NewSession(SessionOptions());
  if (!session.ok() || !(*session)->Create(graph).ok()) return 0;
  tensorflow::RunOptions options;
  options.set_timeout_in_ms(2000);
  std::vector<std::string> fetches;
  const int outputs = static_cast<int>(in.U8() % 4);
  for (int i = 0; i < outputs; ++i) fetches.push_back(absl::StrCat(name, ":", i));
  std::vector<Tensor> fetched;
  tensorflow::RunMetadata metadata;
  if (!(*session)->Run(options, {}, fetches, {name}, &fetched, &metadata).ok()) {
    // An output index past the node's last is an error of its own: run the node alone too.
    (void)(*session)->Run(options, {}, {}, {name}, &fetched, &metadata);
  }
  for (const Tensor& t : fetched) (void)t.DebugString();
  (void)(*session)->Close();
  return 0;
}
