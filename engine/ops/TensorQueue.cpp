#include "ops/TensorQueue.h"

#include "clab/runtime/Rendezvous.h"

namespace clab {
namespace {

std::mt19937_64 MakeRandom(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) return std::mt19937_64(std::random_device{}());
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(static_cast<uint64_t>(seed) >> 32),
                         static_cast<uint32_t>(seed2), static_cast<uint32_t>(static_cast<uint64_t>(seed2) >> 32)};
  return std::mt19937_64(sequence);
}

}  // namespace

TensorQueue::TensorQueue(Options options)
    : options_(std::move(options)), random_(MakeRandom(options_.seed, options_.seed2)) {}

Status TensorQueue::Validate(const Tuple& tuple) const {
  const auto& types = options_.types;
  if (tuple.size() != types.size())
    return errors::InvalidArgument(kind(), " '", name(), "' holds tuples of ", types.size(), " components, got ",
                                   tuple.size());
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != types[i])
      return errors::InvalidArgument(kind(), " '", name(), "' component ", i, " is ", DataTypeName(types[i]), ", got ",
                                     DataTypeName(tuple[i].dtype()));
    if (!options_.shapes.empty() && !options_.shapes[i].IsCompatibleWith(PartialShape(tuple[i].shape())))
      return errors::InvalidArgument(kind(), " '", name(), "' component ", i, " has shape ",
                                     options_.shapes[i].DebugString(), ", got ", tuple[i].shape().DebugString());
  }
  return OkStatus();
}

Status TensorQueue::ClosedError(int64_t requested) const {
  return errors::OutOfRange(kind(), " '", name(), "' is closed and has insufficient elements (requested ", requested,
                            ", current size ", buffer_.size(), ")");
}

struct TensorQueue::StepWait {
  std::mutex mu;
  Rendezvous* step = nullptr;
  bool ended = false;
  int listener = -1;

  void End() {
    int id = -1;
    {
      std::lock_guard<std::mutex> lock(mu);
      ended = true;
      std::swap(id, listener);
    }
    if (step != nullptr) step->RemoveAbortListener(id);
  }
};

void TensorQueue::EnqueueAsync(std::vector<Tuple> tuples, EnqueueDone done, Rendezvous* step) {
  std::shared_ptr<StepWait> wait;
  if (step != nullptr) {
    wait = std::make_shared<StepWait>();
    wait->step = step;
    done = [wait, done = std::move(done)](const Status& status) {
      wait->End();
      done(status);
    };
  }
  uint64_t id = 0;
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      ready.push_back([done = std::move(done), what = StrCat(kind(), " '", name(), "'")] {
        done(errors::Cancelled("Enqueue on ", what, " which is closed"));
      });
    } else {
      id = next_wait_++;
      enqueues_.push_back(PendingEnqueue{
          id, std::deque<Tuple>(std::make_move_iterator(tuples.begin()), std::make_move_iterator(tuples.end())),
          std::move(done)});
      ready = PumpLocked();
      if (!PendingLocked(id)) id = 0;
    }
  }
  for (auto& callback : ready) callback();
  if (wait && id != 0) EndWithStep(id, wait);
}

void TensorQueue::DequeueAsync(int64_t count, bool up_to, DequeueDone done, Rendezvous* step) {
  std::shared_ptr<StepWait> wait;
  if (step != nullptr) {
    wait = std::make_shared<StepWait>();
    wait->step = step;
    done = [wait, done = std::move(done)](const Status& status, std::vector<Tuple> tuples) {
      wait->End();
      done(status, std::move(tuples));
    };
  }
  uint64_t id = 0;
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    PendingDequeue pending;
    pending.id = id = next_wait_++;
    pending.count = count;
    pending.up_to = up_to;
    pending.done = std::move(done);
    dequeues_.push_back(std::move(pending));
    ready = PumpLocked();
    if (!PendingLocked(id)) id = 0;
  }
  for (auto& callback : ready) callback();
  if (wait && id != 0) EndWithStep(id, wait);
}

bool TensorQueue::PendingLocked(uint64_t id) const {
  for (const PendingEnqueue& pending : enqueues_)
    if (pending.id == id) return true;
  for (const PendingDequeue& pending : dequeues_)
    if (pending.id == id) return true;
  return false;
}

void TensorQueue::EndWithStep(uint64_t id, const std::shared_ptr<StepWait>& wait) {
  Status aborted;
  {
    // Once the wait has ended its step may be gone (the node that waited has completed and
    // the step with it): the step is touched only while the wait is known not to have ended,
    // and End() cannot get past this lock before the listener is in.
    std::lock_guard<std::mutex> lock(wait->mu);
    if (wait->ended) return;
    wait->listener = wait->step->AddAbortListener(
        [self = shared_from_this(), id](const Status& status) { self->Cancel(id, status); }, &aborted);
  }
  if (!aborted.ok()) Cancel(id, aborted);
}

