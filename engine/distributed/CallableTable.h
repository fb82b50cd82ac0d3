// The callables of one master session (MasterService.MakeCallable / RunCallable /
// ReleaseCallable): handles numbered from 0 as TensorFlow numbers them, each the
// CallableOptions it was made with. Thread-safe.
#pragma once

#include "clab/core/Mutex.h"
#include "clab/core/Status.h"
#include "tensorflow/config.pb.h"
#include "tensorflow/master.pb.h"

#include <cstdint>
#include <map>

namespace clab {

class CallableTable {
 public:
  // UNIMPLEMENTED for the options ClusterLab does not support (tensor connections, feed
  // and fetch devices), naming them.
  static Status CheckSupported(const tensorflow::CallableOptions& options);

  int64_t Add(tensorflow::CallableOptions options);
  // INVALID_ARGUMENT, in TensorFlow's words, for a handle never made or already released.
  StatusOr<tensorflow::CallableOptions> Find(int64_t handle) const;
  // Releasing an unknown handle is not an error, as in TensorFlow.
  void Release(int64_t handle);

  // The step a RunCallable call runs: the callable's feeds (named, with the call's tensors
  // in order), fetches, targets and run options. INVALID_ARGUMENT when the number of fed
  // tensors differs from the callable's feeds.
  static StatusOr<tensorflow::RunStepRequest> StepRequest(const tensorflow::CallableOptions& options,
                                                          const tensorflow::RunCallableRequest& call);

 private:
  mutable Mutex mu_;
  int64_t next_handle_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int64_t, tensorflow::CallableOptions> callables_ ABSL_GUARDED_BY(mu_);
};

}  // namespace clab
