// The state behind a queue node (FIFOQueue(V2), RandomShuffleQueueV2): a queue of tuples of
// tensors, shared by every step (and every session) that runs on the queue's device.
// Dequeues wait for elements and enqueues wait for room; both complete through callbacks,
// so a waiting op holds no thread. A FIFO queue hands out the oldest tuple; a shuffling one
// a tuple drawn at random (from a generator seeded by seed/seed2, so fixed seeds give a
// fixed order), and only while more than min_after_dequeue tuples remain, unless closed.
// Closing fails waiting dequeues that can no longer be served (and, when asked, waiting
// enqueues): OUT_OF_RANGE once fewer elements remain than a dequeue asks for, as
// TensorFlow's queues do; a dequeue-up-to then takes what is left. A wait made for a step
// also ends, with the step's abort status, when the step's rendezvous is aborted (its call
// was cancelled, another partition failed), so no step waits on a queue nobody will fill.
#pragma once

#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/runtime/ResourceMgr.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace clab {

class Rendezvous;

class TensorQueue : public Resource, public std::enable_shared_from_this<TensorQueue> {
 public:
  using Tuple = std::vector<Tensor>;
  using EnqueueDone = std::function<void(const Status&)>;
  using DequeueDone = std::function<void(const Status&, std::vector<Tuple>)>;

  struct Options {
    std::string kind = "FIFOQueue";  // how errors name the queue: "FIFOQueue", "RandomShuffleQueue"
    std::string name;
    std::vector<DataType> types;
    std::vector<PartialShape> shapes;  // empty: any shape; otherwise one per component
    int64_t capacity = -1;             // < 0: unbounded
    bool shuffle = false;
    int64_t min_after_dequeue = 0;  // shuffle only
    int64_t seed = 0, seed2 = 0;    // shuffle only; both 0: a nondeterministic order
  };

  explicit TensorQueue(Options options);

  const std::string& name() const { return options_.name; }
  const std::string& kind() const { return options_.kind; }
  const std::vector<DataType>& types() const { return options_.types; }
  const std::vector<PartialShape>& shapes() const { return options_.shapes; }
  int64_t capacity() const { return options_.capacity; }
  bool shuffle() const { return options_.shuffle; }

  // Whether `tuple` fits the queue's component types and shapes; the error names the queue.
  Status Validate(const Tuple& tuple) const;
  // Appends the tuples in order; `done` runs once all are in (maybe at once, maybe later).
  // With `step`, an abort of that rendezvous ends the wait (the tuples not yet in are dropped).
  void EnqueueAsync(std::vector<Tuple> tuples, EnqueueDone done, Rendezvous* step = nullptr);
  // Takes `count` tuples; `done` runs once there are that many, or with OUT_OF_RANGE when the
  // queue is closed and too few remain (with `up_to`, fewer are taken then, if any). With
  // `step`, an abort of that rendezvous ends the wait (what it took goes back).
  void DequeueAsync(int64_t count, bool up_to, DequeueDone done, Rendezvous* step = nullptr);
  void Close(bool cancel_pending_enqueues);
  int64_t size() const;
  bool closed() const;
  std::string DebugString() const override;

 private:
  struct PendingEnqueue {
    uint64_t id = 0;
    std::deque<Tuple> tuples;
    EnqueueDone done;
  };
  struct PendingDequeue {
    uint64_t id = 0;
    int64_t count = 1;
    bool up_to = false;
    std::vector<Tuple> taken;
    DequeueDone done;
  };
  using Callback = std::function<void()>;
  // Moves elements between waiting enqueues, the buffer and waiting dequeues; returns the
  // callbacks to run once the lock is released.
  std::vector<Callback> PumpLocked();
  bool CanTakeLocked() const;
  Tuple TakeLocked();
  Status ClosedError(int64_t requested) const;
  // Ends the wait `id` with `status` when it is still pending.
  void Cancel(uint64_t id, const Status& status);
  // After a wait `id` was queued: whether it is still pending.
  bool PendingLocked(uint64_t id) const;
  // Links one wait to its step's rendezvous (the abort listener, removed when the wait ends).
  struct StepWait;
  // Has an abort of `wait`'s step end the wait `id`, unless it has ended meanwhile.
  void EndWithStep(uint64_t id, const std::shared_ptr<StepWait>& wait);

  const Options options_;
  mutable std::mutex mu_;
  bool closed_ = false;
  std::deque<Tuple> buffer_;
  std::deque<PendingEnqueue> enqueues_;
  std::deque<PendingDequeue> dequeues_;
  std::mt19937_64 random_;
  uint64_t next_wait_ = 1;
};

}  // namespace clab
