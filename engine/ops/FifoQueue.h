// The state behind a FIFOQueue node: a first-in first-out queue of tuples of tensors, shared
// by every step (and every session) that runs on the queue's device. Dequeues wait for an
// element and enqueues wait for room; both complete through callbacks, so a waiting op holds
// no thread. Closing fails waiting dequeues (and, when asked, waiting enqueues) with
// OUT_OF_RANGE once no element is left, as TensorFlow's queues do.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/runtime/ResourceMgr.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace clab {

class FifoQueue : public Resource {
 public:
  using Tuple = std::vector<Tensor>;
  using EnqueueDone = std::function<void(const Status&)>;
  using DequeueDone = std::function<void(const Status&, Tuple)>;

  // capacity < 0: unbounded. `shapes` empty: any shape; otherwise one per component.
  FifoQueue(std::string name, std::vector<DataType> types, std::vector<PartialShape> shapes, int64_t capacity);

  const std::string& name() const { return name_; }
  const std::vector<DataType>& types() const { return types_; }
  int64_t capacity() const { return capacity_; }

  // Whether `tuple` fits the queue's component types and shapes; the error names the queue.
  Status Validate(const Tuple& tuple) const;
  // Appends the tuples in order; `done` runs once all are in (maybe at once, maybe later).
  void EnqueueAsync(std::vector<Tuple> tuples, EnqueueDone done);
  // Takes the oldest tuple; `done` runs once there is one, or with OUT_OF_RANGE when the queue
  // is closed and empty.
  void DequeueAsync(DequeueDone done);
  void Close(bool cancel_pending_enqueues);
  int64_t size() const;
  bool closed() const;
  std::string DebugString() const override;

 private:
  struct PendingEnqueue {
    std::deque<Tuple> tuples;
    EnqueueDone done;
  };
  using Callback = std::function<void()>;
  // Moves elements between waiting enqueues, the buffer and waiting dequeues; returns the
  // callbacks to run once the lock is released.
  std::vector<Callback> PumpLocked();
  Status ClosedError() const;

  const std::string name_;
  const std::vector<DataType> types_;
  const std::vector<PartialShape> shapes_;
  const int64_t capacity_;
  mutable std::mutex mu_;
  bool closed_ = false;
  std::deque<Tuple> buffer_;
  std::deque<PendingEnqueue> enqueues_;
  std::deque<DequeueDone> dequeues_;
};

}  // namespace clab
