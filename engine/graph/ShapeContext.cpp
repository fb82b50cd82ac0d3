#include "clab/graph/ShapeContext.h"

#include <absl/strings/str_join.h>

namespace clab {
namespace {

// TensorFlow prints an unknown rank as "?" inside these messages.
std::string ShapeForMessage(const PartialShape& shape) { return shape.known_rank() ? shape.DebugString() : "?"; }

thread_local bool files_off = false;

}  // namespace

bool ShapeContext::MayReadFiles() { return !files_off; }

ShapeContext::FilesOff::FilesOff() : before_(files_off) { files_off = true; }

ShapeContext::FilesOff::~FilesOff() { files_off = before_; }

Status ShapeContext::MakeError(std::string_view message) const {
  std::vector<std::string> shapes;
  shapes.reserve(input_shapes_.size());
  for (const auto& shape : input_shapes_) shapes.push_back(ShapeForMessage(shape));

  std::string text = clab::StrCat(message, " for '", node_.name(), "' (op: '", node_.op(),
                                  "') with input shapes: ", absl::StrJoin(shapes, ", "));
  // Constant inputs often decide the output shape (Reshape, Fill): show them too.
  std::vector<std::string> constants;
  for (size_t i = 0; i < input_constants_.size(); ++i) {
    if (input_constants_[i] != nullptr)
      constants.push_back(clab::StrCat("input[", i, "] = <", input_constants_[i]->DebugString(), ">"));
  }
  if (!constants.empty()) text += clab::StrCat(" and with computed input tensors: ", absl::StrJoin(constants, ", "));
  text += clab::StrCat(".");
  return errors::InvalidArgument(text);
}

}  // namespace clab
