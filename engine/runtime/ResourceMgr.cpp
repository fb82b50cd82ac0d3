#include "clab/runtime/ResourceMgr.h"

namespace clab {

std::string Variable::DebugString() const {
  // try_lock: a caller that already holds mu() (an Assign reporting an error) must not
  // deadlock on its own diagnostics; it then sees the declared shape only.
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  const std::string type = DataTypeName(dtype_);
  if (!lock.owns_lock()) return clab::StrCat(type, "/", shape_.DebugString());
  if (value_.IsInitialized()) return clab::StrCat(type, "/", value_.shape().DebugString());
  return clab::StrCat(type, "/", shape_.DebugString(), " (uninitialized)");
}

void ResourceMgr::Clear(const std::string* container) {
  // Destroy outside the lock: a resource's destructor may be slow (large buffers).
  std::map<std::string, std::map<std::string, std::shared_ptr<Resource>>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (container == nullptr) {
      dropped.swap(resources_);
    } else if (auto it = resources_.find(*container); it != resources_.end()) {
      dropped[it->first].swap(it->second);
      resources_.erase(it);
    }
  }
}

std::vector<std::string> ResourceMgr::Names(const std::string& container) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  auto it = resources_.find(container);
  if (it == resources_.end()) return names;
  for (const auto& [name, resource] : it->second) names.push_back(name);
  return names;
}

}  // namespace clab
