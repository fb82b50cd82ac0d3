// What a shape function sees: the node, its input dtypes and shapes, and the value of
// inputs that are constants (so Reshape and Fill can know their output shape).
#pragma once

#include "clab/core/DataType.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorShape.h"
#include "clab/graph/AttrValues.h"
#include "tensorflow/graph.pb.h"

#include <vector>

namespace clab {

class ShapeContext {
 public:
  // Whether a shape function may read a file a node names (MinibatchDataset's header) on
  // this thread: yes where a program builds its own graph, no while a task compiles a
  // graph a client sent (the file may lie outside the task's directories). A FilesOff
  // object turns it off for its lifetime.
  static bool MayReadFiles();
  class FilesOff {
   public:
    FilesOff();
    ~FilesOff();
    FilesOff(const FilesOff&) = delete;
    FilesOff& operator=(const FilesOff&) = delete;

   private:
    bool before_;
  };

  ShapeContext(const tensorflow::NodeDef& node, std::vector<DataType> input_types,
               std::vector<PartialShape> input_shapes, std::vector<const Tensor*> input_constants, int num_outputs)
      : node_(node), input_types_(std::move(input_types)), input_shapes_(std::move(input_shapes)),
        input_constants_(std::move(input_constants)), output_shapes_(static_cast<size_t>(num_outputs)) {}

  const tensorflow::NodeDef& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  DataType input_type(int i) const { return input_types_[static_cast<size_t>(i)]; }
  const PartialShape& input_shape(int i) const { return input_shapes_[static_cast<size_t>(i)]; }
  // The input's value when it comes straight from a Const node, else nullptr.
  const Tensor* input_constant(int i) const { return input_constants_[static_cast<size_t>(i)]; }

  void set_output(int i, PartialShape shape) { output_shapes_[static_cast<size_t>(i)] = std::move(shape); }
  const PartialShape& output(int i) const { return output_shapes_[static_cast<size_t>(i)]; }
  const std::vector<PartialShape>& outputs() const { return output_shapes_; }

  template <typename T>
  Status GetAttr(std::string_view name, T* value) const {
    return GetNodeAttr(node_, name, value);
  }

  // INVALID_ARGUMENT prefixed as TensorFlow does: "<message> for 'node' (op: 'Op') with
  // input shapes: [2,3], [4,2]."
  Status MakeError(std::string_view message) const;

 private:
  const tensorflow::NodeDef& node_;
  std::vector<DataType> input_types_;
  std::vector<PartialShape> input_shapes_;
  std::vector<const Tensor*> input_constants_;
  std::vector<PartialShape> output_shapes_;
};

}  // namespace clab
