// The functions of a graph's library (GraphDef.library): what MapDataset's `f`,
// FilterDataset's `predicate` and OneShotIterator's `dataset_factory` name. A kernel that
// calls one instantiates it once, when the kernel is built, into a FunctionInstance that
// it then calls per element.
#pragma once

#include "clab/core/Status.h"
#include "clab/runtime/FunctionInstance.h"
#include "tensorflow/graph.pb.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace clab {

class Device;

class FunctionLibrary {
 public:
  explicit FunctionLibrary(tensorflow::FunctionDefLibrary library);

  // Adds the functions of `addition` that `into` lacks (a session's graph growing by
  // Extend); one defined in both must be defined alike.
  static Status Merge(const tensorflow::FunctionDefLibrary& addition, tensorflow::FunctionDefLibrary* into);

  const tensorflow::FunctionDefLibrary& proto() const { return library_; }
  // The function named `name`, or nullptr.
  const tensorflow::FunctionDef* Find(std::string_view name) const;
  // The names of the library's functions, sorted.
  std::vector<std::string> Names() const;

  // Instantiates the function `func` names (with its attrs) for the node `caller`, whose
  // attr `attr_name` names it, to run on `device`. Errors name the node, the attr and the
  // function: an unknown function lists the library's functions.
  StatusOr<std::shared_ptr<FunctionInstance>> Instantiate(const std::string& caller, const std::string& attr_name,
                                                          const tensorflow::NameAttrList& func, Device* device) const;

 private:
  tensorflow::FunctionDefLibrary library_;
};

}  // namespace clab
