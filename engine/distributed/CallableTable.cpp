#include "distributed/CallableTable.h"

namespace clab {

Status CallableTable::CheckSupported(const tensorflow::CallableOptions& options) {
  if (options.tensor_connection_size() > 0)
    return errors::Unimplemented("CallableOptions.tensor_connection (", options.tensor_connection(0).from_tensor(),
                                 " -> ", options.tensor_connection(0).to_tensor(),
                                 ") is not supported by ClusterLab's master; feed the tensor instead");
  if (!options.feed_devices().empty() || !options.fetch_devices().empty())
    return errors::Unimplemented(
        "CallableOptions.feed_devices and fetch_devices are not supported by ClusterLab's master: "
        "fed and fetched tensors are always in host memory");
  return OkStatus();
}

int64_t CallableTable::Add(tensorflow::CallableOptions options) {
  MutexLock lock(mu_);
  const int64_t handle = next_handle_++;
  callables_.emplace(handle, std::move(options));
  return handle;
}

StatusOr<tensorflow::CallableOptions> CallableTable::Find(int64_t handle) const {
  MutexLock lock(mu_);
  if (handle < 0 || handle >= next_handle_) return errors::InvalidArgument("No such callable handle: ", handle);
  auto it = callables_.find(handle);
  if (it == callables_.end())
    return errors::InvalidArgument("Attempted to run callable after handle was released: ", handle);
  return it->second;
}

void CallableTable::Release(int64_t handle) {
  MutexLock lock(mu_);
  callables_.erase(handle);
}

StatusOr<tensorflow::RunStepRequest> CallableTable::StepRequest(const tensorflow::CallableOptions& options,
                                                                const tensorflow::RunCallableRequest& call) {
  if (call.feed_size() != options.feed_size())
    return errors::InvalidArgument("RunCallable of handle ", call.handle(), " got ", call.feed_size(),
                                   " fed tensor(s); the callable feeds ", options.feed_size());
  tensorflow::RunStepRequest step;
  step.set_session_handle(call.session_handle());
  for (int i = 0; i < options.feed_size(); ++i) {
    tensorflow::NamedTensorProto* feed = step.add_feed();
    feed->set_name(options.feed(i));
    *feed->mutable_tensor() = call.feed(i);
  }
  *step.mutable_fetch() = options.fetch();
  *step.mutable_target() = options.target();
  *step.mutable_options() = options.run_options();
  return step;
}

}  // namespace clab
