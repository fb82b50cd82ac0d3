#include "clab/runtime/FunctionLibrary.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>

namespace clab {

FunctionLibrary::FunctionLibrary(tensorflow::FunctionDefLibrary library) : library_(std::move(library)) {}

Status FunctionLibrary::Merge(const tensorflow::FunctionDefLibrary& addition, tensorflow::FunctionDefLibrary* into) {
  for (const auto& function : addition.function()) {
    const tensorflow::FunctionDef* existing = nullptr;
    for (const auto& known : into->function())
      if (known.signature().name() == function.signature().name()) existing = &known;
    if (existing == nullptr) {
      *into->add_function() = function;
    } else if (existing->SerializeAsString() != function.SerializeAsString()) {
      return errors::InvalidArgument("Function '", function.signature().name(),
                                     "' is defined again, differently, by the graph being added");
    }
  }
  for (const auto& gradient : addition.gradient()) *into->add_gradient() = gradient;
  return OkStatus();
}

const tensorflow::FunctionDef* FunctionLibrary::Find(std::string_view name) const {
  for (const auto& function : library_.function())
    if (function.signature().name() == name) return &function;
  return nullptr;
}

std::vector<std::string> FunctionLibrary::Names() const {
  std::vector<std::string> names;
  for (const auto& function : library_.function()) names.push_back(function.signature().name());
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<std::shared_ptr<FunctionInstance>> FunctionLibrary::Instantiate(const std::string& caller,
                                                                         const std::string& attr_name,
                                                                         const tensorflow::NameAttrList& func,
                                                                         Device* device) const {
  const tensorflow::FunctionDef* function = Find(func.name());
  if (function == nullptr) {
    const std::vector<std::string> names = Names();
    return errors::InvalidArgument("Node '", caller, "' attr '", attr_name, "' names function '", func.name(),
                                   "', which the graph's library does not define (",
                                   names.empty() ? std::string("the library is empty")
                                                 : absl::StrCat("it defines: ", absl::StrJoin(names, ", ")),
                                   ")");
  }
  return FunctionInstance::Create(*function, func.attr(), library_, device, caller);
}

}  // namespace clab
