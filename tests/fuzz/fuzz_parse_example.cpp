// ParseExample on serialized tf.Example records from outside (a feed of a serving graph):
// the input is two records (split at its first byte's position), parsed for a sparse int64
// key, a fixed float key with a default, a variable-length int64 key padded with a scalar,
// and a string key. Any input either parses or fails its step with a status.
#include "KernelTestUtil.h"

#include <cstdlib>

using namespace clab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t cut = 1 + data[0] % size;
  const std::string all(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string first = all.substr(0, std::min(cut - 1, all.size())), second = all.substr(first.size());

  static const tensorflow::NodeDef node = [] {
    std::vector<std::string> inputs;
    for (int i = 0; i < 9; ++i) inputs.push_back("in" + std::to_string(i));
    tensorflow::NodeDef n =
        testing::MakeNode("parse", "ParseExample", inputs,
                          {{"Nsparse", AttrOf(int64_t{1})},
                           {"Ndense", AttrOf(int64_t{3})},
                           {"sparse_types", AttrOf(std::vector<DataType>{DT_INT64})},
                           {"Tdense", AttrOf(std::vector<DataType>{DT_FLOAT, DT_INT64, DT_STRING})}});
    auto* shapes = (*n.mutable_attr())["dense_shapes"].mutable_list();
    for (const PartialShape& shape : {PartialShape{2}, PartialShape{-1, 3}, PartialShape::Scalar()})
      *shapes->add_shape() = AttrOf(shape).shape();
    return n;
  }();
  const std::vector<Tensor> inputs = {Tensor::Vector<std::string>({first, second}),
                                      Tensor::Vector<std::string>({}),
                                      Tensor::Scalar<std::string>("s"),
                                      Tensor::Scalar<std::string>("x"),
                                      Tensor::Scalar<std::string>("v"),
                                      Tensor::Scalar<std::string>("t"),
                                      Tensor::Vector<float>({0.5f, -1}),
                                      Tensor::Scalar<int64_t>(-1),
                                      Tensor::Scalar<std::string>("none")};
  auto out = testing::RunKernel(node, inputs);
  if (out.ok() && out->size() != 6) std::abort();
  return 0;
}
