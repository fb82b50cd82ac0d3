// One function of a graph's library, made ready to call: its body turned into a graph
// (each input_arg a fed Placeholder, each output_arg a fetched tensor), with kernels built
// once by an Executor on the caller's device. Call runs the body for one set of arguments;
// calls may overlap (two steps pulling from one dataset).
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "tensorflow/graph.pb.h"

#include <memory>
#include <string>
#include <vector>

namespace clab {

class Device;
class Executor;

class FunctionInstance {
 public:
  // `attrs` fills the attr placeholders of the body ("$T"); `library` is the whole library,
  // for functions the body calls in turn; `caller` is the node that calls it, for messages.
  static StatusOr<std::shared_ptr<FunctionInstance>> Create(
      const tensorflow::FunctionDef& function, const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs,
      const tensorflow::FunctionDefLibrary& library, Device* device, const std::string& caller);
  ~FunctionInstance();

  const std::string& name() const { return name_; }
  const std::vector<DataType>& arg_types() const { return arg_types_; }
  const std::vector<DataType>& ret_types() const { return ret_types_; }

  // Runs the body on the calling thread (no thread of its own: a graph may instantiate
  // many functions). The arguments must match arg_types() in number and dtype; errors name
  // the function and the calling node.
  StatusOr<std::vector<Tensor>> Call(std::vector<Tensor> args) const;

 private:
  FunctionInstance() = default;

  std::string name_;
  std::string caller_;
  std::vector<DataType> arg_types_;
  std::vector<DataType> ret_types_;
  std::unique_ptr<Executor> executor_;
};

}  // namespace clab
