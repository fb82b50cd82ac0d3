// Building graphs from C++ the way TensorFlow's Python reads:
//
//   clab::GraphBuilder g;
//   auto x = clab::ops::Const(g, clab::Tensor::Matrix<int32_t>({{1, 2, 3, 4}}), "x");
//   {
//     auto scope = g.WithDevice("/job:worker/task:0");
//     auto y = clab::ops::MatMul(g, x, w);
//   }
//
// Scopes are RAII guards. Errors (unknown op, bad attr, shape mismatch) are recorded: the
// first one is kept in status() and later nodes are still added, so a program checks once.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorShape.h"
#include "tensorflow/graph.pb.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clab {

class GraphBuilder;

// One output of a node, "name:index". Index kControl means "the node itself" (a target or
// control dependency).
class Output {
 public:
  static constexpr int kControl = -1;
  Output() = default;
  Output(std::string node, int index = 0) : node_(std::move(node)), index_(index) {}  // NOLINT

  const std::string& node() const { return node_; }
  int index() const { return index_; }
  bool valid() const { return !node_.empty(); }
  // "node:0" (what fetches and feeds use); "node" for a control output.
  std::string name() const;
  // As a NodeDef input: "node", "node:1", or "^node".
  std::string input_string() const;
  Output control() const { return Output(node_, kControl); }

 private:
  std::string node_;
  int index_ = 0;
};

// A device function gets the node as built so far (its device field already holds the merge
// of the inner scopes) and returns the device spec to use.
using DeviceFunction = std::function<std::string(const tensorflow::NodeDef&)>;

class GraphBuilder {
 public:
  class ScopeGuard {
   public:
    ScopeGuard(ScopeGuard&& other) noexcept;
    ScopeGuard& operator=(ScopeGuard&&) = delete;
    ~ScopeGuard();

   private:
    friend class GraphBuilder;
    explicit ScopeGuard(std::function<void()> exit) : exit_(std::move(exit)) {}
    std::function<void()> exit_;
  };

  GraphBuilder();
  ~GraphBuilder();

  // Adds a node named `name` (or the op name) inside the current name scope, made unique
  // as TensorFlow does ("MatMul", "MatMul_1"); applies the device, colocation and control
  // dependency scopes; fills default attrs; infers output shapes. Returns output 0 (the
  // node's name is Output::node()).
  Output AddNode(std::string_view op, const std::vector<Output>& inputs,
                 std::map<std::string, tensorflow::AttrValue> attrs = {}, std::string_view name = "");
  // Every output of the node named `node`.
  std::vector<Output> Outputs(const std::string& node) const;

  // Scopes.
  [[nodiscard]] ScopeGuard WithNameScope(std::string_view name);
  // A spec string ("/job:ps/task:0", "/cpu:0", "" clears nothing).
  [[nodiscard]] ScopeGuard WithDevice(std::string_view spec);
  [[nodiscard]] ScopeGuard WithDevice(DeviceFunction fn);
  // tf.device(None): ignore every enclosing device scope.
  [[nodiscard]] ScopeGuard WithoutDevice();
  // Nodes built inside take `op`'s device and join its colocation group (attr _class).
  [[nodiscard]] ScopeGuard ColocateWith(const Output& op);
  [[nodiscard]] ScopeGuard WithControlDependencies(const std::vector<Output>& ops);

  // A name unique in the graph for `base` under the current name scope.
  std::string UniqueName(std::string_view base);
  std::string CurrentNameScope() const;

  // Collections, as in TensorFlow (their names are in clab/graph/GraphKeys.h): "variables"
  // (global), "trainable_variables", "global_step", "train_op", ... hold node names in
  // insertion order.
  void AddToCollection(const std::string& collection, const std::string& node);
  const std::vector<std::string>& Collection(const std::string& collection) const;
  // The names of the non-empty collections, sorted.
  std::vector<std::string> CollectionNames() const;

  const Status& status() const { return status_; }
  void RecordError(const Status& status);
  const tensorflow::GraphDef& graph_def() const { return graph_; }
  const tensorflow::NodeDef* FindNode(std::string_view name) const;
  DataType TypeOf(const Output& output) const;
  PartialShape ShapeOf(const Output& output) const;
  // The value of `output` when its node is a Const, else nullptr.
  const Tensor* ConstantValue(const Output& output) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  tensorflow::GraphDef graph_;
  Status status_;
};

}  // namespace clab