void TensorQueue::Cancel(uint64_t id, const Status& status) {
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = enqueues_.begin(); it != enqueues_.end(); ++it) {
      if (it->id != id) continue;
      ready.push_back([done = std::move(it->done), status] { done(status); });
      enqueues_.erase(it);
      break;
    }
    for (auto it = dequeues_.begin(); it != dequeues_.end(); ++it) {
      if (it->id != id) continue;
      // What it took goes back, in order, for the dequeues after it.
      for (auto taken = it->taken.rbegin(); taken != it->taken.rend(); ++taken) buffer_.push_front(std::move(*taken));
      ready.push_back([done = std::move(it->done), status] { done(status, {}); });
      dequeues_.erase(it);
      break;
    }
    std::vector<Callback> more = PumpLocked();
    ready.insert(ready.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  for (auto& callback : ready) callback();
}

bool TensorQueue::CanTakeLocked() const {
  if (buffer_.empty()) return false;
  if (!options_.shuffle || closed_) return true;
  return static_cast<int64_t>(buffer_.size()) > options_.min_after_dequeue;
}

TensorQueue::Tuple TensorQueue::TakeLocked() {
  if (!options_.shuffle) {
    Tuple tuple = std::move(buffer_.front());
    buffer_.pop_front();
    return tuple;
  }
  const size_t pick = static_cast<size_t>(random_() % buffer_.size());
  std::swap(buffer_[pick], buffer_.back());
  Tuple tuple = std::move(buffer_.back());
  buffer_.pop_back();
  return tuple;
}

std::vector<TensorQueue::Callback> TensorQueue::PumpLocked() {
  std::vector<Callback> ready;
  bool moved = true;
  while (moved) {
    moved = false;
    // Waiting enqueues fill the buffer up to its capacity, oldest first.
    while (!enqueues_.empty() && (capacity() < 0 || static_cast<int64_t>(buffer_.size()) < capacity())) {
      PendingEnqueue& front = enqueues_.front();
      if (!front.tuples.empty()) {
        buffer_.push_back(std::move(front.tuples.front()));
        front.tuples.pop_front();
        moved = true;
      }
      if (front.tuples.empty()) {
        ready.push_back([done = std::move(front.done)] { done(OkStatus()); });
        enqueues_.pop_front();
      }
    }
    // Waiting dequeues take from the buffer, the oldest dequeue first.
    while (!dequeues_.empty()) {
      PendingDequeue& front = dequeues_.front();
      while (static_cast<int64_t>(front.taken.size()) < front.count && CanTakeLocked()) {
        front.taken.push_back(TakeLocked());
        moved = true;
      }
      if (static_cast<int64_t>(front.taken.size()) < front.count) break;
      ready.push_back([done = std::move(front.done), taken = std::move(front.taken)]() mutable {
        done(OkStatus(), std::move(taken));
      });
      dequeues_.pop_front();
    }
    // Closed, with nothing more to come: the first waiting dequeue cannot be served in full.
    if (closed_ && enqueues_.empty() && !dequeues_.empty() && buffer_.empty()) {
      PendingDequeue front = std::move(dequeues_.front());
      dequeues_.pop_front();
      if (front.up_to && !front.taken.empty()) {
        ready.push_back([done = std::move(front.done), taken = std::move(front.taken)]() mutable {
          done(OkStatus(), std::move(taken));
        });
      } else {
        // What it took goes back, in order, for the dequeues after it.
        for (auto it = front.taken.rbegin(); it != front.taken.rend(); ++it) buffer_.push_front(std::move(*it));
        const Status closed = ClosedError(front.count);
        ready.push_back([done = std::move(front.done), closed] { done(closed, {}); });
      }
      moved = true;
    }
  }
  return ready;
}

void TensorQueue::Close(bool cancel_pending_enqueues) {
  std::vector<Callback> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (auto& pending : enqueues_) {
        ready.push_back([done = std::move(pending.done), what = StrCat(kind(), " '", name(), "'")] {
          done(errors::Cancelled("Enqueue operation was cancelled: ", what, " was closed"));
        });
      }
      enqueues_.clear();
    }
    auto more = PumpLocked();
    ready.insert(ready.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  for (auto& callback : ready) callback();
}

int64_t TensorQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(buffer_.size());
}

bool TensorQueue::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

std::string TensorQueue::DebugString() const {
  return StrCat(kind(), " '", name(), "' (", types().size(), " components, capacity ", capacity(), ")");
}

}  // namespace clab
