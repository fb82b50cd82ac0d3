// Per-device state that outlives a step: variables (and later queues, accumulators), kept
// by (container, name). Variables on a ps are shared by name across every session that a
// server hosts: that is how between-graph replicas update the same parameters.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace clab {

class Resource {
 public:
  virtual ~Resource() = default;
  virtual std::string DebugString() const = 0;
};

// The state behind a VariableV2 node.
class Variable : public Resource {
 public:
  Variable(DataType dtype, PartialShape shape) : dtype_(dtype), shape_(std::move(shape)) {}

  DataType dtype() const { return dtype_; }
  const PartialShape& declared_shape() const { return shape_; }
  std::mutex& mu() const { return mu_; }
  // Guarded by mu(). `value` is not initialised until the first Assign.
  Tensor& value() { return value_; }
  bool initialized() const { return value_.IsInitialized(); }
  std::string DebugString() const override;

 private:
  DataType dtype_;
  PartialShape shape_;
  mutable std::mutex mu_;
  Tensor value_;
};

class ResourceMgr {
 public:
  static constexpr const char* kDefaultContainer = "";

  // Returns the resource at (container, name), creating it with `create` when absent.
  // ALREADY_EXISTS... never: an existing resource of another kind is INVALID_ARGUMENT.
  template <typename T, typename Create>
  StatusOr<std::shared_ptr<T>> LookupOrCreate(const std::string& container, const std::string& name, Create create) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = resources_[container][name];
    if (!slot) slot = create();
    auto typed = std::dynamic_pointer_cast<T>(slot);
    if (!typed)
      return errors::InvalidArgument("Resource '", container, "/", name,
                                     "' exists with another kind: ", slot->DebugString());
    return typed;
  }
  template <typename T>
  std::shared_ptr<T> Lookup(const std::string& container, const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto c = resources_.find(container);
    if (c == resources_.end()) return nullptr;
    auto r = c->second.find(name);
    return r == c->second.end() ? nullptr : std::dynamic_pointer_cast<T>(r->second);
  }
  // Drops one container ("" is the default one), or every container when `container` is
  // null: what Session Reset does.
  void Clear(const std::string* container = nullptr);
  // Names of the resources in `container`, sorted.
  std::vector<std::string> Names(const std::string& container = kDefaultContainer) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::map<std::string, std::shared_ptr<Resource>>> resources_;
};

}  // namespace clab
