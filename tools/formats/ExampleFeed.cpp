#include "formats/ExampleFeed.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "tensorflow/example.pb.h"

#include <map>
#include <random>

namespace clab::tools {
namespace {

// The string a key input names: the value of the Const node it reads.
StatusOr<std::string> ConstantKey(const std::map<std::string, const tensorflow::NodeDef*>& by_name,
                                  const tensorflow::NodeDef& parser, int input) {
  const std::string name = InputNodeName(parser.input(input));
  auto found = by_name.find(name);
  Tensor value;
  if (found == by_name.end() || found->second->op() != "Const" || !GetNodeAttr(*found->second, "value", &value).ok() ||
      value.dtype() != DT_STRING || value.NumElements() != 1)
    return errors::Unimplemented("cannot generate examples for '", parser.name(), "': its key input ", input, " ('",
                                 name, "') is not a constant string");
  return value.data<std::string>()[0];
}

void Fill(tensorflow::Feature* feature, DataType dtype, int64_t count, std::mt19937* random) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int64_t i = 0; i < count; ++i) {
    if (dtype == DT_FLOAT) feature->mutable_float_list()->add_value(uniform(*random));
    else if (dtype == DT_INT64) feature->mutable_int64_list()->add_value(0);
    else feature->mutable_bytes_list()->add_value("");
  }
  // An empty list still says its kind.
  if (count == 0 && dtype == DT_FLOAT) feature->mutable_float_list();
  if (count == 0 && dtype == DT_INT64) feature->mutable_int64_list();
  if (count == 0 && dtype == DT_STRING) feature->mutable_bytes_list();
}

// Adds to `features` what the parser node needs.
Status AddParserFeatures(const std::map<std::string, const tensorflow::NodeDef*>& by_name,
                         const tensorflow::NodeDef& parser, std::mt19937* random, tensorflow::Features* features) {
  int64_t num_sparse = 0, num_dense = 0;
  std::vector<DataType> sparse_types, dense_types;
  CLAB_RETURN_IF_ERROR(GetNodeAttr(parser, "Nsparse", &num_sparse));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(parser, "Ndense", &num_dense));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(parser, "sparse_types", &sparse_types));
  CLAB_RETURN_IF_ERROR(GetNodeAttr(parser, "Tdense", &dense_types));
  std::vector<PartialShape> dense_shapes;
  if (auto found = parser.attr().find("dense_shapes"); found != parser.attr().end())
    for (const auto& proto : found->second.list().shape()) dense_shapes.push_back(PartialShape::FromProto(proto));
  if (parser.input_size() < 2 + num_sparse + num_dense || static_cast<int64_t>(sparse_types.size()) != num_sparse ||
      static_cast<int64_t>(dense_types.size()) != num_dense || static_cast<int64_t>(dense_shapes.size()) != num_dense)
    return errors::InvalidArgument("ParseExample node '", parser.name(), "' has inputs or attrs that disagree");
  for (int64_t k = 0; k < num_sparse; ++k) {
    CLAB_ASSIGN_OR_RETURN(const std::string key, ConstantKey(by_name, parser, static_cast<int>(2 + k)));
    Fill(&(*features->mutable_feature())[key], sparse_types[static_cast<size_t>(k)], 1, random);
  }
  for (int64_t j = 0; j < num_dense; ++j) {
    CLAB_ASSIGN_OR_RETURN(const std::string key, ConstantKey(by_name, parser, static_cast<int>(2 + num_sparse + j)));
    int64_t count = 1;  // an unknown first dimension (a sequence feature): one row
    const PartialShape& shape = dense_shapes[static_cast<size_t>(j)];
    for (int d = 0; shape.known_rank() && d < shape.rank(); ++d) count *= std::max<int64_t>(shape.dim(d), 1);
    Fill(&(*features->mutable_feature())[key], dense_types[static_cast<size_t>(j)], count, random);
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::optional<Tensor>> ExampleFeed::For(const tensorflow::GraphDef& graph, const std::string& placeholder,
                                                 int64_t batch, uint32_t seed) {
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& node : graph.node()) by_name[node.name()] = &node;
  std::vector<const tensorflow::NodeDef*> parsers;
  for (const auto& node : graph.node())
    if (node.op() == "ParseExample" && node.input_size() > 0 &&
        (node.input(0) == placeholder || node.input(0) == placeholder + ":0"))
      parsers.push_back(&node);
  if (parsers.empty()) return std::optional<Tensor>();
  std::mt19937 random(seed);
  Tensor examples(DT_STRING, TensorShape({batch}));
  for (int64_t i = 0; i < batch; ++i) {
    tensorflow::Example example;
    for (const tensorflow::NodeDef* parser : parsers)
      CLAB_RETURN_IF_ERROR(AddParserFeatures(by_name, *parser, &random, example.mutable_features()));
    if (!example.SerializeToString(&examples.data<std::string>()[i]))
      return errors::Internal("could not serialize a generated tf.Example for '", placeholder, "'");
  }
  return std::optional<Tensor>(std::move(examples));
}

}  // namespace clab::tools
